"""Neutron's port quota as POST /servers sees it, through the REST APIs.

The compute API asks Neutron for the project's port usage with the
``quota_details`` extension (one call, whatever the number of ports) and
refuses a boot the ports cannot hold with Nova's 403.  The limits are set
through Neutron's own quota API as an operator would.
"""

import collections
import contextlib
import re


def _neutron(api, method, path, body=None, expected=None):
    return api.request(method, path, body=body, expected=expected,
                       base=api.cloud.urls['network'])


@contextlib.contextmanager
def _port_limit(admin_api, project_id, room):
    """Let ``project_id`` create ``room`` more ports than it has."""
    used = _neutron(admin_api, 'GET', '/v2.0/quotas/%s/details' % project_id,
                    expected=200).json()['quota']['port']['used']
    _neutron(admin_api, 'PUT', '/v2.0/quotas/%s' % project_id,
             {'quota': {'port': used + room}}, expected=200)
    try:
        yield used + room
    finally:
        _neutron(admin_api, 'DELETE', '/v2.0/quotas/%s' % project_id,
                 expected=204)


@contextlib.contextmanager
def _neutron_requests(cloud):
    """Record 'METHOD path?filters' of every request Neutron receives."""
    seen = collections.Counter()
    slot = cloud.cloud.slots['neutron']
    inner = slot.app

    def counting(environ, start_response):
        path = re.sub(r'/[0-9a-f-]{32,36}', '/ID', environ['PATH_INFO'])
        query = sorted({part.split('=')[0] for part in
                        environ.get('QUERY_STRING', '').split('&') if part})
        seen['%s %s?%s' % (environ['REQUEST_METHOD'], path,
                           '&'.join(query))] += 1
        return inner(environ, start_response)

    slot.app = counting
    try:
        yield seen
    finally:
        slot.app = inner


def test_exhausted_port_quota_refuses_the_boot_with_403(cloud, demo_api,
                                                        admin_api):
    with _port_limit(admin_api, demo_api.project_id, room=0):
        resp = demo_api.post('/servers', {'server': {
            'name': 'no-port-left', 'flavorRef': cloud.flavor_id,
            'imageRef': cloud.image_id,
            'networks': [{'uuid': cloud.network_id}]}})
    assert resp.status_code == 403, resp.text
    assert resp.json() == {'forbidden': {
        'code': 403, 'message': 'Maximum number of ports exceeded'}}
    assert 'no-port-left' not in [
        s['name'] for s in demo_api.get_servers(detail=False)]


def test_port_quota_caps_max_count_and_min_count_beyond_is_403(
        cloud, demo_api, admin_api):
    server = {'flavorRef': cloud.flavor_id, 'imageRef': cloud.image_id,
              'networks': [{'uuid': cloud.network_id}]}
    with _port_limit(admin_api, demo_api.project_id, room=1):
        resp = demo_api.post('/servers', {'server': dict(
            server, name='needs-two', min_count=2, max_count=3)})
        assert resp.status_code == 403, resp.text
        assert resp.json()['forbidden']['message'] == (
            'Quota exceeded for ports: Requested 2, but already used 0 '
            'of 1 ports')
        body = demo_api.post_server(dict(
            server, name='one-of-three', min_count=1, max_count=3,
            return_reservation_id=True))
    listed = demo_api.get_servers(detail=False, search_opts={
        'reservation_id': body['reservation_id']})
    assert [s['name'] for s in listed] == ['one-of-three']
    for srv in listed:
        cloud.track_server(srv['id'])


def test_boot_reads_port_usage_once_without_listing_ports(cloud, demo_api,
                                                          admin_api):
    with _neutron_requests(cloud) as seen:
        demo_api.create_server()
    quota_calls = {k: n for k, n in seen.items() if '/quotas' in k}
    assert quota_calls == {'GET /v2.0/quotas/ID/details?': 1}, seen
    # A boot lists no ports at all: the project's are counted by the
    # quota details, and the server's own come back in the answers to
    # their binding.
    listings = [k for k in seen if k.startswith('GET /v2.0/ports')]
    assert listings == [], seen


def test_port_quota_details_count_the_projects_ports(cloud, demo_api,
                                                     admin_api):
    path = '/v2.0/quotas/%s/details' % demo_api.project_id
    before = _neutron(demo_api, 'GET', path, expected=200).json()['quota']
    server = demo_api.create_server()
    after = _neutron(demo_api, 'GET', path, expected=200).json()['quota']
    ports = demo_api.get_ports(device_id=server['id'])
    assert len(ports) == 1
    assert after['port']['used'] == before['port']['used'] + 1
    assert after['port']['limit'] == before['port']['limit'] > 0
    assert after['port']['reserved'] == 0
    assert set(after) >= {'network', 'subnet', 'port', 'security_group'}


def test_neutron_quota_api_is_for_admins_and_validates(cloud, demo_api,
                                                       admin_api):
    project = demo_api.project_id
    path = '/v2.0/quotas/%s' % project
    default = _neutron(demo_api, 'GET', path, expected=200).json()['quota']
    refused = _neutron(demo_api, 'PUT', path, {'quota': {'port': 5}})
    assert refused.status_code == 403
    assert refused.json()['NeutronError']['type'] == 'HTTPForbidden'
    for bad in ({'port': -2}, {'port': 'many'}, {'ports': 5}):
        resp = _neutron(admin_api, 'PUT', path, {'quota': bad})
        assert resp.status_code == 400, (bad, resp.text)
    try:
        set_to = _neutron(admin_api, 'PUT', path, {'quota': {'port': 7}},
                          expected=200).json()['quota']
        assert set_to == dict(default, port=7)
        assert _neutron(demo_api, 'GET', path, expected=200).json()[
            'quota']['port'] == 7
        listed = _neutron(admin_api, 'GET', '/v2.0/quotas',
                          expected=200).json()['quotas']
        assert [q['port'] for q in listed if q['project_id'] == project] \
            == [7]
        assert _neutron(demo_api, 'GET', path + '/default',
                        expected=200).json()['quota'] == default
    finally:
        _neutron(admin_api, 'DELETE', path, expected=204)
    assert _neutron(demo_api, 'GET', path, expected=200).json()[
        'quota'] == default


def test_unlimited_port_quota_lets_the_boot_through(cloud, demo_api,
                                                    admin_api):
    path = '/v2.0/quotas/%s' % demo_api.project_id
    _neutron(admin_api, 'PUT', path, {'quota': {'port': -1}},
             expected=200)
    try:
        server = demo_api.create_server()
    finally:
        _neutron(admin_api, 'DELETE', path, expected=204)
    assert server['status'] == 'ACTIVE'
