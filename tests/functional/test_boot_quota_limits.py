"""Which instance limit a boot meets: user over project over class.

POST /servers reads the three levels of limits in one query; these tests
show through the REST API that the most specific level still wins and
that removing it brings the next one back.
"""


def _user_id(cloud, api):
    """The id of ``api``'s user, from its own token."""
    resp = api.http.get(cloud.urls['identity'] + '/v3/auth/tokens',
                        headers={'X-Auth-Token': api.token,
                                 'X-Subject-Token': api.token}, timeout=10)
    assert resp.status_code == 200, resp.text
    return resp.json()['token']['user']['id']


def _boot_refusal(cloud, api, count):
    resp = api.post('/servers', {'server': {
        'name': 'too-many', 'flavorRef': cloud.flavor_id,
        'imageRef': cloud.image_id, 'min_count': count,
        'networks': [{'uuid': cloud.network_id}]}})
    assert resp.status_code == 403, resp.text
    return resp.json()['forbidden']['message']


def test_user_then_project_then_default_instance_limit(cloud, demo_api,
                                                       admin_api):
    project = demo_api.project_id
    user = _user_id(cloud, demo_api)
    quotas = '/os-quota-sets/%s' % project
    default = admin_api.get(quotas + '/defaults').json()['quota_set'][
        'instances']
    try:
        admin_api.put(quotas, {'quota_set': {'instances': 3}},
                      expected=200)
        admin_api.put(quotas + '?user_id=%s' % user,
                      {'quota_set': {'instances': 1}}, expected=200)
        assert _boot_refusal(cloud, demo_api, 2) == (
            'Quota exceeded for instances: Requested 2, but already used '
            '0 of 1 instances')
        admin_api.delete(quotas + '?user_id=%s' % user, expected=202)
        assert _boot_refusal(cloud, demo_api, 4) == (
            'Quota exceeded for instances: Requested 4, but already used '
            '0 of 3 instances')
    finally:
        admin_api.delete(quotas + '?user_id=%s' % user, expected=202)
        admin_api.delete(quotas, expected=202)
    assert _boot_refusal(cloud, demo_api, default + 1) == (
        'Quota exceeded for instances: Requested %d, but already used 0 of '
        '%d instances' % (default + 1, default))
