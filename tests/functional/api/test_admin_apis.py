"""os-services, os-hypervisors, os-availability-zone, instance actions and
external events against records in a cell database."""

import uuid

import pytest

from tests.functional.api import apifixture as af
from tests.functional.api import cellrecords
from tests.functional.api import samples

HV_FREE = ('hypervisors[].cpu_info', 'hypervisor.cpu_info')


@pytest.fixture(scope='module')
def cloud(bed):
    af.install_compute_api(bed)
    computes = [cellrecords.add_compute(bed, 'host1'),
                cellrecords.add_compute(bed, 'host2')]
    cellrecords.add_service(bed, 'ctl', 'nova-scheduler', 'scheduler')
    demo = bed.client()
    inst, action, request_id = cellrecords.add_instance(
        bed, demo.project, demo.user, host='host1', name='vm-on-host1')
    yield {'computes': computes, 'instance': inst, 'request_id': request_id}
    from nova_clone.api.controllers import servers
    servers.set_compute_api(None)


# -- os-services --------------------------------------------------------

@pytest.mark.parametrize('version,sample', [
    ('2.1', 'os-services/services-list-get-resp.json'),
    ('2.11', 'os-services/v2.11/services-list-get-resp.json'),
    ('2.53', 'os-services/v2.53/services-list-get-resp.json'),
])
def test_services_list(cloud, admin, version, sample):
    reply = admin.get('/os-services', version=version)
    assert reply.status == 200
    hosts = {(s['host'], s['binary']) for s in reply.body['services']}
    assert ('host1', 'nova-compute') in hosts
    assert ('ctl', 'nova-scheduler') in hosts
    compute = [s for s in reply.body['services']
               if s['host'] == 'host1'][0]
    assert compute['state'] == 'up'
    assert compute['status'] == 'enabled'
    assert compute['zone'] == 'nova'
    samples.assert_matches(sample, reply.body)


def test_services_filters_and_policy(cloud, admin, demo):
    reply = admin.get('/os-services?binary=nova-scheduler')
    assert [s['host'] for s in reply.body['services']] == ['ctl']
    reply = admin.get('/os-services?host=host2')
    assert [s['binary'] for s in reply.body['services']] == ['nova-compute']
    assert demo.get('/os-services').status == 403


def test_service_disable_enable_v253(cloud, bed, admin):
    service = cloud['computes'][1][0]
    del bed.compute_rpc.casts[:]
    reply = admin.put('/os-services/%s' % service.uuid, {
        'status': 'disabled', 'disabled_reason': 'maintenance'},
        version='2.53')
    assert reply.status == 200, reply
    assert reply.body['service']['status'] == 'disabled'
    assert reply.body['service']['disabled_reason'] == 'maintenance'
    samples.assert_matches(
        'os-services/v2.53/service-disable-log-put-resp.json',
        reply.body)
    reply = admin.put('/os-services/%s' % service.uuid, {
        'status': 'enabled'}, version='2.53')
    assert reply.body['service']['status'] == 'enabled'
    assert reply.body['service']['disabled_reason'] is None
    # Each change of status told the (up) compute, for its trait.
    assert [(c[0], c[1][1:]) for c in bed.compute_rpc.casts] == [
        ('set_host_enabled', (service.host, False)),
        ('set_host_enabled', (service.host, True))]
    reply = admin.put('/os-services/%s' % service.uuid, {
        'forced_down': True}, version='2.53')
    assert reply.body['service']['forced_down'] is True
    assert reply.body['service']['state'] == 'down'
    admin.put('/os-services/%s' % service.uuid, {'forced_down': False},
              version='2.53')
    empty = admin.put('/os-services/%s' % service.uuid, {}, version='2.53')
    assert empty.status == 400
    bad = admin.put('/os-services/%s' % service.uuid, {
        'status': 'enabled', 'disabled_reason': 'x'}, version='2.53')
    assert bad.status == 400
    missing = admin.put('/os-services/%s' % uuid.uuid4(), {
        'status': 'enabled'}, version='2.53')
    assert missing.status == 404


