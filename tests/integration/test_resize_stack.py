"""Resize and cold migration on real processes (scenario 3): `nova-clone
stack up` with three fake-driver computes on MariaDB and RabbitMQ, driven
by the openstack CLI as a user and an operator would.  After each step
the tests read what those users see: the server, Placement's usage of
every provider and the allocations by consumer, the ports' binding host,
`server migration list` and `server event list`."""

import time
import uuid

import pytest

from tests.integration.test_boot_stack import _allocations
from tests.integration.test_boot_stack import _parsed
from tests.integration.test_boot_stack import _ports_of
from tests.integration.test_boot_stack import _unlimited_quota
from tests.integration.test_stack import stack_up
from tests.integration.test_volumes_stack import _attachments
from tests.integration.test_volumes_stack import _new_volume
from tests.integration.test_volumes_stack import _until
from tests.integration.test_volumes_stack import _volume_status

pytestmark = pytest.mark.integration

HOSTS = ('compute1', 'compute2', 'compute3')
# (VCPU, MEMORY_MB, DISK_GB) of the seeded flavors.
TINY = {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 1}
SMALL = {'VCPU': 1, 'MEMORY_MB': 2048, 'DISK_GB': 20}


@pytest.fixture(scope='module')
def stack(tmp_path_factory):
    with stack_up('ncresize_', tmp_path_factory.mktemp('resizestack'),
                  3) as st:
        _unlimited_quota(st)
        yield st


def _providers(st):
    """{host name: provider uuid} of the compute nodes."""
    return {rp['name']: rp['uuid'] for rp in st.osc_json(
        'admin', 'resource', 'provider', 'list') if rp['name'] in HOSTS}


def _usage(st, providers):
    """{host: {resource class: usage}} of every compute provider, the
    classes in use only."""
    usage = {}
    for host, rp in providers.items():
        rows = st.osc_json('admin', 'resource', 'provider', 'usage', 'show',
                           rp)
        usage[host] = {r['resource_class']: r['usage'] for r in rows
                       if r['usage']}
    return usage


def _consumer(st, consumer, providers):
    """{host: resources} Placement holds for ``consumer``."""
    by_rp = {rp: host for host, rp in providers.items()}
    return {by_rp[a['resource_provider']]: _parsed(a['resources'])
            for a in _allocations(st, consumer)}


def _show(st, server_id):
    return st.osc_json('admin', 'server', 'show', server_id)


def _host(shown):
    return shown['OS-EXT-SRV-ATTR:host']


def _wait_status(st, server_id, statuses, timeout=90):
    deadline = time.monotonic() + timeout
    while True:
        shown = _show(st, server_id)
        if shown['status'] in statuses and not shown.get(
                'OS-EXT-STS:task_state'):
            return shown
        assert time.monotonic() < deadline, shown
        time.sleep(1)


def _bindings(st, server_id):
    """The binding host of each of the server's ports."""
    return [st.osc_json('admin', 'port', 'show', p['ID'])['binding_host_id']
            for p in _ports_of(st, server_id)]


def _migrations(st, server_id):
    return st.osc_json('admin', 'server', 'migration', 'list', '--server',
                       server_id)


def _events(st, server_id):
    """[(action, [(event, result)])] oldest action first, after the
    create."""
    actions = st.osc_json('admin', 'server', 'event', 'list', server_id)
    result = []
    for action in sorted(actions, key=lambda a: a['Start Time']):
        shown = st.osc_json('admin', 'server', 'event', 'show', server_id,
                            action['Request ID'])
        if shown['action'] == 'create':
            continue
        events = _parsed(shown['events'])
        result.append((shown['action'], sorted(
            (e['event'], e['result']) for e in events)))
    return result


def _expected_usage(placed):
    """{host: usage} from [(host, resources)] of every consumer."""
    usage = {h: {} for h in HOSTS}
    for host, resources in placed:
        for rc, amount in resources.items():
            usage[host][rc] = usage[host].get(rc, 0) + amount
    return usage


def _boot(st, name):
    server = st.osc_json('admin', 'server', 'create', '--flavor', 'm1.tiny',
                         '--image', 'tiny-raw', '--network', 'private',
                         '--wait', name)
    assert server['status'] == 'ACTIVE', server
    return _show(st, server['id'])


