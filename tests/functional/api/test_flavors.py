"""/flavors with its extra specs and access lists."""

import pytest

from tests.functional.api import apifixture as af
from tests.functional.api import samples

FREE = ('flavor.extra_specs', 'flavors[].extra_specs')


def _create(admin, flavor_id, name=None, version=None, **extra):
    body = {'flavor': dict({'name': name or 'f-%s' % flavor_id, 'ram': 512,
                            'vcpus': 1, 'disk': 1, 'id': flavor_id},
                           **extra)}
    return admin.post('/flavors', body, version=version)


@pytest.fixture(scope='module')
def tiny(bed):
    admin = bed.client(user='admin', project=af.ADMIN_PROJECT)
    reply = _create(admin, '1', 'm1.tiny')
    assert reply.status == 200, reply
    admin.post('/flavors/1/os-extra_specs',
               {'extra_specs': {'hw:numa_nodes': '1'}})
    return reply.body['flavor']


@pytest.mark.parametrize('version,folder', [
    ('2.1', 'flavors'), ('2.55', 'flavors/v2.55'), ('2.61', 'flavors/v2.61'),
    ('2.75', 'flavors/v2.75'), ('2.102', 'flavors/v2.102')])
def test_flavor_views_match_samples(demo, tiny, version, folder):
    show = demo.get('/flavors/1', version=version)
    assert show.status == 200
    samples.assert_matches(folder + '/flavor-get-resp.json', show.body,
                           free=FREE)
    listed = demo.get('/flavors', version=version)
    samples.assert_matches(folder + '/flavors-list-resp.json', listed.body)
    detail = demo.get('/flavors/detail', version=version)
    samples.assert_matches(folder + '/flavors-detail-resp.json',
                           detail.body, free=FREE)


def test_swap_and_removed_fields_by_version(demo, tiny):
    old = demo.get('/flavors/1', version='2.74').body['flavor']
    assert old['swap'] == ''
    assert old['rxtx_factor'] == 1.0
    assert old['OS-FLV-DISABLED:disabled'] is False
    new = demo.get('/flavors/1', version='2.75').body['flavor']
    assert new['swap'] == 0
    latest = demo.get('/flavors/1', version='2.102').body['flavor']
    assert 'rxtx_factor' not in latest
    assert 'OS-FLV-DISABLED:disabled' not in latest
    assert latest['extra_specs'] == {'hw:numa_nodes': '1'}


def test_create_needs_admin(demo):
    reply = _create(demo, '99')
    assert reply.status == 403
    assert reply.body['forbidden']['message'] == (
        "Policy doesn't allow os_compute_api:os-flavor-manage:create to be "
        "performed.")


def test_create_validation_and_conflicts(admin, tiny):
    reply = admin.post('/flavors', {'flavor': {'name': 'x', 'ram': -1,
                                               'vcpus': 1, 'disk': 1}})
    assert reply.status == 400
    assert 'field/attribute ram' in reply.body['badRequest']['message']
    reply = admin.post('/flavors', {'flavor': {'name': 'x'}})
    assert reply.status == 400
    reply = _create(admin, '1', 'other-name')
    assert reply.status == 409
    assert reply.body['conflictingRequest']['message'] == \
        'Flavor with ID 1 already exists.'
    reply = _create(admin, 'new-id', 'm1.tiny')
    assert reply.status == 409
    assert 'already exists' in reply.body['conflictingRequest']['message']


def test_create_generates_id_and_description(admin):
    reply = admin.post('/flavors', {'flavor': {
        'name': 'described', 'ram': 64, 'vcpus': 1, 'disk': 0,
        'description': 'small'}}, version='2.55')
    assert reply.status == 200, reply
    flavor = reply.body['flavor']
    assert len(flavor['id']) == 36
    assert flavor['description'] == 'small'
    if samples.available():
        samples.assert_matches(
            'flavor-manage/v2.55/flavor-create-post-resp.json', reply.body)
    reply = admin.put('/flavors/%s' % flavor['id'],
                      {'flavor': {'description': 'changed'}},
                      version='2.55')
    assert reply.status == 200
    assert reply.body['flavor']['description'] == 'changed'
    # Description updates do not exist before 2.55.
    reply = admin.put('/flavors/%s' % flavor['id'],
                      {'flavor': {'description': 'x'}}, version='2.54')
    assert reply.status == 404
    assert admin.delete('/flavors/%s' % flavor['id']).status == 202
    assert admin.get('/flavors/%s' % flavor['id']).status == 404


def test_unknown_flavor(demo):
    reply = demo.get('/flavors/does-not-exist')
    assert reply.status == 404
    assert reply.body == {'itemNotFound': {
        'code': 404, 'message': 'Flavor does-not-exist could not be found.'}}


