"""/servers up to the build request: create (202), show/list while the
server is still BUILD, update, delete, and every 4xx the API owes."""

import base64
import uuid

import pytest

from tests.functional.api import apifixture as af
from tests.functional.api import cellrecords
from tests.functional.api import samples

FREE = ('server.metadata', 'servers[].metadata', 'server.addresses',
        'servers[].addresses', 'server.flavor.extra_specs',
        'servers[].flavor.extra_specs', 'server.scheduler_hints',
        'servers[].scheduler_hints', 'server.image.properties',
        'servers[].image.properties')


@pytest.fixture(scope='module')
def compute(bed):
    api = af.install_compute_api(bed)
    admin = bed.client(user='admin', project=af.ADMIN_PROJECT)
    assert admin.post('/flavors', {'flavor': {
        'name': 'm1.tiny', 'ram': 512, 'vcpus': 1, 'disk': 1,
        'id': '1'}}).status == 200
    yield api
    from nova_clone.api.controllers import servers
    servers.set_compute_api(None)


def _boot(client, version='2.37', **server):
    body = {'server': dict({'name': 'vm', 'imageRef': af.IMAGE_ID,
                            'flavorRef': '1', 'networks': 'none'},
                           **server)}
    if version and version < '2.37' and body['server']['networks'] == \
            'none':
        del body['server']['networks']
    return client.post('/servers', body, version=version)


def test_create_answers_202_with_password_and_location(compute, bed, demo):
    before = len(bed.task_api.casts)
    reply = _boot(demo)
    assert reply.status == 202, reply
    server = reply.body['server']
    assert len(server['adminPass']) >= 8
    assert reply.headers['Location'] == server['links'][0]['href']
    assert server['security_groups'] == [{'name': 'default'}]
    if samples.available():
        samples.assert_matches('servers/server-create-resp.json',
                               reply.body)
    assert len(bed.task_api.casts) == before + 1
    name, kwargs = bed.task_api.casts[-1]
    assert name == 'schedule_and_build_instances'
    assert kwargs['build_requests'][0].instance_uuid == server['id']
    shown = demo.get('/servers/%s' % server['id'], version='latest')
    assert shown.status == 200
    assert shown.body['server']['status'] == 'BUILD'
    assert shown.body['server']['OS-EXT-STS:vm_state'] == 'building'
    assert shown.body['server']['OS-EXT-STS:task_state'] == 'scheduling'


@pytest.mark.parametrize('version,sample', [
    ('2.1', 'servers/server-get-resp.json'),
    ('2.3', 'servers/v2.3/server-get-resp.json'),
    ('2.9', 'servers/v2.9/server-get-resp.json'),
    ('2.16', 'servers/v2.16/server-get-resp.json'),
    ('2.19', 'servers/v2.19/server-get-resp.json'),
    ('2.47', 'servers/v2.47/server-get-resp.json'),
    ('2.63', 'servers/v2.63/server-get-resp.json'),
    ('2.71', 'servers/v2.71/server-get-resp.json'),
    ('2.73', 'servers/v2.73/server-get-resp.json'),
])
def test_admin_show_matches_samples(compute, admin, version, sample):
    server_id = _boot(admin).body['server']['id']
    reply = admin.get('/servers/%s' % server_id, version=version)
    assert reply.status == 200
    samples.assert_matches(sample, reply.body, free=FREE)


@pytest.mark.parametrize('version,sample', [
    ('2.96', 'servers/v2.96/server-get-resp.json'),
    ('2.98', 'servers/v2.98/server-get-resp.json'),
    ('2.100', 'servers/v2.100/server-get-resp.json'),
])
def test_user_show_matches_samples(compute, demo, version, sample):
    server_id = _boot(demo).body['server']['id']
    reply = demo.get('/servers/%s' % server_id, version=version)
    samples.assert_matches(sample, reply.body, free=FREE)
    # Host attributes stay hidden from project users.
    assert 'OS-EXT-SRV-ATTR:host' not in reply.body['server']
    assert 'OS-EXT-SRV-ATTR:hostname' in reply.body['server']