def _one_migration(st, server_id):
    (migration,) = _migrations(st, server_id)
    return migration


def test_resize_then_confirm(stack):
    providers = _providers(stack)
    server = _boot(stack, 'rs-' + uuid.uuid4().hex[:6])
    sid, source = server['id'], _host(server)
    assert _usage(stack, providers) == _expected_usage([(source, TINY)])

    stack.osc('admin', 'server', 'resize', '--flavor', 'm1.small', '--wait',
              sid)
    resized = _wait_status(stack, sid, ['VERIFY_RESIZE'])
    dest = _host(resized)
    assert dest != source
    assert 'm1.small' in str(resized['flavor'])
    migration = _one_migration(stack, sid)
    assert (migration['Source Compute'], migration['Dest Compute'],
            migration['Status'], migration['Type']) == (
        source, dest, 'finished', 'resize')
    # The source's resources are held by the migration until confirmed.
    assert _consumer(stack, sid, providers) == {dest: SMALL}
    assert _consumer(stack, migration['UUID'], providers) == {source: TINY}
    assert _usage(stack, providers) == _expected_usage(
        [(source, TINY), (dest, SMALL)])
    assert _bindings(stack, sid) == [dest]

    stack.osc('admin', 'server', 'resize', 'confirm', sid)
    confirmed = _wait_status(stack, sid, ['ACTIVE'])
    assert _host(confirmed) == dest
    migration = _wait_migration(stack, sid, 'confirmed')
    assert _consumer(stack, migration['UUID'], providers) == {}
    assert _usage(stack, providers) == _expected_usage([(dest, SMALL)])
    assert _bindings(stack, sid) == [dest]
    assert _events(stack, sid) == [
        ('resize', [('cold_migrate', 'Success'),
                    ('compute_finish_resize', 'Success'),
                    ('compute_prep_resize', 'Success'),
                    ('compute_resize_instance', 'Success'),
                    ('conductor_migrate_server', 'Success')]),
        ('confirmResize', [('compute_confirm_resize', 'Success')])]
    stack.osc('admin', 'server', 'delete', '--wait', sid)
    assert _usage(stack, providers) == _expected_usage([])


def _wait_migration(st, server_id, status, timeout=60):
    deadline = time.monotonic() + timeout
    while True:
        migration = _one_migration(st, server_id)
        if migration['Status'] == status:
            return migration
        assert time.monotonic() < deadline, migration
        time.sleep(1)


def test_resize_then_revert(stack):
    providers = _providers(stack)
    server = _boot(stack, 'rv-' + uuid.uuid4().hex[:6])
    sid, source = server['id'], _host(server)
    stack.osc('admin', 'server', 'resize', '--flavor', 'm1.small', '--wait',
              sid)
    dest = _host(_wait_status(stack, sid, ['VERIFY_RESIZE']))
    assert _bindings(stack, sid) == [dest]

    stack.osc('admin', 'server', 'resize', 'revert', sid)
    reverted = _wait_status(stack, sid, ['ACTIVE'])
    assert _host(reverted) == source
    assert 'm1.tiny' in str(reverted['flavor'])
    migration = _wait_migration(stack, sid, 'reverted')
    assert _consumer(stack, sid, providers) == {source: TINY}
    assert _consumer(stack, migration['UUID'], providers) == {}
    assert _usage(stack, providers) == _expected_usage([(source, TINY)])
    assert _bindings(stack, sid) == [source]
    assert [(action, events) for action, events in _events(stack, sid)
            if action == 'revertResize'] == [
        ('revertResize', [('compute_finish_revert_resize', 'Success'),
                          ('compute_revert_resize', 'Success')])]
    stack.osc('admin', 'server', 'delete', '--wait', sid)


