"""GET /servers filters that need more than a column compare, and the
2.104 availability-zone pin, through the REST API of the in-process cloud."""

import re
import uuid


def _ids(api, **params):
    return {s['id'] for s in api.get('/servers', params=params).json()[
        'servers']}


def _fixed_ip(server):
    return [a['addr'] for addrs in server['addresses'].values()
            for a in addrs if a['OS-EXT-IPS:type'] == 'fixed'][0]


def test_flavor_and_address_filters(cloud, demo_api, admin_api):
    other = admin_api.post('/flavors', {'flavor': {
        'name': 'filter-%s' % uuid.uuid4().hex[:6], 'ram': 64, 'vcpus': 1,
        'disk': 1}}, expected=200).json()['flavor']['id']
    first = demo_api.create_server()
    second = demo_api.create_server()
    third = demo_api.create_server(flavor_id=other)
    mine = {first['id'], second['id'], third['id']}

    # flavor names the flavorid a user sees, not the row's internal id.
    assert _ids(demo_api, flavor=other) & mine == {third['id']}
    assert _ids(demo_api, flavor=cloud.flavor_id) & mine == {
        first['id'], second['id']}
    assert _ids(demo_api, flavor='no-such-flavor') == set()

    # ip is a regular expression matched at the start of fixed addresses.
    address = _fixed_ip(third)
    exact = '^%s$' % re.escape(address)
    assert _ids(demo_api, ip=exact) == {third['id']}
    assert _ids(demo_api, ip=address.rsplit('.', 1)[0] + '.') >= mine
    assert _ids(demo_api, ip='192\\.0\\.2\\.') & mine == set()
    assert _ids(demo_api, ip6='.') & mine == set()  # no IPv6 here
    detail = demo_api.get('/servers/detail', params={'ip': exact}).json()
    assert [s['id'] for s in detail['servers']] == [third['id']]
    bad = demo_api.request('GET', '/servers', params={'ip': '10.0.0.(('})
    assert bad.status_code == 400
    assert 'ip' in bad.json()['badRequest']['message']


def test_unpin_and_repin_availability_zone(cloud, demo_api):
    server = demo_api.create_server(availability_zone='nova')
    path = '/servers/%s' % server['id']
    assert demo_api.get_server(server['id'])[
        'pinned_availability_zone'] == 'nova'

    def put(pin, **kw):
        return demo_api.put(path, {'server': {
            'pinned_availability_zone': pin}}, microversion='2.104', **kw)

    assert put(None, expected=200).json()['server'][
        'pinned_availability_zone'] is None
    assert demo_api.get_server(server['id'])[
        'pinned_availability_zone'] is None
    # Unpinned: only the zone the server is in may pin it again.
    refused = put('elsewhere', expected=409).json()
    assert 'elsewhere' in refused['conflictingRequest']['message']
    current = demo_api.get_server(server['id'])[
        'OS-EXT-AZ:availability_zone']
    assert put(current, expected=200).json()['server'][
        'pinned_availability_zone'] == current
    assert put(current, expected=200).json()['server'][
        'pinned_availability_zone'] == current  # idempotent
    assert put('elsewhere', expected=409).status_code == 409
    # Before 2.104 the field is not part of the request.
    old = demo_api.request('PUT', path, {'server': {
        'pinned_availability_zone': None}}, microversion='2.103')
    assert old.status_code == 400
