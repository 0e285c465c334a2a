"""/limits and /os-quota-sets."""

import pytest

from tests.functional.api import samples


@pytest.mark.parametrize('version,sample', [
    ('2.1', 'limits/limit-get-resp.json'),
    ('2.36', 'limits/v2.36/limit-get-resp.json'),
    ('2.39', 'limits/v2.39/limit-get-resp.json'),
    ('2.57', 'limits/v2.57/limit-get-resp.json'),
])
def test_limits_shape(demo, version, sample):
    reply = demo.get('/limits', version=version)
    assert reply.status == 200
    absolute = reply.body['limits']['absolute']
    assert absolute['maxTotalInstances'] == 10
    assert absolute['maxTotalCores'] == 20
    assert absolute['maxTotalRAMSize'] == 51200
    samples.assert_matches(sample, reply.body)


def test_limits_of_another_project_need_admin(demo, admin):
    assert demo.get('/limits?tenant_id=other').status == 403
    reply = admin.get('/limits?tenant_id=other')
    assert reply.status == 200


@pytest.mark.parametrize('version,folder', [
    ('2.1', 'os-quota-sets'), ('2.36', 'os-quota-sets/v2.36'),
    ('2.57', 'os-quota-sets/v2.57')])
def test_quota_set_shapes(demo, version, folder):
    pid = demo.project
    show = demo.get('/os-quota-sets/%s' % pid, version=version)
    assert show.status == 200
    assert show.body['quota_set']['id'] == pid
    defaults = demo.get('/os-quota-sets/%s/defaults' % pid,
                        version=version)
    detail = demo.get('/os-quota-sets/%s/detail' % pid, version=version)
    samples.assert_matches(folder + '/quotas-show-get-resp.json',
                           show.body)
    samples.assert_matches(folder + '/quotas-show-defaults-get-resp.json',
                           defaults.body)
    samples.assert_matches(folder + '/quotas-show-detail-get-resp.json',
                           detail.body)


def test_quota_update_is_admin_only_and_changes_limits(bed, admin):
    project = bed.client(user='qu', project='ab12')
    reply = project.put('/os-quota-sets/ab12',
                        {'quota_set': {'cores': 5}})
    assert reply.status == 403
    reply = admin.put('/os-quota-sets/ab12', {'quota_set': {'cores': 5}})
    assert reply.status == 200
    assert reply.body['quota_set']['cores'] == 5
    assert 'id' not in reply.body['quota_set']
    samples.assert_matches('os-quota-sets/quotas-update-post-resp.json',
                           reply.body)
    limits = project.get('/limits').body['limits']['absolute']
    assert limits['maxTotalCores'] == 5
    bad = admin.put('/os-quota-sets/ab12', {'quota_set': {'cores': 'x'}})
    assert bad.status == 400
    unknown = admin.put('/os-quota-sets/ab12', {'quota_set': {'bogus': 1}})
    assert unknown.status == 400
    assert admin.delete('/os-quota-sets/ab12').status == 202
    limits = project.get('/limits').body['limits']['absolute']
    assert limits['maxTotalCores'] == 20


def test_other_projects_quota_hidden_from_members(demo):
    assert demo.get('/os-quota-sets/someoneelse').status == 403


@pytest.mark.parametrize('version,folder', [
    ('2.1', 'os-quota-class-sets'), ('2.50', 'os-quota-class-sets/v2.50'),
    ('2.57', 'os-quota-class-sets/v2.57')])
def test_quota_class_shapes(admin, version, folder):
    shown = admin.get('/os-quota-class-sets/default', version=version)
    assert shown.status == 200
    assert shown.body['quota_class_set']['id'] == 'default'
    samples.assert_matches(folder + '/quota-classes-show-get-resp.json',
                           shown.body)


def test_default_quota_class_drives_defaults(bed, admin, demo):
    assert demo.get('/os-quota-class-sets/default').status == 403
    reply = admin.put('/os-quota-class-sets/default',
                      {'quota_class_set': {'instances': 7}}, version='2.50')
    assert reply.status == 200, reply
    assert reply.body['quota_class_set']['instances'] == 7
    samples.assert_matches(
        'os-quota-class-sets/v2.50/quota-classes-update-post-resp.json',
        reply.body)
    fresh = bed.client(user='fresh', project='77cd')
    limits = fresh.get('/limits').body['limits']['absolute']
    assert limits['maxTotalInstances'] == 7
    defaults = fresh.get('/os-quota-sets/77cd/defaults').body['quota_set']
    assert defaults['instances'] == 7
    admin.put('/os-quota-class-sets/default',
              {'quota_class_set': {'instances': 10}})
    assert admin.put('/os-quota-class-sets/default', {
        'quota_class_set': {'instances': 'many'}}).status == 400


def test_quota_class_keeps_legacy_network_limits(admin):
    """Before 2.50 a class stores what it is given for the nova-network
    era resources and shows it back (they limit nothing: Neutron has its
    own quotas); 2.50 drops them from the API."""
    legacy = {'floating_ips': 99, 'fixed_ips': 98, 'security_groups': 97,
              'security_group_rules': 96}
    before = admin.get('/os-quota-class-sets/legacy').body['quota_class_set']
    assert all(before[k] == -1 for k in legacy)
    reply = admin.put('/os-quota-class-sets/legacy',
                      {'quota_class_set': dict(legacy, instances=11)})
    assert reply.status == 200, reply
    shown = admin.get('/os-quota-class-sets/legacy').body['quota_class_set']
    for body in (reply.body['quota_class_set'], shown):
        assert {k: body[k] for k in legacy} == legacy
        assert body['instances'] == 11
    newer = admin.get('/os-quota-class-sets/legacy', version='2.50').body[
        'quota_class_set']
    assert not set(legacy) & set(newer)
    assert admin.put('/os-quota-class-sets/legacy', {'quota_class_set': {
        'floating_ips': 5}}, version='2.50').status == 400