def test_service_update_legacy(cloud, admin):
    reply = admin.put('/os-services/disable-log-reason', {
        'host': 'host2', 'binary': 'nova-compute',
        'disabled_reason': 'test2'})
    assert reply.status == 200
    samples.assert_matches('os-services/service-disable-log-put-resp.json',
                           reply.body)
    reply = admin.put('/os-services/enable', {
        'host': 'host2', 'binary': 'nova-compute'})
    assert reply.body['service']['status'] == 'enabled'
    reply = admin.put('/os-services/enable', {
        'host': 'nohost', 'binary': 'nova-compute'})
    assert reply.status == 404
    reply = admin.put('/os-services/force-down', {
        'host': 'host2', 'binary': 'nova-compute', 'forced_down': False},
        version='2.11')
    assert reply.body == {'service': {'host': 'host2',
                                      'binary': 'nova-compute',
                                      'forced_down': False}}


def test_service_delete(cloud, bed, admin):
    service, _node = cellrecords.add_compute(bed, 'doomed')
    busy = cloud['computes'][0][0]
    reply = admin.delete('/os-services/%s' % busy.uuid, version='2.53')
    assert reply.status == 409
    assert admin.delete('/os-services/not-a-uuid',
                        version='2.53').status == 400
    reply = admin.delete('/os-services/%s' % service.uuid, version='2.53')
    assert reply.status == 204
    hosts = [s['host'] for s in admin.get('/os-services').body['services']]
    assert 'doomed' not in hosts
    hyps = admin.get('/os-hypervisors').body['hypervisors']
    assert 'doomed' not in [h['hypervisor_hostname'] for h in hyps]


# -- os-hypervisors -----------------------------------------------------

@pytest.mark.parametrize('version,folder', [
    ('2.1', 'os-hypervisors'), ('2.28', 'os-hypervisors/v2.28'),
    ('2.53', 'os-hypervisors/v2.53'), ('2.88', 'os-hypervisors/v2.88')])
def test_hypervisor_views(cloud, admin, version, folder):
    detail = admin.get('/os-hypervisors/detail', version=version)
    assert detail.status == 200
    names = [h['hypervisor_hostname'] for h in detail.body['hypervisors']]
    assert 'host1' in names and 'host2' in names
    body = dict(detail.body)
    if version >= '2.53':
        body = admin.get('/os-hypervisors/detail?limit=1',
                         version=version).body
    samples.assert_matches(folder + '/hypervisors-detail-resp.json',
                           body, free=HV_FREE)
    node_id = detail.body['hypervisors'][0]['id']
    shown = admin.get('/os-hypervisors/%s' % node_id, version=version)
    assert shown.status == 200
    samples.assert_matches(folder + '/hypervisors-show-resp.json',
                           shown.body, free=HV_FREE)


def test_hypervisor_ids_and_removed_calls(cloud, admin, demo):
    node = cloud['computes'][0][1]
    assert admin.get('/os-hypervisors/%s' % node.uuid,
                     version='2.53').status == 200
    assert admin.get('/os-hypervisors/%s' % node.id,
                     version='2.53').status == 400
    assert admin.get('/os-hypervisors/%s' % node.id).status == 200
    stats = admin.get('/os-hypervisors/statistics', version='2.87')
    assert stats.body['hypervisor_statistics']['count'] >= 2
    assert admin.get('/os-hypervisors/statistics',
                     version='2.88').status == 404
    assert admin.get('/os-hypervisors/host1/search').body[
        'hypervisors'][0]['hypervisor_hostname'] == 'host1'
    assert admin.get('/os-hypervisors/host1/search',
                     version='2.53').status == 404
    assert demo.get('/os-hypervisors').status == 403
    with_servers = admin.get(
        '/os-hypervisors/%s?with_servers=true' % node.uuid, version='2.53')
    assert [s['uuid'] for s in with_servers.body['hypervisor'][
        'servers']] == [cloud['instance'].uuid]
    page = admin.get('/os-hypervisors?limit=1', version='2.53')
    assert len(page.body['hypervisors']) == 1
    assert 'hypervisors_links' in page.body


# -- availability zones -------------------------------------------------