def test_list_filters_and_paging(admin, demo, tiny):
    for i in range(3):
        _create(admin, 'page-%d' % i, ram=1024 * (i + 1))
    big = demo.get('/flavors/detail?minRam=2048').body['flavors']
    assert big and all(f['ram'] >= 2048 for f in big)
    page = demo.get('/flavors?limit=2')
    assert len(page.body['flavors']) == 2
    nxt = page.body['flavors_links'][0]['href']
    assert 'marker=%s' % page.body['flavors'][1]['id'] in nxt
    rest = demo.get('/flavors?marker=%s' % page.body['flavors'][1]['id'])
    assert page.body['flavors'][0]['id'] not in [
        f['id'] for f in rest.body['flavors']]
    assert demo.get('/flavors?marker=nope').status == 400
    named = demo.get('/flavors?name=m1.tiny', version='2.102').body
    assert [f['id'] for f in named['flavors']] == ['1']
    assert demo.get('/flavors?bogus=1', version='2.102').status == 400
    assert demo.get('/flavors?bogus=1', version='2.74').status == 200


def test_private_flavor_access(admin, demo, bed):
    reply = _create(admin, 'priv', **{'os-flavor-access:is_public': False})
    assert reply.status == 200
    demo_ids = [f['id'] for f in demo.get('/flavors').body['flavors']]
    assert 'priv' not in demo_ids
    # Admins see private flavors only when they ask for every flavor.
    admin_default = [f['id'] for f in admin.get('/flavors').body['flavors']]
    assert 'priv' not in admin_default
    everything = admin.get('/flavors?is_public=none').body['flavors']
    assert 'priv' in [f['id'] for f in everything]
    private = admin.get('/flavors?is_public=false').body['flavors']
    assert [f['id'] for f in private] == ['priv']
    assert admin.get('/flavors?is_public=perhaps').status == 400
    # A private flavor does not exist for a project without access, not
    # even by its id (a boot with it is a 400, see test_servers).
    assert demo.get('/flavors/priv').status == 404
    reply = admin.post('/flavors/priv/action', {
        'addTenantAccess': {'tenant': demo.project}})
    assert reply.status == 200
    assert demo.get('/flavors/priv').status == 200
    assert reply.body == {'flavor_access': [
        {'flavor_id': 'priv', 'tenant_id': demo.project}]}
    demo_ids = [f['id'] for f in demo.get('/flavors').body['flavors']]
    assert 'priv' in demo_ids
    again = admin.post('/flavors/priv/action', {
        'addTenantAccess': {'tenant': demo.project}})
    assert again.status == 409
    listed = admin.get('/flavors/priv/os-flavor-access')
    assert listed.body['flavor_access'][0]['tenant_id'] == demo.project
    assert admin.get('/flavors/1/os-flavor-access').status == 404
    assert admin.post('/flavors/1/action', {
        'addTenantAccess': {'tenant': 'x'}}).status == 409
    removed = admin.post('/flavors/priv/action', {
        'removeTenantAccess': {'tenant': demo.project}})
    assert removed.status == 200 and removed.body['flavor_access'] == []
    assert admin.post('/flavors/priv/action', {
        'removeTenantAccess': {'tenant': demo.project}}).status == 404
    assert demo.post('/flavors/priv/action', {
        'addTenantAccess': {'tenant': 'x'}}).status == 403


def test_extra_specs_crud(admin, demo, tiny):
    reply = admin.post('/flavors/1/os-extra_specs',
                       {'extra_specs': {'hw:cpu_policy': 'shared'}})
    assert reply.status == 200
    assert reply.body == {'extra_specs': {'hw:cpu_policy': 'shared'}}
    listed = demo.get('/flavors/1/os-extra_specs').body['extra_specs']
    assert listed['hw:cpu_policy'] == 'shared'
    assert demo.get('/flavors/1/os-extra_specs/hw:cpu_policy').body == {
        'hw:cpu_policy': 'shared'}
    reply = admin.put('/flavors/1/os-extra_specs/hw:cpu_policy',
                      {'hw:cpu_policy': 'dedicated'})
    assert reply.body == {'hw:cpu_policy': 'dedicated'}
    mismatch = admin.put('/flavors/1/os-extra_specs/hw:cpu_policy',
                         {'other': 'x'})
    assert mismatch.status == 400
    assert demo.post('/flavors/1/os-extra_specs',
                     {'extra_specs': {'a': 'b'}}).status == 403
    # Nova answers this DELETE with 200 (not 202 like most deletes).
    assert admin.delete('/flavors/1/os-extra_specs/hw:cpu_policy').status \
        == 200
    missing = demo.get('/flavors/1/os-extra_specs/hw:cpu_policy')
    assert missing.status == 404
    assert missing.body['itemNotFound']['message'] == (
        'Flavor 1 has no extra specs with key hw:cpu_policy.')
    bad = admin.post('/flavors/1/os-extra_specs',
                     {'extra_specs': {'bad/key': 'x'}})
    assert bad.status == 400


