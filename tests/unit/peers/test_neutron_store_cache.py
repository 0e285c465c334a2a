"""The Neutron stand-in on its cached store answers as it did from SQL.

Addresses go to the lowest free one of the pools however the ports come
and go; listings and quota usage follow deletes at once; two stores of one
database, or a restart, see the same ports.
"""

import json

import pytest
import webob

from nova_clone.peers import neutron

DEMO = 'demo-project'


class _Notifier:
    def notify(self, name, server_uuid, port_id, status='completed',
               before_send=None):
        if before_send is not None:
            before_send()


def _app(path, cache=True):
    store = neutron.make_store('sqlite:///%s' % path, cache=cache)
    store.create_all()
    return neutron.NeutronApp(store, _Notifier())


def call(app, method, path, body=None, admin=False, status=None):
    req = webob.Request.blank(path, method=method)
    req.headers['X-User-Id'] = 'user'
    req.headers['X-Project-Id'] = 'admin-project' if admin else DEMO
    req.headers['X-Roles'] = 'admin,member' if admin else 'member'
    if body is not None:
        req.body = json.dumps(body).encode()
        req.content_type = 'application/json'
    resp = req.get_response(app)
    if status is not None:
        assert resp.status_int == status, resp.text
    return resp.json if resp.body else None


def _subnet(app, **extra):
    net = call(app, 'POST', '/v2.0/networks', {'network': {
        'name': 'n'}}, status=201)['network']
    sub = call(app, 'POST', '/v2.0/subnets', {'subnet': dict(
        network_id=net['id'], cidr='10.9.0.0/28', ip_version=4, **extra)},
        status=201)['subnet']
    return net['id'], sub


def _port(app, net_id, status=201, **extra):
    body = call(app, 'POST', '/v2.0/ports', {'port': dict(
        network_id=net_id, **extra)}, status=status)
    return body['port'] if status == 201 else body


def _ip(port):
    return port['fixed_ips'][0]['ip_address']


def _scenario(app):
    """Addresses handed out while ports come and go."""
    net_id, sub = _subnet(app, allocation_pools=[
        {'start': '10.9.0.1', 'end': '10.9.0.14'}], gateway_ip='10.9.0.5')
    out = []
    ports = [_port(app, net_id) for _ in range(6)]
    out.append([_ip(p) for p in ports])
    for port in (ports[1], ports[3]):
        call(app, 'DELETE', '/v2.0/ports/%s' % port['id'], status=204)
    out.append([_ip(_port(app, net_id)) for _ in range(3)])
    # An address asked for by name, then a port moved off its address.
    out.append(_ip(_port(app, net_id, fixed_ips=[
        {'ip_address': '10.9.0.10'}])))
    moved = call(app, 'PUT', '/v2.0/ports/%s' % ports[0]['id'], {'port': {
        'fixed_ips': [{'ip_address': '10.9.0.13'}]}}, status=200)['port']
    out.append(_ip(moved))
    out.append(_ip(_port(app, net_id)))
    # The gateway moves: its old address is free to hand out.
    call(app, 'PUT', '/v2.0/subnets/%s' % sub['id'], {'subnet': {
        'gateway_ip': '10.9.0.14'}}, status=200)
    out.append(_ip(_port(app, net_id)))
    left = []
    while True:
        resp = _port(app, net_id, status=None)
        if 'port' not in resp:
            out.append(resp['NeutronError']['type'])
            break
        left.append(_ip(resp['port']))
    out.append(left)
    call(app, 'DELETE', '/v2.0/ports/%s' % ports[2]['id'], status=204)
    out.append(_ip(_port(app, net_id)))
    return out


EXPECTED = [
    ['10.9.0.1', '10.9.0.2', '10.9.0.3', '10.9.0.4', '10.9.0.6',
     '10.9.0.7'],
    ['10.9.0.2', '10.9.0.4', '10.9.0.8'],
    '10.9.0.10',
    '10.9.0.13',
    '10.9.0.1',
    '10.9.0.5',
    'IpAddressGenerationFailure',
    ['10.9.0.9', '10.9.0.11', '10.9.0.12'],
    '10.9.0.3',
]


@pytest.mark.parametrize('cache', [True, False], ids=['cached', 'sql'])
def test_lowest_free_address_however_ports_come_and_go(tmp_path, cache):
    app = _app(tmp_path / 'n.sqlite', cache=cache)
    assert _scenario(app) == EXPECTED
    app.store.dispose()


def test_deleted_port_leaves_listings_and_usage_at_once(tmp_path):
    app = _app(tmp_path / 'n.sqlite')
    net_id, _sub = _subnet(app)
    server = 'b9f0f9a4-0000-4000-8000-000000000001'
    port = _port(app, net_id)
    call(app, 'PUT', '/v2.0/ports/%s' % port['id'], {'port': {
        'device_id': server, 'device_owner': 'compute:nova',
        'binding:host_id': 'host1'}}, admin=True, status=200)
    listed = call(app, 'GET', '/v2.0/ports?device_id=%s' % server,
                  admin=True)['ports']
    assert [(p['id'], p['status']) for p in listed] == [
        (port['id'], 'ACTIVE')]
    usage = call(app, 'GET', '/v2.0/quotas/%s/details' % DEMO)['quota']
    assert usage['port']['used'] == 1
    call(app, 'DELETE', '/v2.0/ports/%s' % port['id'], admin=True,
         status=204)
    assert call(app, 'GET', '/v2.0/ports?device_id=%s' % server,
                admin=True)['ports'] == []
    assert call(app, 'GET', '/v2.0/ports?network_id=%s' % net_id,
                admin=True)['ports'] == []
    assert call(app, 'GET', '/v2.0/ports/%s' % port['id'],
                admin=True)['NeutronError']['type'] == 'PortNotFound'
    usage = call(app, 'GET', '/v2.0/quotas/%s/details' % DEMO)['quota']
    assert usage['port']['used'] == 0
    # The network's subnets follow a subnet delete too.
    sub_ids = call(app, 'GET', '/v2.0/networks/%s' % net_id)['network'][
        'subnets']
    call(app, 'DELETE', '/v2.0/subnets/%s' % sub_ids[0], status=204)
    assert call(app, 'GET', '/v2.0/networks/%s' % net_id)['network'][
        'subnets'] == []
    app.store.dispose()


def test_two_apps_of_one_database_and_a_restart(tmp_path):
    path = tmp_path / 'n.sqlite'
    one, two = _app(path), _app(path)
    net_id, _sub = _subnet(one)
    first = [_port(one, net_id) for _ in range(3)]
    assert [_ip(p) for p in first] == ['10.9.0.2', '10.9.0.3', '10.9.0.4']
    # Freed through the other app: the first one hands it out again.
    call(two, 'DELETE', '/v2.0/ports/%s' % first[0]['id'], status=204)
    assert _ip(_port(one, net_id)) == '10.9.0.2'
    assert len(call(two, 'GET', '/v2.0/ports?network_id=%s' % net_id)[
        'ports']) == 3
    one.store.dispose()
    two.store.dispose()
    del one, two
    again = _app(path)
    ports = call(again, 'GET', '/v2.0/ports?network_id=%s' % net_id)['ports']
    assert sorted(_ip(p) for p in ports) == [
        '10.9.0.2', '10.9.0.3', '10.9.0.4']
    assert _ip(_port(again, net_id)) == '10.9.0.5'
    again.store.dispose()
