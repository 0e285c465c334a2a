"""More responses checked against Nova's api_samples (keys and types)."""

import pytest

from tests.functional.api import apifixture as af
from tests.functional.api import cellrecords
from tests.functional.api import samples
from tests.functional.api import test_keypairs

SERVER_FREE = ('server.metadata', 'servers[].metadata', 'server.addresses',
               'servers[].addresses', 'server.flavor.extra_specs',
               'servers[].flavor.extra_specs', 'server.scheduler_hints',
               'servers[].scheduler_hints', 'server.image.properties',
               'servers[].image.properties', 'servers[].fault',
               'server.fault')


@pytest.fixture(scope='module')
def world(bed):
    af.install_compute_api(bed)
    admin = bed.client(user='admin', project=af.ADMIN_PROJECT)
    admin.post('/flavors', {'flavor': {'name': 'm1.tiny', 'ram': 512,
                                       'vcpus': 1, 'disk': 1, 'id': '1'}})
    service, node = cellrecords.add_compute(bed, 'sample-host')
    demo = bed.client()
    inst, _action, rid = cellrecords.add_instance(
        bed, demo.project, demo.user, host='sample-host')
    for i in range(2):
        demo.post('/servers', {'server': {
            'name': 'sample-%d' % i, 'imageRef': af.IMAGE_ID,
            'flavorRef': '1', 'networks': 'none'}}, version='2.37')
    yield {'node': node, 'service': service, 'instance': inst}
    from nova_clone.api.controllers import servers
    servers.set_compute_api(None)


@pytest.mark.parametrize('version', ['2.16', '2.19', '2.100'])
def test_server_details_list(world, bed, version):
    admin = bed.client(user='admin', project=af.ADMIN_PROJECT)
    path = 'servers/v%s/servers-details-resp.json' % version
    reply = admin.get('/servers/detail?all_tenants=1&limit=1',
                      version=version)
    assert reply.status == 200
    if version == '2.100':
        reply = bed.client().get('/servers/detail?limit=1',
                                 version=version)
    samples.assert_matches(path, reply.body, free=SERVER_FREE)


def test_server_update_full_view(world, bed):
    demo = bed.client()
    server_id = world['instance'].uuid
    for version in ('2.96', '2.98', '2.100'):
        reply = demo.put('/servers/%s' % server_id,
                         {'server': {'name': 'renamed'}}, version=version)
        assert reply.status == 200
        samples.assert_matches(
            'servers/v%s/server-update-resp.json' % version, reply.body,
            free=SERVER_FREE)


@pytest.mark.parametrize('version,sample', [
    ('2.19', 'servers/v2.19/server-put-resp.json'),
    ('2.47', 'servers/v2.47/server-update-resp.json'),
    ('2.63', 'servers/v2.63/server-update-resp.json'),
    ('2.71', 'servers/v2.71/server-update-resp.json'),
    ('2.73', 'servers/v2.73/server-update-resp.json'),
])
def test_server_update_short_view(world, bed, version, sample):
    """Before 2.75 PUT answers with the short view, which still carries
    each microversion's own fields (locked, description, tags...), for a
    server in a cell and for one still a build request."""
    demo = bed.client()
    building = demo.get('/servers?status=BUILD').body['servers'][0]['id']
    for server_id in (world['instance'].uuid, building):
        reply = demo.put('/servers/%s' % server_id,
                         {'server': {'name': 'renamed'}}, version=version)
        assert reply.status == 200, reply.body
        samples.assert_matches(sample, reply.body, free=SERVER_FREE)


@pytest.mark.parametrize('version,sample', [
    ('2.10', 'os-keypairs/v2.10/keypairs-import-post-resp.json'),
    ('2.92', 'os-keypairs/v2.92/keypairs-import-post-resp.json'),
])
def test_keypair_import(world, bed, version, sample):
    user = bed.client(user='kp-sample-%s' % version.replace('.', ''))
    reply = user.post('/os-keypairs', {'keypair': {
        'name': 'kp', 'public_key': test_keypairs.PUBLIC_KEY}},
        version=version)
    assert reply.status == 201
    samples.assert_matches(sample, reply.body)
    shown = user.get('/os-keypairs/kp', version=version)
    if version == '2.10':
        samples.assert_matches('os-keypairs/v2.10/keypairs-get-resp.json',
                               shown.body)
        listed = user.get('/os-keypairs', version=version)
        samples.assert_matches('os-keypairs/v2.10/keypairs-list-resp.json',
                               listed.body)