@pytest.mark.parametrize('specs,message', [
    ({'hw:cpu_policy': 'evil'},
     "Validation failed; 'evil' is not one of: dedicated, shared, mixed."),
    ({'hw:numa_nodes': '0'},
     "Validation failed; '0' is less than the min value of '1'."),
    ({'hw:numa_nodes': 'two'},
     "Validation failed; 'two' is not a valid integer value."),
    ({'hw:mem_page_size': 'huge'},
     "Validation failed; 'huge' is not of the format "
     "'(large|small|any|\\d+([kKMGT]i?)?(b|bit|B)?)'."),
    ({'hw:cpu_realtime': 'perhaps'},
     "Validation failed; 'perhaps' is not a valid boolean-like value."),
    ({'hw:cpu_polcy': 'dedicated'},
     "Validation failed; extra spec 'hw:cpu_polcy' does not appear to be a "
     "valid extra spec."),
    ({'quota:cpu_shares': '-1'},
     "Validation failed; '-1' is less than the min value of '0'."),
    ({'trait:HW_CPU_X86_AVX2': 'preferred'},
     "Validation failed; 'preferred' is not one of: required, forbidden."),
    ({'resources:VCPUS': '1'},
     "Validation failed; extra spec 'resources:VCPUS' does not appear to be "
     "a valid extra spec."),
])
def test_extra_specs_validated_from_2_86(admin, tiny, specs, message):
    reply = admin.post('/flavors/1/os-extra_specs', {'extra_specs': specs},
                       version='2.86')
    assert reply.status == 400
    assert reply.body['badRequest']['message'] == message
    key, value = next(iter(specs.items()))
    put = admin.put('/flavors/1/os-extra_specs/%s' % key, specs,
                    version='latest')
    assert put.status == 400
    assert put.body['badRequest']['message'] == message
    stored = admin.get('/flavors/1/os-extra_specs').body['extra_specs']
    assert stored.get(key) != value
    # Before 2.86 Nova stores what it is given.
    assert admin.post('/flavors/1/os-extra_specs', {'extra_specs': specs},
                      version='2.85').status == 200
    if key in stored:
        admin.post('/flavors/1/os-extra_specs',
                   {'extra_specs': {key: stored[key]}})
    else:
        admin.delete('/flavors/1/os-extra_specs/%s' % key)


def test_valid_and_foreign_extra_specs_accepted_from_2_86(admin, tiny):
    specs = {'hw:cpu_policy': 'dedicated', 'hw:numa_nodes': '2',
             'hw:numa_cpus.0': '0-1', 'hw:mem_page_size': '2MB',
             'hw_rng:allowed': 'True', 'quota:disk_read_iops_sec': '100',
             'resources1:CUSTOM_GPU': '1', 'trait:HW_CPU_X86_AVX2': 'required',
             'aggregate_instance_extra_specs:ssd': 'true',
             'capabilities:cpu_info:arch': 'x86_64',
             # No namespace, or one Nova does not know: the operator's own.
             'owner': 'team-a', 'acme:tier': 'gold'}
    reply = admin.post('/flavors/1/os-extra_specs', {'extra_specs': specs},
                       version='2.86')
    assert reply.status == 200, reply
    assert reply.body == {'extra_specs': specs}
    for key in specs:
        admin.delete('/flavors/1/os-extra_specs/%s' % key)


def test_numeric_extra_spec_longer_than_255_is_400(admin, tiny):
    reply = admin.request('POST', '/flavors/1/os-extra_specs',
                          raw='{"extra_specs": {"k": %s}}' % ('9' * 256))
    assert reply.status == 400
    assert reply.body['badRequest']['message'] == (
        'extra_specs value has more than 255 characters.')


def test_create_refuses_numbers_written_as_strings_past_the_database(admin):
    for field in ('ram', 'vcpus', 'disk', 'swap'):
        values = {'name': 'huge-' + field, 'ram': 64, 'vcpus': 1, 'disk': 1,
                  field: '99999999999999999999'}
        reply = admin.post('/flavors', {'flavor': values})
        assert reply.status == 400, (field, reply.text)
        assert reply.body['badRequest']['message'] == (
            'Invalid input received: %s must be <= 2147483647' % field)
