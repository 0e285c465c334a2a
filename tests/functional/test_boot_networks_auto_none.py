"""Boot with "networks": "none" or "auto" (2.37), as
``openstack server create --nic none|auto`` sends them."""


def test_networks_none_boots_without_a_port(cloud, demo_api):
    server = demo_api.create_server(networks='none')
    assert server['status'] == 'ACTIVE'
    assert server['addresses'] == {}
    assert demo_api.get_ports(device_id=server['id']) == []


def test_networks_auto_uses_the_one_available_network(cloud, demo_api):
    server = demo_api.create_server(networks='auto')
    ports = demo_api.get_ports(device_id=server['id'])
    assert [p['network_id'] for p in ports] == [cloud.network_id]
    assert server['addresses']


def test_networks_none_is_a_2_37_value(cloud, demo_api):
    resp = demo_api.post('/servers', {'server': {
        'name': 'old', 'flavorRef': cloud.flavor_id,
        'imageRef': cloud.image_id, 'networks': 'none'}},
        expected=400, microversion='2.36')
    assert 'badRequest' in resp.json()