def test_availability_zones(cloud, admin, demo):
    reply = demo.get('/os-availability-zone')
    assert reply.status == 200
    assert reply.body == {'availabilityZoneInfo': [
        {'zoneName': 'nova', 'zoneState': {'available': True},
         'hosts': None}]}
    detail = admin.get('/os-availability-zone/detail')
    zones = {z['zoneName']: z for z in detail.body['availabilityZoneInfo']}
    assert 'host1' in zones['nova']['hosts']
    assert zones['internal']['hosts']['ctl']['nova-scheduler'][
        'available'] is True
    samples.assert_matches(
        'os-availability-zone/availability-zone-list-resp.json',
        reply.body)
    assert demo.get('/os-availability-zone/detail').status == 403


# -- instance actions ---------------------------------------------------

def test_instance_actions(cloud, demo, admin, bed):
    inst = cloud['instance']
    listed = demo.get('/servers/%s/os-instance-actions' % inst.uuid,
                      version='2.58')
    assert listed.status == 200
    actions = listed.body['instanceActions']
    assert [a['action'] for a in actions] == ['create']
    samples.assert_matches(
        'os-instance-actions/v2.58/instance-actions-list-resp.json',
        listed.body)
    rid = cloud['request_id']
    user_view = demo.get('/servers/%s/os-instance-actions/%s'
                         % (inst.uuid, rid), version='2.84')
    assert user_view.status == 200
    event = user_view.body['instanceAction']['events'][0]
    assert event['event'] == 'compute__do_build_and_run_instance'
    assert 'traceback' not in event and 'host' not in event
    assert event['hostId']
    samples.assert_matches(
        'os-instance-actions/v2.84/instance-action-get-non-admin-'
        'resp.json', user_view.body)
    admin_view = admin.get('/servers/%s/os-instance-actions/%s'
                           % (inst.uuid, rid), version='2.84')
    event = admin_view.body['instanceAction']['events'][0]
    assert event['host'] == 'host1'
    assert 'traceback' in event and 'details' in event
    samples.assert_matches(
        'os-instance-actions/v2.84/instance-action-get-resp.json',
        admin_view.body)
    old_user = demo.get('/servers/%s/os-instance-actions/%s'
                        % (inst.uuid, rid), version='2.50')
    assert 'events' not in old_user.body['instanceAction']
    missing = demo.get('/servers/%s/os-instance-actions/req-nope'
                       % inst.uuid)
    assert missing.status == 404
    stranger = bed.client(user='x', project='99ff')
    assert stranger.get('/servers/%s/os-instance-actions'
                        % inst.uuid).status == 404


# -- external events ----------------------------------------------------

def test_external_events(cloud, bed, admin, demo):
    inst = cloud['instance']
    body = {'events': [{'name': 'network-vif-plugged',
                        'server_uuid': inst.uuid, 'tag': 'port-1',
                        'status': 'completed'}]}
    assert demo.post('/os-server-external-events', body).status == 403
    reply = admin.post('/os-server-external-events', body)
    assert reply.status == 200, reply
    assert reply.body['events'][0]['code'] == 200
    samples.assert_matches(
        'os-server-external-events/event-create-resp.json', reply.body)
    cast = bed.compute_rpc.casts[-1]
    assert cast[0] == 'external_instance_event' and cast[1] == 'host1'
    assert cast[2] == [inst.uuid]

    service = bed.client(user='neutron', project='5e7c', roles=['service'])
    mixed = service.post('/os-server-external-events', {'events': [
        {'name': 'network-changed', 'server_uuid': inst.uuid},
        {'name': 'network-changed', 'server_uuid': str(uuid.uuid4())},
        {'name': 'volume-extended', 'server_uuid': inst.uuid},
    ]}, version='2.51')
    assert mixed.status == 207
    assert [e['code'] for e in mixed.body['events']] == [200, 404, 400]
    assert mixed.body['events'][1]['status'] == 'failed'

    none = admin.post('/os-server-external-events', {'events': [
        {'name': 'network-changed', 'server_uuid': str(uuid.uuid4())}]})
    assert none.status == 404
    bad_name = admin.post('/os-server-external-events', {'events': [
        {'name': 'power-update', 'server_uuid': inst.uuid,
         'tag': 'POWER_ON'}]}, version='2.75')
    assert bad_name.status == 400
    assert admin.post('/os-server-external-events',
                      {'events': []}).status == 400