def test_list_and_detail(compute, bed):
    client = bed.client(user='lister', project='11aa')
    ids = [_boot(client, name='list-%d' % i).body['server']['id']
           for i in range(3)]
    listed = client.get('/servers')
    assert sorted(s['id'] for s in listed.body['servers']) == sorted(ids)
    if samples.available():
        samples.assert_matches('servers/servers-list-resp.json',
                               client.get('/servers?limit=1').body)
    page = client.get('/servers?limit=2')
    assert len(page.body['servers']) == 2
    assert 'servers_links' in page.body
    marker = page.body['servers'][-1]['id']
    rest = client.get('/servers?marker=%s' % marker)
    assert len(rest.body['servers']) == 1
    detail = client.get('/servers/detail', version='2.47')
    assert {s['status'] for s in detail.body['servers']} == {'BUILD'}
    by_status = client.get('/servers?status=ACTIVE')
    assert by_status.body['servers'] == []
    by_name = client.get('/servers?name=list-1')
    assert [s['name'] for s in by_name.body['servers']] == ['list-1']
    assert client.get('/servers?status=NOPE', version='2.38').status == 400
    assert client.get('/servers?status=NOPE',
                      version='2.37').body == {'servers': []}
    assert client.get('/servers?marker=%s' % af.IMAGE_ID).status == 400
    assert client.get('/servers?sort_key=bogus').status == 400
    assert client.get('/servers?bogus=1', version='2.102').status == 400
    assert client.get('/servers?bogus=1', version='2.101').status == 200


def test_projects_are_isolated(compute, bed, admin):
    owner = bed.client(user='owner', project='22bb')
    stranger = bed.client(user='stranger', project='33cc')
    server_id = _boot(owner).body['server']['id']
    for method in ('get', 'delete'):
        reply = getattr(stranger, method)('/servers/%s' % server_id)
        assert reply.status == 404
        assert reply.body['itemNotFound']['message'] == \
            'Instance %s could not be found.' % server_id
    reply = stranger.put('/servers/%s' % server_id,
                         {'server': {'name': 'x'}})
    assert reply.status == 404
    assert server_id not in [s['id'] for s in
                             stranger.get('/servers').body['servers']]
    assert stranger.get('/servers?all_tenants=1').status == 403
    everyone = admin.get('/servers?all_tenants=1').body['servers']
    assert server_id in [s['id'] for s in everyone]
    assert admin.get('/servers/%s' % server_id).status == 200


def test_update(compute, demo):
    server_id = _boot(demo, name='before').body['server']['id']
    reply = demo.put('/servers/%s' % server_id,
                     {'server': {'name': 'after'}})
    assert reply.status == 200
    assert reply.body['server']['name'] == 'after'
    if samples.available():
        samples.assert_matches('servers/server-update-resp.json',
                               reply.body, free=FREE)
    reply = demo.put('/servers/%s' % server_id, {
        'server': {'description': 'desc', 'hostname': 'new-host'}},
        version='2.90')
    assert reply.status == 200
    assert reply.body['server']['description'] == 'desc'
    assert reply.body['server']['OS-EXT-SRV-ATTR:hostname'] == 'new-host'
    assert demo.put('/servers/%s' % server_id, {
        'server': {'description': 'x'}}, version='2.18').status == 400
    assert demo.put('/servers/%s' % server_id, {
        'server': {'bogus': 'x'}}).status == 400
    assert demo.get('/servers/%s' % server_id).body['server']['name'] == \
        'after'


def test_delete_while_building(compute, demo):
    server_id = _boot(demo).body['server']['id']
    reply = demo.delete('/servers/%s' % server_id)
    assert reply.status == 204
    assert reply.text == ''
    assert demo.get('/servers/%s' % server_id).status == 404
    assert demo.delete('/servers/%s' % server_id).status == 404


@pytest.fixture(scope='module')
def building(compute, bed):
    """An admin's server still in its build request (the demo project's
    quota is for the other tests)."""
    admin = bed.client(user='admin', project=af.ADMIN_PROJECT)
    server_id = _boot(admin).body['server']['id']
    yield server_id
    admin.delete('/servers/%s' % server_id)


def _lock(compute, server_id):
    from nova_clone import context as nova_context
    ctx = nova_context.get_admin_context()
    compute.update_instance(ctx, compute.get(ctx, server_id),
                            {'locked': True})


def test_a_locked_server_is_deleted_only_by_an_admin(compute, demo, admin):
    server_id = _boot(demo).body['server']['id']
    _lock(compute, server_id)
    reply = demo.delete('/servers/%s' % server_id)
    assert reply.status == 409
    assert reply.body == {'conflictingRequest': {
        'code': 409, 'message': 'Instance %s is locked' % server_id}}
    assert demo.get('/servers/%s' % server_id).status == 200
    assert admin.delete('/servers/%s' % server_id).status == 204


