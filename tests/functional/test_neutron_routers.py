"""The Neutron stand-in's routers, floating IPs and security group rules.

What Tempest's per-project network set-up and the openstack CLI create
around servers: a router with a gateway on an external network, an
interface on the project's subnet, a floating IP bound to a port.
"""

import pytest

from tests.functional.test_peer_standins import client
from tests.functional.test_peer_standins import peers  # noqa: F401


@pytest.fixture(scope='module')
def public(peers):  # noqa: F811
    admin = client(peers, 'neutron', 'admin', 'admin')
    net = admin.post('/v2.0/networks', json={'network': {
        'name': 'public', 'router:external': True}}).json()['network']
    admin.post('/v2.0/subnets', json={'subnet': {
        'network_id': net['id'], 'cidr': '172.24.4.0/28',
        'ip_version': 4}})
    return net


@pytest.fixture(scope='module')
def private(peers):  # noqa: F811
    neutron = client(peers, 'neutron')
    net = neutron.post('/v2.0/networks', json={'network': {
        'name': 'routed'}}).json()['network']
    sub = neutron.post('/v2.0/subnets', json={'subnet': {
        'network_id': net['id'], 'cidr': '10.9.0.0/24',
        'ip_version': 4}}).json()['subnet']
    return net, sub


def test_router_gateway_interface_and_floating_ip(peers, public,  # noqa
                                                   private):
    neutron = client(peers, 'neutron')
    net, sub = private
    resp = neutron.post('/v2.0/routers', json={'router': {
        'name': 'r1', 'external_gateway_info': {'network_id': public['id']}}})
    assert resp.status_code == 201, resp.text
    router = resp.json()['router']
    gateway = router['external_gateway_info']
    assert gateway['network_id'] == public['id']
    assert gateway['enable_snat'] is True
    assert gateway['external_fixed_ips'][0]['ip_address'] == '172.24.4.2'
    assert router['status'] == 'ACTIVE'

    port = neutron.post('/v2.0/ports', json={'port': {
        'network_id': net['id']}}).json()['port']
    fip_body = {'floatingip': {'floating_network_id': public['id'],
                               'port_id': port['id']}}
    # Not reachable yet: no interface on the port's subnet.
    resp = neutron.post('/v2.0/floatingips', json=fip_body)
    assert resp.status_code == 404
    assert resp.json()['NeutronError']['type'] == \
        'ExternalGatewayForFloatingIPNotFound'

    resp = neutron.put('/v2.0/routers/%s/add_router_interface' % router['id'],
                       json={'subnet_id': sub['id']})
    assert resp.status_code == 200, resp.text
    info = resp.json()
    assert info['subnet_id'] == sub['id'] and info['id'] == router['id']
    iface = neutron.get('/v2.0/ports/%s' % info['port_id']).json()['port']
    assert iface['fixed_ips'][0]['ip_address'] == '10.9.0.1'
    assert iface['device_owner'] == 'network:router_interface'
    resp = neutron.put('/v2.0/routers/%s/add_router_interface' % router['id'],
                       json={'subnet_id': sub['id']})
    assert resp.status_code == 400

    resp = neutron.post('/v2.0/floatingips', json=fip_body)
    assert resp.status_code == 201, resp.text
    fip = resp.json()['floatingip']
    assert fip['router_id'] == router['id']
    assert fip['fixed_ip_address'] == port['fixed_ips'][0]['ip_address']
    assert fip['floating_ip_address'].startswith('172.24.4.')
    assert fip['status'] == 'ACTIVE'
    listed = neutron.get('/v2.0/floatingips?port_id=%s' % port['id']).json()
    assert [f['id'] for f in listed['floatingips']] == [fip['id']]

    # The interface and the router are in use while the binding lasts.
    assert neutron.put(
        '/v2.0/routers/%s/remove_router_interface' % router['id'],
        json={'subnet_id': sub['id']}).status_code == 409
    assert neutron.delete('/v2.0/routers/%s' % router['id']
                          ).status_code == 409

    # Deleting the port unbinds the floating IP.
    assert neutron.delete('/v2.0/ports/%s' % port['id']).status_code == 204
    fip = neutron.get('/v2.0/floatingips/%s' % fip['id']).json()['floatingip']
    assert fip['port_id'] is None and fip['status'] == 'DOWN'
    assert neutron.delete('/v2.0/floatingips/%s' % fip['id']
                          ).status_code == 204
    assert neutron.get('/v2.0/floatingips/%s' % fip['id']).status_code == 404

    resp = neutron.put(
        '/v2.0/routers/%s/remove_router_interface' % router['id'],
        json={'subnet_id': sub['id']})
    assert resp.status_code == 200
    assert neutron.get('/v2.0/ports/%s' % info['port_id']).status_code == 404
    assert neutron.delete('/v2.0/routers/%s' % router['id']
                          ).status_code == 204
    ports = neutron.get('/v2.0/ports?device_id=%s' % router['id']).json()
    assert ports['ports'] == []


