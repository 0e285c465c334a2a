"""The power and state actions of a server on real processes (`nova-clone
stack up`, fake driver, MariaDB and RabbitMQ), driven by the openstack CLI
as a user would: stop, start, reboot, pause, unpause, suspend, resume,
lock, unlock, set --state, console log show, server event list."""

import time

import pytest

from nova_clone.compute import power_state
from tests.integration.test_stack import stack_up

pytestmark = pytest.mark.integration

V = ('--os-compute-api-version', '2.73')


@pytest.fixture(scope='module')
def stack(tmp_path_factory):
    with stack_up('ncact_', tmp_path_factory.mktemp('actstack'), 1) as st:
        yield st


def _field(shown, name):
    # OSC names the extended attributes with or without their prefix
    # (power_state: the number, in JSON).
    for key in ('OS-EXT-STS:%s' % name, name):
        if key in shown:
            return shown[key]
    raise KeyError(name)


def _wait(st, server_id, status, timeout=60):
    """`server show` once the server is ``status`` with no task."""
    deadline = time.monotonic() + timeout
    while True:
        shown = st.osc_json('admin', 'server', 'show', server_id)
        if shown['status'] == status and not _field(shown, 'task_state'):
            return shown
        assert time.monotonic() < deadline, shown
        time.sleep(0.5)


def _events(st, server_id):
    return [row['Action'] for row in st.osc_json(
        'demo', 'server', 'event', 'list', server_id)]


def _refused(st, cloud, *args):
    proc = st.osc(cloud, *args, check=False)
    assert proc.returncode != 0, proc.stdout
    return proc.stderr


def test_power_actions_through_the_cli(stack):
    server = stack.osc_json('demo', 'server', 'create', '--flavor',
                            'm1.tiny', '--image', 'tiny-raw', '--network',
                            'private', '--wait', 'act-1')
    sid = server['id']
    assert server['status'] == 'ACTIVE'

    stack.osc('demo', 'server', 'stop', sid)
    shown = _wait(stack, sid, 'SHUTOFF')
    assert _field(shown, 'power_state') == power_state.SHUTDOWN
    assert _field(shown, 'vm_state') == 'stopped'
    err = _refused(stack, 'demo', 'server', 'stop', sid)
    assert "Cannot 'stop' instance %s while it is in vm_state " \
           "stopped" % sid in err

    stack.osc('demo', 'server', 'start', sid)
    shown = _wait(stack, sid, 'ACTIVE')
    assert _field(shown, 'power_state') == power_state.RUNNING
    stack.osc('demo', 'server', 'reboot', sid)
    _wait(stack, sid, 'ACTIVE')
    stack.osc('demo', 'server', 'reboot', '--hard', sid)
    _wait(stack, sid, 'ACTIVE')

    stack.osc('demo', 'server', 'pause', sid)
    shown = _wait(stack, sid, 'PAUSED')
    assert _field(shown, 'power_state') == power_state.PAUSED
    err = _refused(stack, 'demo', 'server', 'suspend', sid)
    assert "Cannot 'suspend' instance" in err
    stack.osc('demo', 'server', 'unpause', sid)
    _wait(stack, sid, 'ACTIVE')
    stack.osc('demo', 'server', 'suspend', sid)
    shown = _wait(stack, sid, 'SUSPENDED')
    assert _field(shown, 'power_state') == power_state.SUSPENDED
    stack.osc('demo', 'server', 'resume', sid)
    _wait(stack, sid, 'ACTIVE')

    events = _events(stack, sid)
    for action in ('create', 'stop', 'start', 'reboot', 'pause', 'unpause',
                   'suspend', 'resume'):
        assert action in events, events

    log = stack.osc('demo', 'console', 'log', 'show', '--lines', '1', sid)
    assert log.stdout.strip() == 'LAST LINE'


def test_lock_and_reset_state_through_the_cli(stack):
    server = stack.osc_json('demo', 'server', 'create', '--flavor',
                            'm1.tiny', '--image', 'tiny-raw', '--nic',
                            'none', '--wait', *V, 'act-2')
    sid = server['id']
    assert server['status'] == 'ACTIVE'
    assert stack.osc_json('admin', 'port', 'list', '--device-id', sid) == []

    stack.osc('demo', *V, 'server', 'lock', '--reason', 'backup', sid)
    shown = stack.osc_json('demo', *V, 'server', 'show', sid)
    assert shown['locked_reason'] == 'backup'
    err = _refused(stack, 'demo', 'server', 'stop', sid)
    assert 'Instance %s is locked' % sid in err
    # An admin may still act on it.
    stack.osc('admin', 'server', 'stop', sid)
    _wait(stack, sid, 'SHUTOFF')
    stack.osc('demo', 'server', 'unlock', sid)
    stack.osc('demo', 'server', 'start', sid)
    _wait(stack, sid, 'ACTIVE')

    err = _refused(stack, 'demo', 'server', 'set', '--auto-approve',
                   '--state', 'error', sid)
    assert 'os_compute_api:os-admin-actions:reset_state' in err
    stack.osc('admin', 'server', 'set', '--auto-approve', '--state',
              'error', sid)
    assert _wait(stack, sid, 'ERROR')['status'] == 'ERROR'
    stack.osc('admin', 'server', 'set', '--auto-approve', '--state',
              'active', sid)
    _wait(stack, sid, 'ACTIVE')
    events = _events(stack, sid)
    for action in ('lock', 'unlock', 'stop', 'start', 'resetState'):
        assert action in events, events