@pytest.mark.parametrize('method,path,body,action', [
    ('post', '/metadata', {'metadata': {'a': 'b'}}, 'update metadata'),
    ('put', '/metadata', {'metadata': {'a': 'b'}}, 'update metadata'),
    ('put', '/metadata/a', {'meta': {'a': 'b'}}, 'update metadata'),
    ('put', '/tags/t1', None, 'update tag'),
    ('put', '/tags', {'tags': ['t1']}, 'update tags'),
    ('delete', '/tags/t1', None, 'delete tag'),
    ('delete', '/tags', None, 'delete tags'),
])
def test_building_server_refuses_changes_with_nova_409(building, admin,
                                                       method, path, body,
                                                       action):
    server_id = building
    args = (body,) if body is not None else ()
    reply = getattr(admin, method)('/servers/%s%s' % (server_id, path),
                                  *args, version='2.26')
    assert reply.status == 409
    assert reply.body == {'conflictingRequest': {
        'code': 409,
        'message': "Cannot '%s' instance %s while it is in vm_state "
                   "building" % (action, server_id)}}


def test_server_in_a_cell_follows_the_precondition_table(compute, bed,
                                                         admin):
    user = bed.client(user='precond-user', project='7c7c')
    inst, _action, _rid = cellrecords.add_instance(bed, user.project,
                                                   user.user)
    url = '/servers/%s' % inst.uuid
    assert user.post(url + '/metadata', {'metadata': {'a': '1'}}).status \
        == 200
    assert user.put(url + '/tags/t1', version='2.26').status == 201

    inst.vm_state = 'error'
    inst.save()
    reply = user.post(url + '/metadata', {'metadata': {'a': '2'}})
    assert (reply.status, reply.body['conflictingRequest']['message']) == (
        409, "Cannot 'update metadata' instance %s while it is in "
             "vm_state error" % inst.uuid)
    reply = user.delete(url + '/metadata/a')
    assert (reply.status, reply.body['conflictingRequest']['message']) == (
        409, "Cannot 'delete metadata' instance %s while it is in "
             "vm_state error" % inst.uuid)

    inst.vm_state = 'active'
    inst.locked = True
    inst.save()
    reply = user.post(url + '/metadata', {'metadata': {'a': '2'}})
    assert (reply.status, reply.body['conflictingRequest']['message']) == (
        409, 'Instance %s is locked' % inst.uuid)
    # Tags ignore the lock; an admin passes it.
    assert user.put(url + '/tags/t2', version='2.26').status == 201
    assert admin.post(url + '/metadata', {'metadata': {'a': '2'}}).body == \
        {'metadata': {'a': '2'}}


@pytest.mark.parametrize('server,version,status,fragment', [
    ({'flavorRef': 'nope'}, '2.37', 400, 'Invalid flavorRef provided.'),
    ({'imageRef': 'not-a-uuid'}, '2.37', 400, 'imageRef'),
    ({'imageRef': '00000000-0000-0000-0000-000000000001'}, '2.37', 400,
     'Can not find requested image'),
    ({'networks': None}, '2.37', 400, 'networks'),
    ({'networks': [{'uuid': 'bad'}]}, '2.37', 400,
     'Bad networks format: network uuid is not in proper format (bad)'),
    ({'networks': [{'uuid': '00000000-0000-0000-0000-000000000002'}]},
     '2.37', 400, 'could not be found'),
    ({'user_data': '!!!'}, '2.37', 400, 'user_data'),
    ({'min_count': 3, 'max_count': 2}, '2.37', 400,
     'min_count must be <= max_count'),
    ({'key_name': 'no-such-key'}, '2.37', 400,
     'Invalid key_name provided.'),
    ({'description': 'x'}, '2.18', 400, 'description'),
    ({'tags': ['a']}, '2.51', 400, 'tags'),
    ({'hostname': 'h1'}, '2.89', 400, 'hostname'),
    ({'name': ''}, '2.37', 400, 'name'),
    ({'bogus': 1}, '2.37', 400, 'Additional properties'),
])
def test_create_errors(compute, demo, server, version, status, fragment):
    body = {'server': {'name': 'vm', 'imageRef': af.IMAGE_ID,
                       'flavorRef': '1', 'networks': 'none'}}
    for key, value in server.items():
        if value is None:
            body['server'].pop(key, None)
        else:
            body['server'][key] = value
    if version < '2.37' and body['server'].get('networks') == 'none':
        del body['server']['networks']
    reply = demo.post('/servers', body, version=version)
    assert reply.status == status, reply
    fault = reply.body['badRequest']['message']
    assert fragment in fault


