"""The Neutron proxies of the compute API (to 2.35): os-networks,
os-tenant-networks, os-security-groups(-rules), os-floating-ips,
os-floating-ip-pools, and addFloatingIp/removeFloatingIp (to 2.43)."""

import time
import uuid

import pytest

from tests.functional.api import samples

V = '2.35'


def _neutron(api, method, path, body=None, expected=(200, 201, 204)):
    return api.request(method, path, body, base=api.cloud.urls['network'],
                       expected=expected)


@pytest.fixture
def public(cloud, admin_api):
    """An external network (with an IPv4 subnet)."""
    name = 'public-%s' % uuid.uuid4().hex[:6]
    net = _neutron(admin_api, 'POST', '/v2.0/networks', {'network': {
        'name': name, 'router:external': True}}).json()['network']
    _neutron(admin_api, 'POST', '/v2.0/subnets', {'subnet': {
        'network_id': net['id'], 'cidr': '172.24.4.0/24',
        'ip_version': 4}})
    yield net
    _neutron(admin_api, 'DELETE', '/v2.0/networks/%s' % net['id'])


def test_networks_read_only(cloud, demo_api, admin_api):
    nets = demo_api.get('/os-networks', microversion=V).json()['networks']
    assert nets and all(n['cidr'] is None for n in nets)
    assert 'project_id' not in nets[0]
    shown = admin_api.get('/os-networks/%s' % nets[0]['id'],
                          microversion=V).json()
    assert shown['network']['label'] == nets[0]['label']
    samples.assert_matches('os-networks/network-show-resp.json', shown)
    assert demo_api.request('GET', '/os-networks/%s' % uuid.uuid4(),
                            microversion=V).status_code == 404
    assert demo_api.request('GET', '/os-networks',
                            microversion='2.36').status_code == 404
    for method, path in (('POST', '/os-networks'),
                         ('POST', '/os-networks/add'),
                         ('DELETE', '/os-networks/%s' % nets[0]['id']),
                         ('POST', '/os-networks/x/action'),
                         ('POST', '/os-tenant-networks')):
        assert admin_api.request(method, path, {}, microversion=V
                                 ).status_code == 410, (method, path)


def test_tenant_networks(cloud, demo_api):
    nets = demo_api.get('/os-tenant-networks', microversion=V).json()
    samples.assert_matches('os-tenant-networks/networks-list-res.json',
                           nets)
    first = nets['networks'][0]
    shown = demo_api.get('/os-tenant-networks/%s' % first['id'],
                         microversion=V).json()
    assert shown == {'network': first}


def test_security_groups_and_rules(cloud, demo_api):
    created = demo_api.post('/os-security-groups', samples.load(
        'os-security-groups/security-group-post-req.json'),
        microversion=V, expected=200).json()
    samples.assert_matches('os-security-groups/security-groups-create-resp'
                           '.json', created)
    group = created['security_group']
    assert group['rules'] == []
    body = samples.load('os-security-groups/security-group-rules-post-req'
                        '.json')
    body['security_group_rule']['parent_group_id'] = group['id']
    rule = demo_api.post('/os-security-group-rules', body, microversion=V,
                         expected=200).json()
    samples.assert_matches('os-security-groups/security-group-rules-post-'
                           'resp.json', rule)
    assert rule['security_group_rule']['ip_range'] == {
        'cidr': '10.0.0.0/24'}
    again = demo_api.request('POST', '/os-security-group-rules', body,
                             microversion=V)
    assert again.status_code == 400
    bad = dict(body['security_group_rule'], from_port=30, to_port=20)
    assert demo_api.request('POST', '/os-security-group-rules', {
        'security_group_rule': bad}, microversion=V).status_code == 400
    shown = demo_api.get('/os-security-groups/%s' % group['id'],
                         microversion=V).json()
    assert [r['id'] for r in shown['security_group']['rules']] == [
        rule['security_group_rule']['id']]
    samples.assert_matches('os-security-groups/security-groups-get-resp'
                           '.json', shown, free=('security_group.rules',))
    listed = demo_api.get('/os-security-groups', microversion=V).json()
    assert group['id'] in [g['id'] for g in listed['security_groups']]
    updated = demo_api.put('/os-security-groups/%s' % group['id'], {
        'security_group': {'name': 'renamed', 'description': 'd'}},
        microversion=V, expected=200).json()
    assert updated['security_group']['name'] == 'renamed'
    assert demo_api.request(
        'DELETE', '/os-security-group-rules/%s'
        % rule['security_group_rule']['id'], microversion=V
    ).status_code == 202
    assert demo_api.request('DELETE', '/os-security-groups/%s'
                            % group['id'], microversion=V).status_code == 202
    assert demo_api.request('GET', '/os-security-groups/%s' % group['id'],
                            microversion=V).status_code == 404
    assert demo_api.request('POST', '/os-security-groups', {
        'security_group': {'name': ''}}, microversion=V).status_code == 400


