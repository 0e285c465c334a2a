"""Scenario 4 (live migration) through the REST API of the in-process
cloud: migrate with and without a host, progress, abort, force-complete,
refusals; after each, Placement usage per provider, the port bindings per
host in Neutron and the instance actions' events."""

import contextlib
import time

import pytest

from tests.functional import fixtures

LIVE = '2.80'
TIMEOUT = 30
FLAVOR = 'm1.tiny'


@pytest.fixture
def lm_cloud(cloud_factory):
    return cloud_factory(computes=3)


@pytest.fixture
def api(lm_cloud):
    return lm_cloud.admin_api


def _placement(api, path, version='1.28'):
    return api.request('GET', path, base=api.cloud.urls['placement'],
                       headers={'OpenStack-API-Version':
                                'placement %s' % version},
                       expected=200).json()


def _usages_by_host(api):
    """{provider name: MEMORY_MB used} of every compute node."""
    providers = _placement(api, '/resource_providers')['resource_providers']
    return {rp['name']: _placement(
        api, '/resource_providers/%s/usages' % rp['uuid'])['usages'].get(
            'MEMORY_MB', 0) for rp in providers}


def _allocations(api, consumer):
    allocs = _placement(api, '/allocations/%s' % consumer)['allocations']
    return {rp: a['resources'] for rp, a in allocs.items()}


def _provider_names(api):
    providers = _placement(api, '/resource_providers')['resource_providers']
    return {rp['uuid']: rp['name'] for rp in providers}


def _bindings(api, server_id):
    """{port id: {host: status}} from Neutron's multiple bindings API."""
    result = {}
    for port in api.get_ports(device_id=server_id):
        resp = api.request('GET', '/v2.0/ports/%s/bindings' % port['id'],
                           base=api.cloud.urls['network'], expected=200)
        result[port['id']] = {b['host']: b['status']
                              for b in resp.json()['bindings']}
    return result


def _boot(api, lm_cloud, host=None):
    flavor = lm_cloud.flavor_ids.get(FLAVOR, lm_cloud.flavor_id)
    extra = {'availability_zone': 'nova:%s' % host} if host else {}
    server = api.create_server(flavor_id=flavor, **extra)
    return api.get_server(server['id'], microversion=LIVE)


def _host(server):
    return server['OS-EXT-SRV-ATTR:host']


def _migrate(api, server_id, host=None, microversion=LIVE, expected=202,
             **extra):
    body = {'host': host, 'block_migration': 'auto'}
    body.update(extra)
    return api.post('/servers/%s/action' % server_id,
                    {'os-migrateLive': body}, microversion=microversion,
                    expected=expected)


def _wait_for(predicate, what, timeout=TIMEOUT):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(fixtures.POLL)
    raise AssertionError('timed out waiting for %s' % what)


def _wait_settled(api, server_id):
    """The server back to ACTIVE with no task."""
    return _wait_for(
        lambda: (lambda s: s if s['status'] == 'ACTIVE' and
                 s['OS-EXT-STS:task_state'] is None else None)(
            api.get_server(server_id, microversion=LIVE)),
        'server %s to settle' % server_id)


def _live_migration(api, server_id):
    """The server's latest live migration, as os-instance-actions and
    the migration record tell (from the cell database)."""
    from nova_clone import context as nova_context
    from nova_clone import objects
    ctxt = nova_context.get_admin_context()
    mapping = objects.InstanceMapping.get_by_instance_uuid(ctxt, server_id)
    with nova_context.target_cell(ctxt, mapping.cell_mapping) as cctxt:
        migrations = objects.MigrationList.get_by_filters(
            cctxt, {'instance_uuid': server_id,
                    'migration_type': 'live-migration'})
    return migrations[0] if migrations else None


def _events(api, server_id, action):
    for item in api.get_instance_actions(server_id, microversion='2.84'):
        if item['action'] == action:
            details = api.get_instance_action_details(
                server_id, item['request_id'], microversion='2.84')
            return {e['event']: e['result'] for e in details['events']}
    return None