def test_keypair_list_235(world, bed):
    user = bed.client(user='kp-sample-235')
    for name in ('a', 'b'):
        user.post('/os-keypairs', {'keypair': {
            'name': name, 'public_key': test_keypairs.PUBLIC_KEY}},
            version='2.35')
    reply = user.get('/os-keypairs?limit=1', version='2.35')
    samples.assert_matches('os-keypairs/v2.35/keypairs-list-resp.json',
                           reply.body)


def test_hypervisor_lists(world, admin):
    node = world['node']
    reply = admin.get('/os-hypervisors?limit=1', version='2.53')
    samples.assert_matches('os-hypervisors/v2.53/hypervisors-list-resp.json',
                           reply.body)
    shown = admin.get('/os-hypervisors/%s?with_servers=1' % node.uuid,
                      version='2.53')
    samples.assert_matches(
        'os-hypervisors/v2.53/hypervisors-show-with-servers-resp.json',
        shown.body, free=('hypervisor.cpu_info',))
    shown = admin.get('/os-hypervisors/%s?with_servers=1' % node.uuid,
                      version='2.88')
    samples.assert_matches(
        'os-hypervisors/v2.88/hypervisors-show-with-servers-resp.json',
        shown.body)
    stats = admin.get('/os-hypervisors/statistics')
    samples.assert_matches('os-hypervisors/hypervisors-statistics-resp.json',
                           stats.body)
    listed = admin.get('/os-hypervisors')
    samples.assert_matches('os-hypervisors/hypervisors-list-resp.json',
                           listed.body)


def test_service_force_down_and_enable(world, admin):
    service = world['service']
    reply = admin.put('/os-services/%s' % service.uuid,
                      {'forced_down': True}, version='2.53')
    samples.assert_matches(
        'os-services/v2.53/service-force-down-put-resp.json', reply.body)
    reply = admin.put('/os-services/%s' % service.uuid,
                      {'forced_down': False, 'status': 'enabled'},
                      version='2.53')
    samples.assert_matches('os-services/v2.53/service-enable-put-resp.json',
                           reply.body)
    reply = admin.put('/os-services/enable', {
        'host': 'sample-host', 'binary': 'nova-compute'})
    samples.assert_matches('os-services/service-enable-put-resp.json',
                           reply.body)


def test_instance_action_versions(world, bed, admin):
    inst = world['instance']
    demo = bed.client()
    for version, sample in (
            ('2.1', 'os-instance-actions/instance-actions-list-resp.json'),
            ('2.21', 'os-instance-actions/v2.21/instance-actions-list-'
                     'resp.json'),
            ('2.62', 'os-instance-actions/v2.62/instance-actions-list-'
                     'resp.json')):
        reply = demo.get('/servers/%s/os-instance-actions' % inst.uuid,
                         version=version)
        samples.assert_matches(sample, reply.body)
    rid = demo.get('/servers/%s/os-instance-actions' % inst.uuid).body[
        'instanceActions'][0]['request_id']
    for version, sample in (
            ('2.1', 'os-instance-actions/instance-action-get-resp.json'),
            ('2.51', 'os-instance-actions/v2.51/instance-action-get-'
                     'resp.json'),
            ('2.62', 'os-instance-actions/v2.62/instance-action-get-'
                     'resp.json')):
        reply = admin.get('/servers/%s/os-instance-actions/%s'
                          % (inst.uuid, rid), version=version)
        samples.assert_matches(sample, reply.body)


def test_system_metadata_shows_from_its_microversions(world, bed):
    """locked_reason (2.73) and the image's properties (2.98) come from
    system metadata, in the detail list as in show; older microversions
    show neither."""
    demo = bed.client(user='sysmeta-user', project='5e5a')
    inst, _action, _rid = cellrecords.add_instance(
        bed, demo.project, demo.user, name='sysmeta')
    inst.system_metadata = {'image_architecture': 'x86_64',
                            'image_disk_format': 'raw',
                            'locked_reason': 'maintenance'}
    inst.locked = True
    inst.save()
    for version in ('2.72', '2.73', '2.98'):
        listed = demo.get('/servers/detail', version=version)
        assert listed.status == 200
        [server] = listed.body['servers']
        shown = demo.get('/servers/%s' % inst.uuid, version=version)
        shown.body['server'].pop('server_groups', None)  # show only
        assert shown.body['server'] == server
        if version < '2.73':
            assert 'locked_reason' not in server
        else:
            assert server['locked_reason'] == 'maintenance'
        if version < '2.98':
            assert 'properties' not in server['image']
        else:
            # disk_format is not one of the properties a user sees.
            assert server['image']['properties'] == {
                'architecture': 'x86_64'}
