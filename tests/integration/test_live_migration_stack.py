"""Live migration (scenario 4) on real processes: `nova-clone stack up`
with three fake-driver computes on MariaDB and RabbitMQ, driven by the
openstack CLI.  After each migration: Placement usage per provider, the
port bindings per host in Neutron and `server event list/show`.

The computes' fake hypervisors copy a guest in LIVE_SECONDS (so progress
shows and abort and force-complete have time to act) and compute3 refuses
every incoming live migration.
"""

import time

import pytest

from nova_clone.stack import nova as stack_nova
from tests.integration.test_boot_stack import _allocations
from tests.integration.test_boot_stack import _conn
from tests.integration.test_boot_stack import _events
from tests.integration.test_boot_stack import _layout
from tests.integration.test_boot_stack import _start_computes
from tests.integration.test_boot_stack import _stop_computes
from tests.integration.test_boot_stack import _unlimited_quota
from tests.integration.test_stack import stack_up

pytestmark = pytest.mark.integration

HOSTS = ('compute1', 'compute2', 'compute3')
SOURCE, DEST, REFUSING = HOSTS
# Long enough for the CLI calls made while a migration runs.
LIVE_SECONDS = 45
# The microversion of the migration commands (fields up to 2.80).
MV = ('--os-compute-api-version', '2.80')


@pytest.fixture(scope='module')
def stack(tmp_path_factory):
    with stack_up('nclm_', tmp_path_factory.mktemp('lmstack'), 3) as st:
        _unlimited_quota(st)
        _slow_and_refusing(st)
        yield st


def _slow_and_refusing(st):
    lay = _layout(st)
    _stop_computes(st, *HOSTS)
    for host in HOSTS:
        with open(stack_nova.compute_conf_path(lay, host), 'a') as f:
            f.write('\n[fake_driver]\nlive_migration_seconds = %d\n'
                    'refuse_live_migration = %s\n' % (LIVE_SECONDS,
                                                      REFUSING))
    _start_computes(st, *HOSTS)


def _boot(st, name):
    server = st.osc_json('admin', 'server', 'create', '--flavor', 'm1.tiny',
                         '--image', 'tiny-raw', '--network', 'private',
                         '--availability-zone', 'nova:%s' % SOURCE,
                         '--wait', name)
    assert server['OS-EXT-SRV-ATTR:host'] == SOURCE
    return server['id']


def _show(st, server_id):
    return st.osc_json('admin', 'server', 'show', server_id)


def _wait(predicate, what, timeout=90):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(1)
    raise AssertionError('timed out waiting for %s' % what)


def _settled(st, server_id):
    return _wait(lambda: (lambda s: s if s['status'] == 'ACTIVE' and
                          not s['OS-EXT-STS:task_state'] else None)(
        _show(st, server_id)), 'server %s to settle' % server_id)


def _providers(st):
    return {p['uuid']: p['name'] for p in st.osc_json(
        'admin', 'resource', 'provider', 'list')}


def _assert_placement(st, server_id, host):
    """The server's allocation on ``host`` only, and every provider's
    usage held by servers: no migration holds anything any more."""
    names = _providers(st)
    allocated = {names[a['resource_provider']]
                 for a in _allocations(st, server_id)}
    assert allocated == {host}, allocated
    servers = {s['ID'] for s in st.osc_json('admin', 'server', 'list',
                                            '--all-projects')}
    for uuid, name in names.items():
        held = st.osc_json('admin', 'resource', 'provider', 'show', uuid,
                           '--allocations')['allocations'] or {}
        assert set(held) <= servers, (name, held, servers)
        assert (server_id in held) == (name == host), (name, held)
        usage = {u['resource_class']: u['usage'] for u in st.osc_json(
            'admin', 'resource', 'provider', 'usage', 'show', uuid)}
        assert usage['MEMORY_MB'] == sum(
            a['resources'].get('MEMORY_MB', 0) for a in held.values())


def _bindings(st, server_id):
    """{port id: {host: status}} from Neutron's bindings API."""
    conn = _conn(st)
    result = {}
    for port in st.osc_json('admin', 'port', 'list', '--device-id',
                            server_id):
        resp = conn.network.get('/ports/%s/bindings' % port['ID'])
        assert resp.status_code == 200, resp.text
        result[port['ID']] = {b['host']: b['status']
                              for b in resp.json()['bindings']}
    assert result
    return result


def _assert_bound_only_to(st, server_id, host):
    """Every port bound to ``host`` alone (after a rollback, once the
    destination, told by a cast, has dropped its bindings)."""
    try:
        _wait(lambda: all(hosts == {host: 'ACTIVE'} for hosts in
                          _bindings(st, server_id).values()),
              'ports bound to %s only' % host, timeout=20)
    except AssertionError:
        raise AssertionError('ports of %s not bound to %s only: %s' % (
            server_id, host, _bindings(st, server_id)))


def _action_events(st, server_id, action):
    """{(event, result, host)} of the server's ``action``."""
    actions = st.osc_json('admin', 'server', 'event', 'list', server_id)
    requests = [a['Request ID'] for a in actions if a['Action'] == action]
    assert requests, actions
    return {(e['event'], e['result'], e['host'])
            for e in _events(st, server_id, requests[0])}


def _migrate(st, server_id, *args, check=True):
    return st.osc('admin', '--os-compute-api-version', '2.30', 'server',
                  'migrate', '--live-migration', *args, server_id,
                  check=check)