def _memory_of(api, server_id):
    server = api.get('/servers/%s' % server_id,
                     microversion='2.47').json()['server']
    return server['flavor']['ram']


def _assert_usage_only_on(api, server_id, host, servers_there=1):
    """Placement: the server's allocation on ``host`` only, and the
    providers' usage that of ``servers_there`` such servers on ``host``
    and nothing anywhere else (unless None: other servers are moving)."""
    usages = _usages_by_host(api)
    ram = _memory_of(api, server_id)
    names = _provider_names(api)
    assert {names[rp] for rp in _allocations(api, server_id)} == {host}
    if servers_there is None:
        return
    assert usages[host] == ram * servers_there, usages
    assert all(used == 0 for name, used in usages.items() if name != host), \
        usages


def _assert_bound_only_to(api, server_id, host):
    """Every port bound to ``host`` alone (after a rollback, once the
    destination, told by a cast, has dropped its bindings)."""
    def only_there():
        bindings = _bindings(api, server_id)
        return bindings if bindings and all(
            hosts == {host: 'ACTIVE'} for hosts in bindings.values()) \
            else None
    try:
        _wait_for(only_there, 'ports bound to %s only' % host, timeout=10)
    except AssertionError:
        raise AssertionError('ports of %s not bound to %s only: %s' % (
            server_id, host, _bindings(api, server_id)))


# -- success -----------------------------------------------------------------

def test_live_migrate_without_host(lm_cloud, api):
    server = _boot(api, lm_cloud)
    source = _host(server)
    _assert_usage_only_on(api, server['id'], source)
    _migrate(api, server['id'])
    moved = _wait_moved(api, server['id'], source)
    dest = _host(moved)
    assert moved['status'] == 'ACTIVE'
    assert moved['OS-EXT-SRV-ATTR:hypervisor_hostname'] == dest
    migration = _live_migration(api, server['id'])
    assert (migration.source_compute, migration.dest_compute) == (source,
                                                                  dest)
    # The migration's hold on the source is gone; the server's on dest.
    assert _allocations(api, migration.uuid) == {}
    _assert_usage_only_on(api, server['id'], dest)
    _assert_bound_only_to(api, server['id'], dest)
    assert _events(api, server['id'], 'live-migration') == {
        'conductor_live_migrate_instance': 'Success',
        'compute_check_can_live_migrate_destination': 'Success',
        'compute_check_can_live_migrate_source': 'Success',
        'compute_pre_live_migration': 'Success',
        'compute_live_migration': 'Success',
        'compute_post_live_migration_at_destination': 'Success',
    }
    # Nothing in progress any more; os-migrations keeps it.
    assert api.get('/servers/%s/migrations' % server['id'],
                   microversion=LIVE).json() == {'migrations': []}
    listed, = api.get('/os-migrations', params={'instance_uuid': server['id']},
                      microversion=LIVE).json()['migrations']
    assert (listed['migration_type'], listed['status'],
            listed['uuid']) == ('live-migration', 'completed',
                                migration.uuid)


def _wait_moved(api, server_id, source):
    """The server on another host, its migration completed."""
    _wait_for(lambda: (lambda m: m and m.status == 'completed')(
        _live_migration(api, server_id)), 'the migration to complete')
    server = api.get_server(server_id, microversion=LIVE)
    assert _host(server) != source
    assert server['OS-EXT-STS:task_state'] is None
    return server


def _other_host(lm_cloud, *hosts):
    return [h for h in lm_cloud.compute_hosts if h not in hosts][0]


@pytest.mark.parametrize('microversion,extra', [
    ('2.80', {}),                                   # scheduler, one host
    ('2.30', {'force': True}),                      # forced
    ('2.24', {'block_migration': False,             # forced (legacy)
              'disk_over_commit': False}),
])
def test_live_migrate_to_a_given_host(lm_cloud, api, microversion, extra):
    server = _boot(api, lm_cloud)
    source = _host(server)
    dest = _other_host(lm_cloud, source)
    _migrate(api, server['id'], host=dest, microversion=microversion,
             **extra)
    moved = _wait_moved(api, server['id'], source)
    assert _host(moved) == dest
    _assert_usage_only_on(api, server['id'], dest)
    _assert_bound_only_to(api, server['id'], dest)
    assert _events(api, server['id'], 'live-migration')[
        'compute_post_live_migration_at_destination'] == 'Success'