def test_external_event_for_unscheduled_server_is_422(cloud, bed, admin):
    demo = bed.client()
    admin.post('/flavors', {'flavor': {'name': 'ev', 'ram': 64, 'vcpus': 1,
                                       'disk': 1, 'id': 'ev'}})
    created = demo.post('/servers', {'server': {
        'name': 'pending', 'imageRef': af.IMAGE_ID, 'flavorRef': 'ev',
        'networks': 'none'}}, version='2.37')
    assert created.status == 202
    reply = admin.post('/os-server-external-events', {'events': [
        {'name': 'network-changed',
         'server_uuid': created.body['server']['id']},
        {'name': 'network-changed', 'server_uuid': cloud['instance'].uuid},
    ]})
    assert reply.status == 207
    assert [e['code'] for e in reply.body['events']] == [422, 200]


def test_servers_in_cells_show_active(cloud, demo):
    inst = cloud['instance']
    reply = demo.get('/servers/%s' % inst.uuid, version='latest')
    assert reply.status == 200, reply
    server = reply.body['server']
    assert server['status'] == 'ACTIVE'
    assert server['hostId']
    assert 'OS-EXT-SRV-ATTR:host' not in server
    listed = demo.get('/servers/detail', version='latest')
    assert inst.uuid in [s['id'] for s in listed.body['servers']]
    limits = demo.get('/limits').body['limits']['absolute']
    assert limits['totalCoresUsed'] >= 1
    assert limits['totalRAMUsed'] >= 512
    meta = demo.post('/servers/%s/metadata' % inst.uuid,
                     {'metadata': {'a': '1'}})
    assert meta.status == 200, meta
    assert meta.body == {'metadata': {'a': '1'}}
    assert demo.put('/servers/%s/metadata/b' % inst.uuid,
                    {'meta': {'b': '2'}}).body == {'meta': {'b': '2'}}
    assert demo.get('/servers/%s/metadata' % inst.uuid).body == {
        'metadata': {'a': '1', 'b': '2'}}
    assert demo.delete('/servers/%s/metadata/a' % inst.uuid).status == 204
    assert demo.put('/servers/%s/metadata' % inst.uuid,
                    {'metadata': {'c': '3'}}).body == {
        'metadata': {'c': '3'}}
    assert demo.put('/servers/%s/metadata/c' % inst.uuid,
                    {'meta': {'d': '3'}}).status == 400


# -- server tags (2.26) -------------------------------------------------

def test_server_tags(cloud, demo):
    base = '/servers/%s/tags' % cloud['instance'].uuid
    v = '2.26'
    assert demo.get(base, version='2.25').status == 404
    assert demo.get(base, version=v).body == {'tags': []}
    added = demo.put(base + '/red', version=v)
    assert added.status == 201
    assert added.headers['Location'].endswith(base + '/red')
    assert demo.put(base + '/red', version=v).status == 204
    assert demo.get(base + '/red', version=v).status == 204
    missing = demo.get(base + '/blue', version=v)
    assert missing.status == 404
    replaced = demo.put(base, {'tags': ['a', 'b']}, version=v)
    assert replaced.status == 200
    assert sorted(replaced.body['tags']) == ['a', 'b']
    server = demo.get('/servers/%s' % cloud['instance'].uuid,
                      version=v).body['server']
    assert sorted(server['tags']) == ['a', 'b']
    assert demo.delete(base + '/a', version=v).status == 204
    assert demo.delete(base + '/a', version=v).status == 404
    assert demo.put(base, {'tags': ['x/y']}, version=v).status == 400
    assert demo.put(base, {'tags': ['t%d' % i for i in range(51)]},
                    version=v).status == 400
    assert demo.delete(base, version=v).status == 204
    assert demo.get(base, version=v).body == {'tags': []}


# -- ERROR servers carry their fault ------------------------------------