def test_cold_migrate_then_confirm(stack):
    providers = _providers(stack)
    server = _boot(stack, 'cm-' + uuid.uuid4().hex[:6])
    sid, source = server['id'], _host(server)
    stack.osc('admin', 'server', 'migrate', '--wait', sid)
    moved = _wait_status(stack, sid, ['VERIFY_RESIZE'])
    dest = _host(moved)
    assert dest != source
    migration = _one_migration(stack, sid)
    assert (migration['Source Compute'], migration['Dest Compute'],
            migration['Status'], migration['Type']) == (
        source, dest, 'finished', 'migration')
    assert _consumer(stack, sid, providers) == {dest: TINY}
    assert _consumer(stack, migration['UUID'], providers) == {source: TINY}
    assert _bindings(stack, sid) == [dest]

    stack.osc('admin', 'server', 'resize', 'confirm', sid)
    assert _host(_wait_status(stack, sid, ['ACTIVE'])) == dest
    migration = _wait_migration(stack, sid, 'confirmed')
    assert _consumer(stack, migration['UUID'], providers) == {}
    assert _usage(stack, providers) == _expected_usage([(dest, TINY)])
    assert [action for action, _ in _events(stack, sid)] == [
        'migrate', 'confirmResize']
    stack.osc('admin', 'server', 'delete', '--wait', sid)


def test_resize_with_no_valid_host(stack):
    providers = _providers(stack)
    name = 'huge-' + uuid.uuid4().hex[:6]
    # Far more RAM than any fake host (128 GiB) has.
    stack.osc('admin', 'flavor', 'create', '--ram', '1048576', '--disk',
              '1', '--vcpus', '1', name)
    server = _boot(stack, 'nv-' + uuid.uuid4().hex[:6])
    sid, source = server['id'], _host(server)
    stack.osc('admin', 'server', 'resize', '--flavor', name, sid)
    migration = _wait_migration(stack, sid, 'error')
    shown = _wait_status(stack, sid, ['ACTIVE'])
    assert _host(shown) == source
    assert 'm1.tiny' in str(shown['flavor'])
    # An ACTIVE server shows no fault (as in Nova): the reason is the
    # resize action's Error event, its details from 2.84.
    (request_id,) = [a['Request ID'] for a in stack.osc_json(
        'admin', 'server', 'event', 'list', sid) if a['Action'] == 'resize']
    events = _parsed(stack.osc_json(
        'admin', '--os-compute-api-version', '2.84', 'server', 'event',
        'show', sid, request_id)['events'])
    (failed,) = [e for e in events
                 if e['event'] == 'conductor_migrate_server']
    assert failed['result'] == 'Error'
    assert failed['details'].startswith('No valid host was found'), failed
    assert _consumer(stack, sid, providers) == {source: TINY}
    assert _consumer(stack, migration['UUID'], providers) == {}
    assert _usage(stack, providers) == _expected_usage([(source, TINY)])
    assert _bindings(stack, sid) == [source]
    stack.osc('admin', 'server', 'delete', '--wait', sid)
    stack.osc('admin', 'flavor', 'delete', name)


def test_resize_takes_the_volume_along(stack):
    created = stack.osc_json('demo', 'server', 'create', '--flavor',
                             'm1.tiny', '--image', 'tiny-raw', '--network',
                             'private', '--wait',
                             'rsv-' + uuid.uuid4().hex[:6])
    sid = created['id']
    source = _host(_show(stack, sid))
    volume = _new_volume(stack, 'rsv-vol')
    stack.osc('demo', 'server', 'add', 'volume', sid, volume['id'])

    def attached_on(host):
        """Cinder shows the volume in use, its one attachment attached
        with the connector of ``host``."""
        shown = _volume_status(stack, volume['id'], 'in-use')
        return ([a['Status'] for a in _attachments(stack, volume['id'])] ==
                ['attached'] and
                [a['host_name'] for a in _parsed(shown['attachments'])] ==
                [host])
    _until('attached on %s' % source, lambda: attached_on(source))

    stack.osc('demo', 'server', 'resize', '--flavor', 'm1.small', '--wait',
              sid)
    dest = _host(_wait_status(stack, sid, ['VERIFY_RESIZE']))
    assert dest != source
    _until('attached on %s' % dest, lambda: attached_on(dest))
    stack.osc('demo', 'server', 'resize', 'revert', sid)
    assert _host(_wait_status(stack, sid, ['ACTIVE'])) == source
    _until('attached on %s again' % source, lambda: attached_on(source))

    stack.osc('demo', 'server', 'remove', 'volume', sid, volume['id'])
    _volume_status(stack, volume['id'], 'available')
    assert _attachments(stack, volume['id']) == []
    stack.osc('demo', 'server', 'delete', '--wait', sid)
    stack.osc('demo', 'volume', 'delete', volume['id'])