def _running_migration(api, server_id):
    """The server's in-progress live migration once it reports copy
    progress."""
    def progressing():
        migrations = api.get('/servers/%s/migrations' % server_id,
                             microversion=LIVE).json()['migrations']
        for m in migrations:
            if m['status'] == 'running' and m['memory_processed_bytes']:
                return m
        return None
    return _wait_for(progressing, 'progress of a live migration')


@contextlib.contextmanager
def _slow_migration(lm_cloud, api):
    """(server, its source, its running migration) of a server whose
    live migration would take a minute."""
    server = _boot(api, lm_cloud)
    with lm_cloud.flags(group='fake_driver', live_migration_seconds=60):
        _migrate(api, server['id'])
        yield server, _host(server), _running_migration(api, server['id'])


def test_progress_and_force_complete(lm_cloud, api):
    with _slow_migration(lm_cloud, api) as (server, source, running):
        assert api.get_server(server['id'])['status'] == 'MIGRATING'
        one = api.get('/servers/%s/migrations/%s' % (
            server['id'], running['id']), microversion=LIVE).json()[
                'migration']
        assert set(one) == {
            'created_at', 'dest_compute', 'dest_host', 'dest_node',
            'disk_processed_bytes', 'disk_remaining_bytes',
            'disk_total_bytes', 'id', 'memory_processed_bytes',
            'memory_remaining_bytes', 'memory_total_bytes', 'server_uuid',
            'source_compute', 'source_node', 'status', 'updated_at',
            'uuid', 'user_id', 'project_id'}
        assert one['source_compute'] == source
        assert one['server_uuid'] == server['id']
        assert one['memory_total_bytes'] == (
            _memory_of(api, server['id']) * 1024 * 1024)
        assert (one['memory_processed_bytes'] +
                one['memory_remaining_bytes'] == one['memory_total_bytes'])
        # The fields each microversion adds.
        older = api.get('/servers/%s/migrations/%s' % (
            server['id'], running['id']), microversion='2.23').json()[
                'migration']
        assert 'uuid' not in older and 'user_id' not in older
        assert 'uuid' in api.get('/servers/%s/migrations/%s' % (
            server['id'], running['id']), microversion='2.59').json()[
                'migration']
        api.post('/servers/%s/migrations/%s/action' % (
            server['id'], running['id']), {'force_complete': None},
            microversion='2.22', expected=202)
        moved = _wait_moved(api, server['id'], source)
    dest = _host(moved)
    assert dest == running['dest_compute']
    _assert_usage_only_on(api, server['id'], dest)
    _assert_bound_only_to(api, server['id'], dest)
    assert _events(api, server['id'], 'live_migration_force_complete') == {
        'compute_live_migration_force_complete': 'Success'}
    # A migration that is over can be neither forced nor shown.
    done = running['id']
    api.post('/servers/%s/migrations/%s/action' % (server['id'], done),
             {'force_complete': None}, microversion=LIVE, expected=409)
    api.get('/servers/%s/migrations/%s' % (server['id'], done),
            microversion=LIVE, expected=404)


def _rolled_back_at_destination(api, server_id):
    """The destination's rollback (a cast) reported success."""
    api.wait_for_instance_action_event(
        server_id, 'live-migration',
        'compute_rollback_live_migration_at_destination', 'Success')


def _assert_back_on_source(api, server_id, source, status,
                           servers_there=1):
    server = _wait_settled(api, server_id)
    assert _host(server) == source
    migration = _wait_for(
        lambda: (lambda m: m if m.status == status else None)(
            _live_migration(api, server_id)),
        'the migration to end %s' % status)
    # The allocation moves back last (Placement may be away).
    _wait_for(lambda: _allocations(api, migration.uuid) == {},
              'the migration to give its allocation back')
    _assert_usage_only_on(api, server_id, source, servers_there)
    _assert_bound_only_to(api, server_id, source)
    return migration