def test_error_server_shows_fault(cloud, bed, admin):
    from nova_clone import objects
    demo = bed.client()
    inst, _action, _rid = cellrecords.add_instance(bed, demo.project,
                                                   demo.user, name='broken')
    ctx = cellrecords.cell_context(bed)
    inst = objects.Instance.get_by_uuid(ctx, inst.uuid)
    inst.vm_state = 'error'
    inst.save()
    objects.InstanceFault(context=ctx, instance_uuid=inst.uuid, code=500,
                          message='No valid host was found. ',
                          details='Traceback: boom', host=None).create()
    user_view = demo.get('/servers/%s' % inst.uuid).body['server']
    assert user_view['status'] == 'ERROR'
    assert user_view['fault']['code'] == 500
    assert user_view['fault']['message'] == 'No valid host was found. '
    assert user_view['fault']['created'].endswith('Z')
    assert 'details' not in user_view['fault']
    admin_view = admin.get('/servers/%s' % inst.uuid).body['server']
    assert admin_view['fault']['details'] == 'Traceback: boom'
    assert 'progress' not in admin_view
    listed = demo.get('/servers/detail?status=ERROR').body['servers']
    assert [s['id'] for s in listed] == [inst.uuid]


def test_cores_quota_message(cloud, bed, admin):
    client = bed.client(user='cq', project='66ab')
    admin.post('/flavors', {'flavor': {'name': 'big', 'ram': 64,
                                       'vcpus': 4, 'disk': 1,
                                       'id': 'big'}})
    assert admin.put('/os-quota-sets/66ab', {
        'quota_set': {'cores': 2}}).status == 200
    reply = client.post('/servers', {'server': {
        'name': 'x', 'imageRef': af.IMAGE_ID, 'flavorRef': 'big',
        'networks': 'none'}}, version='2.37')
    assert reply.status == 403
    assert reply.body['forbidden']['message'] == (
        'Quota exceeded for cores: Requested 4, but already used 0 of 2 '
        'cores')


def test_server_buried_in_cell0(cloud, bed, admin):
    """cell0 has no message queue; its servers still show, list their
    actions, refuse tags and external events cleanly."""
    demo = bed.client()
    inst, _action, rid = cellrecords.add_instance(
        bed, demo.project, demo.user, name='buried', cell=bed.cell0)
    shown = demo.get('/servers/%s' % inst.uuid)
    assert shown.status == 200, shown
    actions = demo.get('/servers/%s/os-instance-actions' % inst.uuid)
    assert actions.status == 200, actions
    assert actions.body['instanceActions'][0]['request_id'] == rid
    detail = admin.get('/servers/%s/os-instance-actions/%s'
                       % (inst.uuid, rid), version='2.84')
    assert detail.status == 200
    assert demo.get('/servers/%s/tags' % inst.uuid,
                    version='2.26').status == 200
    reply = admin.post('/os-server-external-events', {'events': [
        {'name': 'network-changed', 'server_uuid': inst.uuid},
        {'name': 'network-changed', 'server_uuid': cloud['instance'].uuid}]})
    assert reply.status == 207
    assert [e['code'] for e in reply.body['events']] == [422, 200]
    assert admin.get('/os-services').status == 200
    assert demo.get('/limits').status == 200


def test_host_status_follows_the_compute_service(cloud, admin):
    inst = cloud['instance']
    service = cloud['computes'][0][0]

    def status():
        show = admin.get('/servers/%s' % inst.uuid, version='2.16')
        listed = admin.get('/servers/detail?all_tenants=1',
                           version='2.16').body['servers']
        in_list = [s['host_status'] for s in listed if s['id'] == inst.uuid]
        assert in_list == [show.body['server']['host_status']]
        return in_list[0]

    assert status() == 'UP'
    admin.put('/os-services/%s' % service.uuid, {'status': 'disabled'},
              version='2.53')
    assert status() == 'MAINTENANCE'
    admin.put('/os-services/%s' % service.uuid, {'status': 'enabled',
                                                  'forced_down': True},
              version='2.53')
    assert status() == 'DOWN'
    admin.put('/os-services/%s' % service.uuid, {'forced_down': False},
              version='2.53')
    assert status() == 'UP'
