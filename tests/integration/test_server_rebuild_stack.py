"""Server actions on real processes: `nova-clone stack up` (fake driver,
MariaDB, RabbitMQ) driven by the openstack CLI as a user would: rebuild,
image create, rescue/unrescue, add/remove port, console url."""

import time

import pytest

from tests.integration.test_boot_stack import _events, _parsed
from tests.integration.test_stack import stack_up

pytestmark = pytest.mark.integration


@pytest.fixture(scope='module')
def stack(tmp_path_factory):
    with stack_up('ncact_', tmp_path_factory.mktemp('actstack'), 2) as st:
        yield st


@pytest.fixture(scope='module')
def server(stack):
    shown = stack.osc_json('demo', 'server', 'create', '--flavor',
                           'm1.tiny', '--image', 'tiny-raw', '--network',
                           'private', '--wait', 'vm-actions')
    assert shown['status'] == 'ACTIVE'
    yield shown
    stack.osc('demo', 'server', 'delete', '--wait', shown['id'],
              check=False)


@pytest.fixture(scope='module')
def other_image(stack, tmp_path_factory):
    path = tmp_path_factory.mktemp('img') / 'other.raw'
    path.write_bytes(b'another tiny image\n' * 64)
    return stack.osc_json('demo', 'image', 'create', '--disk-format',
                          'raw', '--container-format', 'bare', '--file',
                          str(path), 'other-raw')


def _wait_status(stack, server_id, status, timeout=90):
    deadline = time.monotonic() + timeout
    while True:
        shown = stack.osc_json('admin', 'server', 'show', server_id)
        if (shown['status'] == status and
                not shown.get('OS-EXT-STS:task_state')):
            return shown
        assert time.monotonic() < deadline, shown
        time.sleep(1)


def _request_of(stack, server_id, action):
    actions = stack.osc_json('admin', 'server', 'event', 'list', server_id)
    found = [a for a in actions if a['Action'] == action]
    assert found, actions
    return found[0]['Request ID']


def _event_results(stack, server_id, action):
    request_id = _request_of(stack, server_id, action)
    return {e['event']: e['result']
            for e in _events(stack, server_id, request_id)}


def test_rebuild_with_another_image(stack, server, other_image):
    stack.osc('demo', 'server', 'rebuild', '--image', other_image['id'],
              '--wait', server['id'])
    shown = _wait_status(stack, server['id'], 'ACTIVE')
    # OSC shows the image as "name (id)".
    assert other_image['id'] in str(shown['image'])
    assert _event_results(stack, server['id'], 'rebuild') == {
        'rebuild_server': 'Success', 'compute_rebuild_instance': 'Success'}


def test_image_create_uploads_a_snapshot(stack, server):
    image = stack.osc_json('demo', 'server', 'image', 'create', '--name',
                           'vm-snap', '--wait', server['id'])
    shown = stack.osc_json('demo', 'image', 'show', image['id'])
    assert shown['status'] == 'active'
    properties = _parsed(shown['properties'])
    assert properties['image_type'] == 'snapshot'
    assert properties['instance_uuid'] == server['id']
    _wait_status(stack, server['id'], 'ACTIVE')
    assert _event_results(stack, server['id'], 'createImage') == {
        'compute_snapshot_instance': 'Success'}


def test_rescue_and_unrescue(stack, server):
    stack.osc('demo', 'server', 'rescue', '--image', 'tiny-raw',
              server['id'])
    _wait_status(stack, server['id'], 'RESCUE')
    refused = stack.osc('demo', 'server', 'rescue', server['id'],
                        check=False)
    assert refused.returncode != 0 and 'vm_state rescued' in refused.stderr
    stack.osc('demo', 'server', 'unrescue', server['id'])
    _wait_status(stack, server['id'], 'ACTIVE')


def test_add_and_remove_port(stack, server):
    port = stack.osc_json('demo', 'port', 'create', '--network', 'private',
                          'vm-extra-port')
    stack.osc('demo', 'server', 'add', 'port', server['id'], port['id'])
    bound = stack.osc_json('admin', 'port', 'show', port['id'])
    assert bound['device_id'] == server['id']
    assert bound['binding_host_id'] == stack.osc_json(
        'admin', 'server', 'show', server['id'])['OS-EXT-SRV-ATTR:host']
    stack.osc('demo', 'server', 'remove', 'port', server['id'], port['id'])
    deadline = time.monotonic() + 60
    while stack.osc_json('admin', 'port', 'show', port['id'])['device_id']:
        assert time.monotonic() < deadline
        time.sleep(1)


def test_console_url(stack, server):
    console = stack.osc_json('demo', 'console', 'url', 'show', '--novnc',
                             server['id'])
    assert 'token' in console['url']
