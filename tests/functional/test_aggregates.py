"""Host aggregates and availability zones through the REST API of the
in-process cloud (2 computes): the answers against Nova's samples, the
Placement aggregates mirroring them, zones made of them, booting into a
zone, and the scheduler's aggregate request filters and filter.
"""

import contextlib
import time
import uuid

import pytest

from nova_clone.placement import client as report
from tests.functional.api import samples


def _name(prefix='agg'):
    return '%s-%s' % (prefix, uuid.uuid4().hex[:6])


@pytest.fixture
def aggregates(admin_api):
    """Aggregates made by a test, emptied and deleted after it."""
    made = []

    def make(name=None, zone=None, hosts=(), metadata=None,
             microversion=None):
        body = {'name': name or _name()}
        if zone:
            body['availability_zone'] = zone
        agg = admin_api.post('/os-aggregates', {'aggregate': body},
                             expected=200,
                             microversion=microversion).json()['aggregate']
        made.append(agg['id'])
        for host in hosts:
            _action(admin_api, agg['id'], 'add_host', {'host': host})
        if metadata:
            _action(admin_api, agg['id'], 'set_metadata',
                    {'metadata': metadata})
        return agg
    yield make
    for agg_id in made:
        resp = admin_api.request('GET', '/os-aggregates/%s' % agg_id)
        if resp.status_code != 200:
            continue
        for host in resp.json()['aggregate']['hosts']:
            _action(admin_api, agg_id, 'remove_host', {'host': host})
        admin_api.delete('/os-aggregates/%s' % agg_id, expected=200)


def _action(api, agg_id, name, body, expected=200, **kw):
    return api.post('/os-aggregates/%s/action' % agg_id, {name: body},
                    expected=expected, **kw)


def _provider_aggregates(host):
    client = report.SchedulerReportClient()
    rp = client.get('/resource_providers?name=%s' % host,
                    version='1.14').json()['resource_providers'][0]
    return set(client.get('/resource_providers/%s/aggregates' % rp['uuid'],
                          version='1.19').json()['aggregates'])


def _boot(cloud, api, wait_for='ACTIVE', **extra):
    return api.create_server(wait_for=wait_for, **extra)


@pytest.mark.parametrize('version,folder', [('2.1', ''), ('2.81', 'v2.81/')])
def test_crud_matches_samples(cloud, admin_api, aggregates, version,
                              folder):
    host = cloud.compute_hosts[0]
    created = aggregates(zone=_name('london'), microversion=version)
    samples.assert_matches('os-aggregates/%saggregate-post-resp.json'
                           % folder, {'aggregate': created})
    path = '/os-aggregates/%s' % created['id']
    added = _action(admin_api, created['id'], 'add_host', {'host': host},
                    microversion=version).json()
    samples.assert_matches('os-aggregates/%saggregates-add-host-post-resp'
                           '.json' % folder, added)
    assert added['aggregate']['hosts'] == [host]
    with_meta = _action(admin_api, created['id'], 'set_metadata',
                        {'metadata': {'key': 'value'}},
                        microversion=version).json()
    samples.assert_matches('os-aggregates/%saggregates-metadata-post-resp'
                           '.json' % folder, with_meta,
                           free=('aggregate.metadata',))
    assert with_meta['aggregate']['metadata']['key'] == 'value'
    shown = admin_api.get(path, microversion=version).json()
    samples.assert_matches('os-aggregates/%saggregates-get-resp.json'
                           % folder, shown, free=('aggregate.metadata',))
    listed = admin_api.get('/os-aggregates', microversion=version).json()
    assert created['id'] in [a['id'] for a in listed['aggregates']]
    samples.assert_matches('os-aggregates/%saggregates-list-get-resp.json'
                           % folder, listed,
                           free=('aggregates[].metadata',))
    removed = _action(admin_api, created['id'], 'remove_host',
                      {'host': host}, microversion=version).json()
    samples.assert_matches('os-aggregates/%saggregates-remove-host-post-'
                           'resp.json' % folder, removed,
                           free=('aggregate.metadata',))
    new_name = _name('renamed')
    updated = admin_api.put(path, {'aggregate': {
        'name': new_name, 'availability_zone': _name('nova2')}},
        expected=200, microversion=version).json()
    samples.assert_matches('os-aggregates/%saggregate-update-post-resp.json'
                           % folder, updated, free=('aggregate.metadata',))
    assert updated['aggregate']['name'] == new_name
    # A key set to null goes away.
    cleared = _action(admin_api, created['id'], 'set_metadata',
                      {'metadata': {'key': None}}).json()
    assert 'key' not in cleared['aggregate']['metadata']