def test_security_group_rules_of_a_peer_group(cloud, demo_api):
    def group(name):
        return demo_api.post('/os-security-groups', {'security_group': {
            'name': name, 'description': ''}}, microversion=V,
            expected=200).json()['security_group']

    def rule(**values):
        body = dict({'ip_protocol': 'tcp', 'from_port': 22,
                     'to_port': 22}, **values)
        return demo_api.request('POST', '/os-security-group-rules',
                                {'security_group_rule': body},
                                microversion=V)

    first, peer = group('first'), group('peer')
    created = rule(parent_group_id=first['id'], group_id=peer['id'])
    assert created.status_code == 200, created.text
    assert created.json()['security_group_rule']['group'] == {
        'name': 'peer', 'tenant_id': demo_api.project_id}
    # The rule that lets the peer in goes with the peer.
    assert demo_api.request('DELETE', '/os-security-groups/%s' % peer['id'],
                            microversion=V).status_code == 202
    assert demo_api.get('/os-security-groups/%s' % first['id'],
                        microversion=V).json()['security_group'][
        'rules'] == []
    # Ids that cannot be Neutron's are the client's mistake.
    refused = rule(parent_group_id='not-a-uuid')
    assert refused.status_code == 400
    assert refused.json()['badRequest']['message'] == (
        'Security group id should be uuid')
    assert demo_api.request('GET', '/os-security-groups/not-a-uuid',
                            microversion=V).status_code == 400
    assert demo_api.request('GET', '/os-security-groups',
                            microversion='2.36').status_code == 404


def test_server_security_groups(cloud, demo_api):
    server = demo_api.create_server()
    groups = demo_api.get('/servers/%s/os-security-groups' % server['id']
                          ).json()
    assert [g['name'] for g in groups['security_groups']] == ['default']
    samples.assert_matches('os-security-groups/server-security-groups-list'
                           '-resp.json', groups,
                           free=('security_groups[].rules',))