def test_create_needs_a_body(compute, demo):
    reply = demo.post('/servers', {}, version='2.37')
    assert reply.status == 400
    assert reply.body['badRequest']['message'] == \
        "'server' is a required property"


def test_multi_create_and_reservation_id(compute, bed):
    client = bed.client(user='multi', project='44dd')
    reply = _boot(client, min_count=2, max_count=2,
                  return_reservation_id=True)
    assert reply.status == 202
    rid = reply.body['reservation_id']
    assert rid.startswith('r-')
    listed = client.get('/servers?reservation_id=%s' % rid)
    assert len(listed.body['servers']) == 2


def test_quota_exceeded(compute, bed, admin):
    client = bed.client(user='q', project='55ee')
    assert admin.put('/os-quota-sets/55ee', {
        'quota_set': {'instances': 1}}).status == 200
    assert _boot(client).status == 202
    reply = _boot(client)
    assert reply.status == 403
    assert reply.body['forbidden']['message'] == (
        'Quota exceeded for instances: Requested 1, but already used 1 of 1 '
        'instances')
    limits = client.get('/limits').body['limits']['absolute']
    assert limits['totalInstancesUsed'] == 1


def test_private_flavor_needs_access(compute, bed, admin, demo):
    assert admin.post('/flavors', {'flavor': {
        'name': 'hidden', 'ram': 512, 'vcpus': 1, 'disk': 1, 'id': 'hidden',
        'os-flavor-access:is_public': False}}).status == 200
    reply = _boot(demo, flavorRef='hidden')
    assert reply.status == 400
    assert reply.body['badRequest']['message'] == \
        'Invalid flavorRef provided.'
    assert admin.post('/flavors/hidden/action', {'addTenantAccess': {
        'tenant': demo.project}}).status == 200
    assert _boot(demo, flavorRef='hidden').status == 202


def test_metadata_over_quota(compute, bed, admin):
    client = bed.client(user='meta', project='66ff')
    assert admin.put('/os-quota-sets/66ff', {
        'quota_set': {'metadata_items': 2}}).status == 200
    reply = _boot(client, metadata={'a': '1', 'b': '2', 'c': '3'})
    assert reply.status == 403
    assert 'metadata' in reply.body['forbidden']['message']
    assert _boot(client, metadata={'a': '1', 'b': '2'}).status == 202


def test_optional_fields_reach_the_view(compute, bed, demo):
    user_data = base64.b64encode(b'#!/bin/sh\necho hi\n').decode()
    reply = _boot(demo, version='2.90', name='full',
                  description='described', tags=['t1', 't2'],
                  metadata={'k': 'v'}, hostname='myhost',
                  user_data=user_data)
    assert reply.status == 202, reply
    server = demo.get('/servers/%s' % reply.body['server']['id'],
                      version='2.90').body['server']
    assert server['description'] == 'described'
    # The tags live on the build request until the conductor creates the
    # instance; they reach the cast to the conductor.
    assert isinstance(server['tags'], list)
    assert sorted(bed.task_api.casts[-1][1]['tags']) == ['t1', 't2']
    assert server['metadata'] == {'k': 'v'}
    assert server['OS-EXT-SRV-ATTR:hostname'] == 'myhost'
    assert server['flavor']['original_name'] == 'm1.tiny'


def test_actions_and_subresources(compute, demo):
    server_id = _boot(demo).body['server']['id']
    reply = demo.post('/servers/%s/action' % server_id, {'nope': {}})
    assert reply.status == 400
    assert reply.body['badRequest']['message'] == \
        'There is no such action: nope'
    reply = demo.post('/servers/%s/action' % server_id,
                      {'a': {}, 'b': {}})
    assert reply.status == 400
    ips = demo.get('/servers/%s/ips' % server_id)
    assert ips.status == 200 and ips.body == {'addresses': {}}
    assert demo.get('/servers/%s/ips/private' % server_id).status == 404
    meta = demo.get('/servers/%s/metadata' % server_id)
    assert meta.body == {'metadata': {}}
    # Metadata cannot change while the server is building.
    busy = demo.post('/servers/%s/metadata' % server_id,
                     {'metadata': {'a': 'b'}})
    assert busy.status == 409
    assert demo.get('/servers/%s/metadata/a' % server_id).status == 404
    missing = demo.get('/servers/%s/os-instance-actions' % af.IMAGE_ID)
    assert missing.status == 404