def test_errors(cloud, admin_api, demo_api, aggregates):
    host = cloud.compute_hosts[0]
    agg = aggregates()
    admin_api.post('/os-aggregates', {'aggregate': {'name': agg['name']}},
                   expected=409)
    admin_api.post('/os-aggregates', {'aggregate': {}}, expected=400)
    admin_api.post('/os-aggregates', {'aggregate': {
        'name': 'x', 'availability_zone': ''}}, expected=400)
    admin_api.get('/os-aggregates/987654', expected=404)
    admin_api.get('/os-aggregates/abc', expected=400)
    _action(admin_api, agg['id'], 'add_host', {'host': 'no-such-host'},
            expected=404)
    _action(admin_api, agg['id'], 'add_host', {'host': host})
    _action(admin_api, agg['id'], 'add_host', {'host': host}, expected=409)
    _action(admin_api, agg['id'], 'remove_host',
            {'host': cloud.compute_hosts[1]}, expected=404)
    _action(admin_api, agg['id'], 'no_such_action', {}, expected=400)
    # Not empty: no delete.
    admin_api.delete('/os-aggregates/%s' % agg['id'], expected=400)
    # Administrators only.
    demo_api.get('/os-aggregates', expected=403)
    demo_api.post('/os-aggregates', {'aggregate': {'name': 'x'}},
                  expected=403)


def test_host_in_two_zones_is_refused(cloud, admin_api, aggregates):
    host = cloud.compute_hosts[0]
    aggregates(zone=_name('az'), hosts=[host])
    other = aggregates(zone=_name('az'))
    resp = _action(admin_api, other['id'], 'add_host', {'host': host},
                   expected=409)
    assert 'already in availability zone' in resp.text
    # An aggregate with no zone takes it.
    plain = aggregates()
    _action(admin_api, plain['id'], 'add_host', {'host': host})


def test_zone_with_servers_cannot_be_renamed(cloud, admin_api, aggregates):
    host = cloud.compute_hosts[0]
    zone = _name('az')
    agg = aggregates(zone=zone, hosts=[host])
    server = _boot(cloud, admin_api, availability_zone=zone)
    path = '/os-aggregates/%s' % agg['id']
    for resp in (
            admin_api.put(path, {'aggregate': {
                'availability_zone': 'new-' + zone}}, expected=400),
            _action(admin_api, agg['id'], 'set_metadata', {'metadata': {
                'availability_zone': 'new-' + zone}}, expected=400)):
        assert ('One or more hosts contain instances in this zone' in
                resp.json()['badRequest']['message'])
    # The same name, other metadata and the name of the aggregate are fine.
    admin_api.put(path, {'aggregate': {'availability_zone': zone,
                                       'name': _name()}}, expected=200)
    _action(admin_api, agg['id'], 'set_metadata',
            {'metadata': {'foo': 'bar'}})
    assert admin_api.get(path).json()['aggregate'][
        'availability_zone'] == zone
    admin_api.delete_server_and_wait(server['id'])
    renamed = admin_api.put(path, {'aggregate': {
        'availability_zone': 'new-' + zone}}, expected=200)
    assert renamed.json()['aggregate']['availability_zone'] == 'new-' + zone


def test_hosts_mirrored_to_placement_aggregates(cloud, admin_api,
                                                aggregates):
    host = cloud.compute_hosts[1]
    agg = aggregates(microversion='2.41')
    assert agg['uuid'] not in _provider_aggregates(host)
    _action(admin_api, agg['id'], 'add_host', {'host': host})
    assert agg['uuid'] in _provider_aggregates(host)
    _action(admin_api, agg['id'], 'remove_host', {'host': host})
    assert agg['uuid'] not in _provider_aggregates(host)


