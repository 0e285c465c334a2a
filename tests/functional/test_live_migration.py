"""Scenario 4 (live migration) through the REST API of the in-process
cloud: migrate with and without a host, progress, abort, force-complete,
refusals; after each, Placement usage per provider, the port bindings per
host in Neutron and the instance actions' events."""

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


def _boot(api, lm_cloud):
    flavor = lm_cloud.flavor_ids.get(FLAVOR, lm_cloud.flavor_id)
    server = api.create_server(flavor_id=flavor)
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


def _assert_usage_only_on(api, server_id, host):
    """Placement: the server's memory counted once, on ``host``."""
    usages = _usages_by_host(api)
    ram = _memory_of(api, server_id)
    names = _provider_names(api)
    assert {names[rp] for rp in _allocations(api, server_id)} == {host}
    assert usages[host] == ram, usages
    assert all(used == 0 for name, used in usages.items() if name != host), \
        usages


def _assert_bound_only_to(api, server_id, host):
    bindings = _bindings(api, server_id)
    assert bindings
    for port_id, hosts in bindings.items():
        assert hosts == {host: 'ACTIVE'}, (port_id, hosts)


# -- success -----------------------------------------------------------------

def test_live_migrate_without_host(lm_cloud, api):
    server = _boot(api, lm_cloud)
    source = _host(server)
    _assert_usage_only_on(api, server['id'], source)
    _migrate(api, server['id'])
    moved = _wait_for(
        lambda: (lambda s: s if _host(s) != source and
                 s['OS-EXT-STS:task_state'] is None else None)(
            api.get_server(server['id'], microversion=LIVE)),
        'the server to move')
    dest = _host(moved)
    assert moved['status'] == 'ACTIVE'
    assert moved['OS-EXT-SRV-ATTR:hypervisor_hostname'] == dest
    migration = _wait_for(
        lambda: (lambda m: m if m.status == 'completed' else None)(
            _live_migration(api, server['id'])), 'the migration to end')
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
    # Nothing in progress any more.
    assert api.get('/servers/%s/migrations' % server['id'],
                   microversion=LIVE).json() == {'migrations': []}