def test_scheduler_hints_and_az_shown_from_request_spec(compute, demo):
    hint = '48e6a9f6-30af-47e0-bc04-acaed113bb4e'
    body = {'server': {'name': 'hinted', 'imageRef': af.IMAGE_ID,
                       'flavorRef': '1', 'networks': 'none'},
            'os:scheduler_hints': {'same_host': [hint]}}
    reply = demo.post('/servers', body, version='2.100')
    assert reply.status == 202, reply
    server = demo.get('/servers/%s' % reply.body['server']['id'],
                      version='2.100').body['server']
    assert server['scheduler_hints'] == {'same_host': [hint]}
    assert server['server_groups'] == []
    assert 'pinned_availability_zone' in server
    bad = dict(body, **{'os:scheduler_hints': {'group': 'not-a-uuid'}})
    assert demo.post('/servers', bad, version='2.100').status == 400


def test_personality_until_256(compute, bed, demo):
    files = [{'path': '/etc/motd',
              'contents': base64.b64encode(b'hello').decode()}]
    reply = _boot(demo, version='2.56', personality=files)
    assert reply.status == 202, reply
    assert bed.task_api.casts[-1][1]['injected_files'] == [
        ('/etc/motd', b'hello')]
    assert _boot(demo, version='2.57', personality=files).status == 400


def _own_project(bed):
    """A client of a project of its own: a full instance quota."""
    return bed.client(user='u', project=uuid.uuid4().hex)


def _files(count, path='/etc/motd', contents=b'hello'):
    return [{'path': '%s%d' % (path, i) if count > 1 else path,
             'contents': base64.b64encode(contents).decode()}
            for i in range(count)]


@pytest.mark.parametrize('files,message', [
    (_files(6), 'Personality file limit exceeded'),
    (_files(1, path='/' + 'p' * 255),
     'Personality file path exceeds maximum 255'),
    (_files(1, contents=b'x' * 10241),
     'Personality file content exceeds maximum 10240'),
    # Both lengths over: the path is the one reported.
    (_files(1, path='/' + 'p' * 255, contents=b'x' * 10241),
     'Personality file path exceeds maximum 255'),
])
def test_personality_over_quota_is_403(compute, bed, files, message):
    reply = _boot(_own_project(bed), version='2.1', personality=files)
    assert reply.status == 403, reply
    assert reply.body == {'forbidden': {'code': 403, 'message': message}}


def test_personality_at_the_limits_boots(compute, bed):
    files = _files(4) + _files(1, path='/' + 'p' * 254,
                               contents=b'x' * 10240)
    reply = _boot(_own_project(bed), version='2.1', personality=files)
    assert reply.status == 202, reply
    assert len(bed.task_api.casts[-1][1]['injected_files']) == 5


def test_personality_quota_follows_project_limits(compute, bed, admin):
    client = _own_project(bed)
    assert admin.put('/os-quota-sets/%s' % client.project, {
        'quota_set': {'injected_files': 1}}).status == 200
    reply = _boot(client, version='2.1', personality=_files(2))
    assert reply.status == 403
    assert reply.body['forbidden']['message'] == \
        'Personality file limit exceeded'


@pytest.mark.parametrize('version,status', [
    ('2.90', 400), ('2.93', 400), ('2.94', 202)])
def test_fqdn_hostname_from_2_94(compute, bed, version, status):
    demo = _own_project(bed)
    reply = _boot(demo, version=version, hostname='vm1.example.com')
    assert reply.status == status, reply
    if status == 202:
        shown = demo.get('/servers/%s' % reply.body['server']['id'],
                         version=version)
        assert shown.body['server']['OS-EXT-SRV-ATTR:hostname'] == \
            'vm1.example.com'


@pytest.mark.parametrize('hostname', ['vm_1', '-vm', 'vm-', 'a'])
def test_hostname_2_90_is_one_dns_label(compute, bed, hostname):
    reply = _boot(_own_project(bed), version='2.90', hostname=hostname)
    assert reply.status == 400


def test_update_fqdn_hostname_from_2_94(compute, bed):
    demo = _own_project(bed)
    server_id = _boot(demo).body['server']['id']
    body = {'server': {'hostname': 'vm1.example.com'}}
    assert demo.put('/servers/%s' % server_id, body,
                    version='2.93').status == 400
    reply = demo.put('/servers/%s' % server_id, body, version='2.94')
    assert reply.status == 200, reply
    assert reply.body['server']['OS-EXT-SRV-ATTR:hostname'] == \
        'vm1.example.com'