def _running(st, server_id):
    """The uuid of the server's live migration once it shows progress
    (the CLI's migration commands find a migration by uuid from 2.59)."""
    conn = _conn(st)

    def progressing():
        for m in conn.compute.server_migrations(server_id):
            if m.status == 'running' and m.memory_processed_bytes:
                return m.uuid
        return None
    return _wait(progressing, 'progress of the live migration')


def _delete(st, server_id):
    st.osc('admin', 'server', 'delete', '--wait', server_id)


def test_live_migrate_without_a_host(stack):
    server_id = _boot(stack, 'lm-any')
    _assert_placement(stack, server_id, SOURCE)
    _migrate(stack, server_id, '--wait')
    shown = _settled(stack, server_id)
    # compute3 refuses: the scheduler's other host takes it.
    assert shown['OS-EXT-SRV-ATTR:host'] == DEST
    _assert_placement(stack, server_id, DEST)
    _assert_bound_only_to(stack, server_id, DEST)
    events = _action_events(stack, server_id, 'live-migration')
    assert events >= {
        ('compute_check_can_live_migrate_destination', 'Success', DEST),
        ('compute_check_can_live_migrate_source', 'Success', SOURCE),
        ('compute_pre_live_migration', 'Success', DEST),
        ('compute_live_migration', 'Success', SOURCE),
        ('compute_post_live_migration_at_destination', 'Success', DEST),
    }, events
    assert ('conductor_live_migrate_instance', 'Success') in {
        e[:2] for e in events}, events
    # The scheduler may have tried compute3 first: its refusal is all.
    assert {e for e in events if e[1] != 'Success'} <= {
        ('compute_check_can_live_migrate_destination', 'Error',
         REFUSING)}, events
    _delete(stack, server_id)


def test_progress_then_force_complete_to_a_host(stack):
    server_id = _boot(stack, 'lm-force')
    _migrate(stack, server_id, '--host', DEST)
    migration_id = _running(stack, server_id)
    shown = stack.osc_json('admin', *MV, 'server', 'migration', 'show',
                           server_id, migration_id)
    assert shown['Status'] == 'running'
    assert (shown['Source Compute'], shown['Dest Compute']) == (SOURCE,
                                                                DEST)
    assert 0 < shown['Memory Processed Bytes'] < shown['Memory Total Bytes']
    assert shown['Memory Remaining Bytes'] == (
        shown['Memory Total Bytes'] - shown['Memory Processed Bytes'])
    assert shown['UUID'] == migration_id and shown['Project ID']
    # Meanwhile the destination holds an inactive binding.
    for hosts in _bindings(stack, server_id).values():
        assert hosts == {SOURCE: 'ACTIVE', DEST: 'INACTIVE'}
    assert _show(stack, server_id)['status'] == 'MIGRATING'
    stack.osc('admin', *MV, 'server', 'migration', 'force', 'complete',
              server_id, migration_id)
    # Well before the copy would have ended by itself.
    shown = _wait(lambda: (lambda s: s if s['OS-EXT-SRV-ATTR:host'] == DEST
                           and not s['OS-EXT-STS:task_state'] else None)(
        _show(stack, server_id)), 'the forced migration', LIVE_SECONDS / 2)
    assert shown['status'] == 'ACTIVE'
    _wait(lambda: not list(_conn(stack).compute.server_migrations(
        server_id)), 'the migration to end')
    _assert_placement(stack, server_id, DEST)
    _assert_bound_only_to(stack, server_id, DEST)
    assert _action_events(stack, server_id,
                          'live_migration_force_complete') == {
        ('compute_live_migration_force_complete', 'Success', SOURCE)}
    _delete(stack, server_id)


def test_abort(stack):
    server_id = _boot(stack, 'lm-abort')
    _migrate(stack, server_id)
    migration_id = _running(stack, server_id)
    stack.osc('admin', *MV, 'server', 'migration', 'abort', server_id,
              migration_id)
    shown = _settled(stack, server_id)
    assert shown['OS-EXT-SRV-ATTR:host'] == SOURCE
    _wait(lambda: not list(_conn(stack).compute.server_migrations(
        server_id)), 'the migration to end')
    gone = stack.osc('admin', *MV, 'server', 'migration', 'show', server_id,
                     migration_id, check=False)
    assert gone.returncode != 0
    _assert_placement(stack, server_id, SOURCE)
    _assert_bound_only_to(stack, server_id, SOURCE)
    assert _action_events(stack, server_id, 'live_migration_cancel') == {
        ('compute_live_migration_abort', 'Success', SOURCE)}
    events = _action_events(stack, server_id, 'live-migration')
    assert ('compute_rollback_live_migration_at_destination', 'Success',
            DEST) in events, events
    _delete(stack, server_id)


def test_refused_destination(stack):
    server_id = _boot(stack, 'lm-refused')
    refused = _migrate(stack, server_id, '--host', REFUSING, check=False)
    assert refused.returncode != 0
    assert 'No valid host' in refused.stderr, refused.stderr
    shown = _settled(stack, server_id)
    assert shown['OS-EXT-SRV-ATTR:host'] == SOURCE
    _assert_placement(stack, server_id, SOURCE)
    _assert_bound_only_to(stack, server_id, SOURCE)
    events = _action_events(stack, server_id, 'live-migration')
    assert ('compute_check_can_live_migrate_destination', 'Error',
            REFUSING) in events, events
    assert ('conductor_live_migrate_instance', 'Error') in {
        e[:2] for e in events}, events
    _delete(stack, server_id)