def _zones(api, detail=False):
    path = '/os-availability-zone' + ('/detail' if detail else '')
    return {z['zoneName']: z for z in api.get(path).json()[
        'availabilityZoneInfo']}


def test_zone_boot_and_listing(cloud, admin_api, demo_api, aggregates):
    zoned, other = cloud.compute_hosts
    zone = _name('az')
    aggregates(zone=zone, hosts=[zoned])
    zones = _zones(demo_api)
    assert zones[zone]['zoneState'] == {'available': True}
    assert 'nova' in zones
    samples.assert_matches('os-availability-zone/availability-zone-list-'
                           'resp.json', demo_api.get(
                               '/os-availability-zone').json())
    detail = _zones(admin_api, detail=True)
    assert list(detail[zone]['hosts']) == [zoned]
    assert other in detail['nova']['hosts']
    services = admin_api.get('/os-services?binary=nova-compute').json()[
        'services']
    assert {s['host']: s['zone'] for s in services}[zoned] == zone
    for _ in range(2):
        server = _boot(cloud, demo_api, availability_zone=zone)
        shown = admin_api.get_server(server['id'])
        assert shown['OS-EXT-SRV-ATTR:host'] == zoned
        assert server['OS-EXT-AZ:availability_zone'] == zone
    # Without a zone asked for, a server still shows its host's zone.
    server = _boot(cloud, admin_api)
    expected = zone if server['OS-EXT-SRV-ATTR:host'] == zoned else 'nova'
    assert server['OS-EXT-AZ:availability_zone'] == expected
    resp = demo_api.post('/servers', {'server': {
        'name': 'x', 'flavorRef': cloud.flavor_id,
        'imageRef': cloud.image_id, 'availability_zone': 'no-such-zone',
        'networks': [{'uuid': cloud.network_id}]}}, expected=400)
    assert 'The requested availability zone is not available' in resp.text


def test_forced_host_for_admins(cloud, admin_api, demo_api):
    host = cloud.compute_hosts[1]
    server = _boot(cloud, admin_api, availability_zone='nova:%s' % host)
    assert server['OS-EXT-SRV-ATTR:host'] == host
    demo_api.post('/servers', {'server': {
        'name': 'x', 'flavorRef': cloud.flavor_id,
        'imageRef': cloud.image_id, 'availability_zone': 'nova:%s' % host,
        'networks': [{'uuid': cloud.network_id}]}}, expected=403)


def test_tenant_isolation_request_filter(cloud, admin_api, demo_api,
                                         aggregates):
    target = cloud.compute_hosts[1]
    aggregates(hosts=[target],
               metadata={'filter_tenant_id': demo_api.project_id})
    with cloud.flags(group='scheduler',
                     limit_tenants_to_placement_aggregate=True):
        hosts = {_boot(cloud, demo_api)['id'] for _ in range(2)}
        hosts = {admin_api.get_server(s)['OS-EXT-SRV-ATTR:host']
                 for s in hosts}
    assert hosts == {target}
    with cloud.flags(group='scheduler',
                     limit_tenants_to_placement_aggregate=True,
                     placement_aggregate_required_for_tenants=True):
        failed = _boot(cloud, admin_api, wait_for='ERROR')
    assert 'No valid host' in failed['fault']['message']


def test_isolated_aggregates_request_filter(cloud, admin_api, aggregates):
    isolated = cloud.compute_hosts[0]
    aggregates(hosts=[isolated],
               metadata={'trait:CUSTOM_GROUPS_ISOLATED': 'required'})
    with cloud.flags(group='scheduler',
                     enable_isolated_aggregate_filtering=True):
        hosts = {_boot(cloud, admin_api)['OS-EXT-SRV-ATTR:host']
                 for _ in range(2)}
    assert isolated not in hosts


@contextlib.contextmanager
def _extra_filter(cloud, flt):
    scheduler = [svc.manager for svc in cloud.cloud.services
                 if hasattr(svc.manager, 'host_manager')][0]
    kept = scheduler.filters
    scheduler.filters = kept + [flt]
    try:
        yield
    finally:
        scheduler.filters = kept