def test_router_and_floating_ip_errors(peers, public, private):  # noqa
    neutron = client(peers, 'neutron')
    net, _sub = private
    resp = neutron.post('/v2.0/floatingips', json={'floatingip': {
        'floating_network_id': net['id']}})
    assert resp.status_code == 400
    resp = neutron.post('/v2.0/routers', json={'router': {
        'name': 5}})
    assert resp.status_code == 400
    assert neutron.get('/v2.0/routers/nope').status_code == 404
    router = neutron.post('/v2.0/routers', json={'router': {
        'name': 'r2'}}).json()['router']
    assert router['external_gateway_info'] is None
    resp = neutron.put('/v2.0/routers/%s/add_router_interface' % router['id'],
                       json={})
    assert resp.status_code == 400
    resp = neutron.put('/v2.0/routers/%s' % router['id'], json={'router': {
        'external_gateway_info': {'network_id': public['id'],
                                  'enable_snat': False}}})
    assert resp.status_code == 200
    assert resp.json()['router']['external_gateway_info'][
        'enable_snat'] is False
    alt = client(peers, 'neutron', 'alt', 'alt')
    assert alt.get('/v2.0/routers/%s' % router['id']).status_code == 404
    assert router['id'] not in [r['id'] for r in alt.get(
        '/v2.0/routers').json()['routers']]
    assert neutron.delete('/v2.0/routers/%s' % router['id']
                          ).status_code == 204


def test_security_group_rules_crud(peers):  # noqa: F811
    neutron = client(peers, 'neutron')
    sg = neutron.post('/v2.0/security-groups', json={'security_group': {
        'name': 'web'}}).json()['security_group']
    body = {'security_group_rule': {
        'security_group_id': sg['id'], 'direction': 'ingress',
        'protocol': 'tcp', 'port_range_min': 22, 'port_range_max': 22,
        'remote_ip_prefix': '0.0.0.0/0'}}
    resp = neutron.post('/v2.0/security-group-rules', json=body)
    assert resp.status_code == 201, resp.text
    rule = resp.json()['security_group_rule']
    assert rule['ethertype'] == 'IPv4' and rule['port_range_min'] == 22
    assert neutron.post('/v2.0/security-group-rules', json=body
                        ).status_code == 409
    shown = neutron.get('/v2.0/security-groups/%s' % sg['id']).json()
    assert rule['id'] in [r['id'] for r in
                          shown['security_group']['security_group_rules']]
    bad = dict(body['security_group_rule'], direction='sideways')
    assert neutron.post('/v2.0/security-group-rules', json={
        'security_group_rule': bad}).status_code == 400
    bad = dict(body['security_group_rule'], port_range_min=30)
    assert neutron.post('/v2.0/security-group-rules', json={
        'security_group_rule': bad}).status_code == 400
    assert neutron.get('/v2.0/security-group-rules/%s' % rule['id']
                       ).json()['security_group_rule']['id'] == rule['id']
    assert neutron.delete('/v2.0/security-group-rules/%s' % rule['id']
                          ).status_code == 204
    assert neutron.get('/v2.0/security-group-rules/%s' % rule['id']
                       ).status_code == 404