def test_abort_a_running_live_migration(lm_cloud, api):
    with _slow_migration(lm_cloud, api) as (server, source, running):
        # The destination holds inactive bindings meanwhile.
        for hosts in _bindings(api, server['id']).values():
            assert hosts == {source: 'ACTIVE',
                             running['dest_compute']: 'INACTIVE'}
        api.delete('/servers/%s/migrations/%s' % (server['id'],
                                                  running['id']),
                   microversion='2.24', expected=202)
        _assert_back_on_source(api, server['id'], source, 'cancelled')
    assert _events(api, server['id'], 'live_migration_cancel') == {
        'compute_live_migration_abort': 'Success'}
    _rolled_back_at_destination(api, server['id'])
    # Nothing left to abort: the server is not migrating any more.
    api.delete('/servers/%s/migrations/%s' % (server['id'], running['id']),
               microversion=LIVE, expected=409)


def test_queued_live_migration_waits_and_can_be_aborted_from_2_65(
        lm_cloud, api):
    source = lm_cloud.compute_hosts[0]
    first = _boot(api, lm_cloud, host=source)
    second = _boot(api, lm_cloud, host=source)
    with lm_cloud.flags(group='fake_driver', live_migration_seconds=60):
        _migrate(api, first['id'])
        running = _running_migration(api, first['id'])
        _migrate(api, second['id'])
        queued = _wait_for(
            lambda: [m for m in api.get(
                '/servers/%s/migrations' % second['id'],
                microversion=LIVE).json()['migrations']
                if m['status'] == 'queued'],
            'the second migration to queue')[0]
        resp = api.delete('/servers/%s/migrations/%s' % (second['id'],
                                                         queued['id']),
                          microversion='2.64', expected=400)
        assert 'queued' in resp.json()['badRequest']['message']
        api.delete('/servers/%s/migrations/%s' % (second['id'],
                                                  queued['id']),
                   microversion='2.65', expected=202)
        # (The first one still holds its destination meanwhile.)
        migration = _assert_back_on_source(api, second['id'], source,
                                           'cancelled', servers_there=None)
        # It never reached the destination.
        assert _events(api, second['id'], 'live-migration').get(
            'compute_pre_live_migration') is None
        assert migration.memory_total is None
        api.delete('/servers/%s/migrations/%s' % (first['id'],
                                                  running['id']),
                   microversion=LIVE, expected=202)
        _assert_back_on_source(api, first['id'], source, 'cancelled',
                               servers_there=2)


def test_source_compute_restarted_mid_migration(lm_cloud, api):
    with _slow_migration(lm_cloud, api) as (server, source, running):
        lm_cloud.stop_compute(source)
        lm_cloud.start_compute(source)
        _assert_back_on_source(api, server['id'], source, 'error')
    # The guest is still there: the server runs.
    assert api.get_server(server['id'])['OS-EXT-STS:power_state'] == 1


def test_copy_failure_rolls_back(lm_cloud, api):
    server = _boot(api, lm_cloud)
    source = _host(server)
    with lm_cloud.flags(group='fake_driver', fail_live_migration=[source]):
        _migrate(api, server['id'])
        _assert_back_on_source(api, server['id'], source, 'error')
    _rolled_back_at_destination(api, server['id'])


def test_failed_binding_in_neutron_rolls_back(lm_cloud, api):
    server = _boot(api, lm_cloud)
    source = _host(server)
    dest = _other_host(lm_cloud, source)
    # A binding already on the destination makes Neutron refuse the
    # migration's own (409 PortBindingAlreadyExists).
    for port in api.get_ports(device_id=server['id']):
        api.request('POST', '/v2.0/ports/%s/bindings' % port['id'],
                    base=api.cloud.urls['network'],
                    body={'binding': {'host': dest}}, expected=201)
    _migrate(api, server['id'], host=dest)
    _assert_back_on_source(api, server['id'], source, 'error')
    _rolled_back_at_destination(api, server['id'])
    events = _events(api, server['id'], 'live-migration')
    assert events['compute_pre_live_migration'] == 'Error'