def test_aggregate_instance_extra_specs_filter(cloud, admin_api,
                                               aggregates):
    from nova_clone.scheduler.filters import aggregate_instance_extra_specs
    target = cloud.compute_hosts[1]
    aggregates(hosts=[target], metadata={'ssd': 'true'})
    flavor = admin_api.post('/flavors', {'flavor': {
        'name': _name('ssd'), 'ram': 64, 'vcpus': 1, 'disk': 1}},
        expected=200).json()['flavor']
    admin_api.post('/flavors/%s/os-extra_specs' % flavor['id'],
                   {'extra_specs': {
                       'aggregate_instance_extra_specs:ssd': 'true'}},
                   expected=200)
    try:
        with _extra_filter(cloud, aggregate_instance_extra_specs.
                           AggregateInstanceExtraSpecsFilter()):
            hosts = {_boot(cloud, admin_api, flavor_id=flavor['id'])[
                'OS-EXT-SRV-ATTR:host'] for _ in range(2)}
    finally:
        cloud.cleanup_servers()
        admin_api.delete('/flavors/%s' % flavor['id'], expected=202)
    assert hosts == {target}


def _upload_image(cloud, api):
    base = cloud.urls['image']
    image = api.request('POST', '/v2/images', {
        'name': _name('precache'), 'disk_format': 'raw',
        'container_format': 'bare', 'visibility': 'public'},
        base=base, expected=201).json()
    api.request('PUT', '/v2/images/%s/file' % image['id'], base=base,
                data=b'precache-me' * 100, expected=204,
                headers={'Content-Type': 'application/octet-stream'})
    return image['id']


def test_image_precache_reaches_the_hosts(cloud, admin_api, aggregates):
    host = cloud.compute_hosts[0]
    image_id = _upload_image(cloud, admin_api)
    cache = cloud.compute_service(host).manager.driver.image_cache
    assert not cache.is_cached(image_id)
    agg = aggregates(hosts=[host])
    path = '/os-aggregates/%s/images' % agg['id']
    body = {'cache': [{'id': image_id}]}
    admin_api.post(path, body, expected=404, microversion='2.80')
    admin_api.post(path, body, expected=202, microversion='2.81')
    deadline = time.monotonic() + 30
    while not cache.is_cached(image_id) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert cache.is_cached(image_id)
    admin_api.post(path, {'cache': [{'id': image_id}, {'id': image_id}]},
                   expected=400, microversion='2.81')
    admin_api.post(path, {'cache': [{'id': str(uuid.uuid4())}]},
                   expected=400, microversion='2.81')
    admin_api.post(path, {'cache': []}, expected=400, microversion='2.81')
    admin_api.post('/os-aggregates/987654/images', body, expected=404,
                   microversion='2.81')



def test_moves_keep_the_zone_asked_for(cloud, admin_api, aggregates):
    """A server booted into a zone of one host has nowhere to move: cold
    and live migrations find no valid host and leave it where it is,
    although the other host is free (it goes there once the request
    spec forgets the zone)."""
    zoned, other = cloud.compute_hosts
    zone = _name('az')
    aggregates(zone=zone, hosts=[zoned])
    server = _boot(cloud, admin_api, availability_zone=zone)
    assert server['OS-EXT-SRV-ATTR:host'] == zoned
    admin_api.post('/servers/%s/action' % server['id'], {'migrate': None},
                   expected=202)
    migration = admin_api.wait_for_migration_status(server['id'], ['error'])
    assert migration['dest_compute'] is None
    stayed = admin_api.wait_for_state(server['id'], 'ACTIVE',
                                      task_state=None)
    assert stayed['OS-EXT-SRV-ATTR:host'] == zoned
    # Before 2.34 the live migration's host check answers the request.
    resp = admin_api.post('/servers/%s/action' % server['id'], {
        'os-migrateLive': {'host': None, 'block_migration': 'auto'}},
        expected=400, microversion='2.25')
    assert 'No valid host' in resp.json()['badRequest']['message']
    stayed = admin_api.wait_for_state(server['id'], 'ACTIVE',
                                      task_state=None)
    assert (stayed['OS-EXT-SRV-ATTR:host'],
            stayed['OS-EXT-AZ:availability_zone']) == (zoned, zone)
    admin_api.delete_server_and_wait(server['id'])