def test_floating_ips_and_actions(cloud, demo_api, admin_api, public):
    pools = demo_api.get('/os-floating-ip-pools', microversion=V).json()
    assert {'name': public['name']} in pools['floating_ip_pools']
    missing = demo_api.request('POST', '/os-floating-ips',
                               {'pool': 'no-such-pool'}, microversion=V)
    assert missing.status_code == 404
    fip = demo_api.post('/os-floating-ips', {'pool': public['name']},
                        microversion=V, expected=200).json()
    samples.assert_matches('os-floating-ips/floating-ips-get-resp.json',
                           fip)
    fip = fip['floating_ip']
    assert fip['pool'] == public['name'] and fip['instance_id'] is None
    listed = demo_api.get('/os-floating-ips', microversion=V).json()
    assert fip['id'] in [f['id'] for f in listed['floating_ips']]

    server = demo_api.create_server()
    # Reachable only through a router from the server's subnet.
    port = demo_api.get_ports(device_id=server['id'])[0]
    subnet = port['fixed_ips'][0]['subnet_id']
    router = _neutron(demo_api, 'POST', '/v2.0/routers', {'router': {
        'name': 'r', 'external_gateway_info': {
            'network_id': public['id']}}}).json()['router']
    _neutron(demo_api, 'PUT', '/v2.0/routers/%s/add_router_interface'
             % router['id'], {'subnet_id': subnet})
    action = '/servers/%s/action' % server['id']
    assert demo_api.request('POST', action, {'addFloatingIp': {
        'address': fip['ip']}}, microversion='2.43').status_code == 202
    shown = demo_api.get('/os-floating-ips/%s' % fip['id'],
                         microversion=V).json()['floating_ip']
    assert shown['instance_id'] == server['id']
    assert shown['fixed_ip'] == port['fixed_ips'][0]['ip_address']
    # Neutron's network-changed refreshes the server's addresses.
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        addresses = demo_api.get_server(server['id'])['addresses']
        kinds = {(a['addr'], a['OS-EXT-IPS:type'])
                 for addrs in addresses.values() for a in addrs}
        if (fip['ip'], 'floating') in kinds:
            break
        time.sleep(0.2)
    assert (fip['ip'], 'floating') in kinds, addresses
    assert demo_api.request('POST', action, {'addFloatingIp': {
        'address': fip['ip']}}, microversion='2.44').status_code == 400
    # Added to another server, an associated floating IP moves there.
    other = demo_api.create_server()
    other_action = '/servers/%s/action' % other['id']
    assert demo_api.request('POST', other_action, {'addFloatingIp': {
        'address': fip['ip']}}, microversion='2.43').status_code == 202
    assert demo_api.get('/os-floating-ips/%s' % fip['id'], microversion=V
                        ).json()['floating_ip']['instance_id'] == other['id']
    assert demo_api.request('POST', action, {'removeFloatingIp': {
        'address': fip['ip']}}, microversion='2.43').status_code == 409
    assert demo_api.request('POST', other_action, {'removeFloatingIp': {
        'address': fip['ip']}}, microversion='2.43').status_code == 202
    assert demo_api.request('POST', other_action, {'removeFloatingIp': {
        'address': fip['ip']}}, microversion='2.43').status_code == 409
    assert demo_api.request('POST', action, {'removeFloatingIp': {
        'address': '203.0.113.9'}}, microversion='2.43').status_code == 404
    assert demo_api.request('DELETE', '/os-floating-ips/%s' % fip['id'],
                            microversion=V).status_code == 202
    assert demo_api.request('GET', '/os-floating-ips/%s' % fip['id'],
                            microversion=V).status_code == 404
    _neutron(demo_api, 'PUT', '/v2.0/routers/%s/remove_router_interface'
             % router['id'], {'subnet_id': subnet})
    _neutron(demo_api, 'DELETE', '/v2.0/routers/%s' % router['id'])


def _wait_for_ips(api, server_id, count, timeout=15):
    deadline = time.monotonic() + timeout
    while True:
        ips = [ip['ip_address'] for p in api.get_ports(device_id=server_id)
               for ip in p['fixed_ips']]
        if len(ips) == count or time.monotonic() > deadline:
            return ips
        time.sleep(0.2)


def test_add_and_remove_fixed_ip(cloud, demo_api):
    server = demo_api.create_server()
    port = demo_api.get_ports(device_id=server['id'])[0]
    action = '/servers/%s/action' % server['id']
    assert demo_api.request('POST', action, {'addFixedIp': {
        'networkId': port['network_id']}}, microversion='2.43'
    ).status_code == 202
    ips = _wait_for_ips(demo_api, server['id'], 2)
    assert len(ips) == 2, ips
    extra = [ip for ip in ips
             if ip != port['fixed_ips'][0]['ip_address']][0]
    assert demo_api.request('POST', action, {'removeFixedIp': {
        'address': extra}}, microversion='2.43').status_code == 202
    assert _wait_for_ips(demo_api, server['id'], 1) == [
        port['fixed_ips'][0]['ip_address']]
    assert demo_api.request('POST', action, {'addFixedIp': {
        'networkId': port['network_id']}}, microversion='2.44'
    ).status_code == 400
    assert demo_api.request('POST', action, {'removeFixedIp': {
        'address': 'not-an-ip'}}, microversion='2.43').status_code == 400