# -- refusals ---------------------------------------------------------------

def test_refused_given_host_before_2_34_is_the_requests_400(lm_cloud, api):
    server = _boot(api, lm_cloud)
    source = _host(server)
    dest = _other_host(lm_cloud, source)
    with lm_cloud.flags(group='fake_driver', refuse_live_migration=[dest]):
        # Forced: the destination's own refusal.
        resp = _migrate(api, server['id'], host=dest, microversion='2.30',
                        force=True, expected=400)
        assert 'Lack of memory' in resp.json()['badRequest']['message']
        migration = _assert_back_on_source(api, server['id'], source,
                                           'error')
        # Through the scheduler: no host left once it refused.
        resp = _migrate(api, server['id'], host=dest, microversion='2.30',
                        expected=400)
        assert 'No valid host' in resp.json()['badRequest']['message']
        _assert_back_on_source(api, server['id'], source, 'error')
    assert migration.dest_compute == dest
    assert _events(api, server['id'], 'live-migration')[
        'conductor_live_migrate_instance'] == 'Error'


def test_refused_given_host_from_2_34_ends_the_migration_in_error(
        lm_cloud, api):
    server = _boot(api, lm_cloud)
    source = _host(server)
    dest = _other_host(lm_cloud, source)
    with lm_cloud.flags(group='fake_driver', refuse_live_migration=[dest]):
        _migrate(api, server['id'], host=dest)
        _assert_back_on_source(api, server['id'], source, 'error')
    assert _events(api, server['id'], 'live-migration') == {
        'conductor_live_migrate_instance': 'Error',
        'compute_check_can_live_migrate_destination': 'Error'}


def test_refusing_host_is_passed_over_without_a_given_host(lm_cloud, api):
    server = _boot(api, lm_cloud)
    source = _host(server)
    refusing = _other_host(lm_cloud, source)
    taking = _other_host(lm_cloud, source, refusing)
    with lm_cloud.flags(group='fake_driver',
                        refuse_live_migration=[refusing]):
        _migrate(api, server['id'])
        moved = _wait_moved(api, server['id'], source)
    assert _host(moved) == taking
    _assert_usage_only_on(api, server['id'], taking)
    _assert_bound_only_to(api, server['id'], taking)


@pytest.mark.parametrize('extra', [{'force': True}, {}])
def test_source_host_as_destination_is_refused(lm_cloud, api, extra):
    server = _boot(api, lm_cloud)
    source = _host(server)
    _migrate(api, server['id'], host=source, microversion='2.30',
             expected=400, **extra)
    server = _wait_settled(api, server['id'])
    assert _host(server) == source
    _assert_usage_only_on(api, server['id'], source)


def test_unknown_host_and_bad_requests(lm_cloud, api):
    server = _boot(api, lm_cloud)
    resp = _migrate(api, server['id'], host='no-such-host', expected=400)
    assert 'no-such-host' in resp.json()['badRequest']['message']
    # force needs a host; disk_over_commit is gone from 2.25.
    _migrate(api, server['id'], microversion='2.30', force=True,
             expected=400)
    _migrate(api, server['id'], microversion='2.25',
             disk_over_commit=False, expected=400)
    _migrate(api, server['id'], microversion='2.68', force=True,
             expected=400)
    api.post('/servers/%s/action' % server['id'],
             {'os-migrateLive': {'host': None}}, microversion=LIVE,
             expected=400)
    server = _wait_settled(api, server['id'])
    # No migration to force or abort.
    api.post('/servers/%s/migrations/4242/action' % server['id'],
             {'force_complete': None}, microversion=LIVE, expected=409)
    api.delete('/servers/%s/migrations/4242' % server['id'],
               microversion=LIVE, expected=409)
    api.get('/servers/%s/migrations/4242' % server['id'],
            microversion=LIVE, expected=404)
    # Admin only.
    lm_cloud.demo_api.post('/servers/%s/action' % server['id'],
                           {'os-migrateLive': {'host': None,
                                               'block_migration': 'auto'}},
                           microversion=LIVE, expected=(403, 404))
