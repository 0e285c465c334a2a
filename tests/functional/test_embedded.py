"""The embedded cloud through its REST APIs, as a user finds it."""

import requests

from nova_clone.deploy import seed_data


def test_compute_versions_document(cloud):
    resp = requests.get(cloud.urls['compute'].rsplit('/v2.1', 1)[0] + '/',
                        timeout=10)
    assert resp.status_code == 200
    versions = {v['id']: v for v in resp.json()['versions']}
    assert versions['v2.1']['status'] == 'CURRENT'
    assert versions['v2.1']['version'] == '2.104'
    assert versions['v2.1']['min_version'] == '2.1'


def test_json_accept_header_is_served(admin_api):
    # openstacksdk and the openstack CLI send Accept: application/json.
    for path in ('', '/flavors/detail', '/servers'):
        resp = admin_api.request('GET', path,
                                 headers={'Accept': 'application/json'})
        assert resp.status_code == 200, (path, resp.text)
        assert resp.headers['Content-Type'].startswith('application/json')


def test_compute_api_needs_a_token(cloud):
    resp = requests.get(cloud.urls['compute'] + '/servers', timeout=10)
    assert resp.status_code == 401


def test_catalog_names_every_service(cloud):
    resp = requests.post(cloud.urls['identity'] + '/v3/auth/tokens', json={
        'auth': {'identity': {'methods': ['password'], 'password': {
            'user': {'name': 'demo', 'domain': {'name': 'Default'},
                     'password': cloud.password}}},
            'scope': {'project': {'name': 'demo',
                                  'domain': {'name': 'Default'}}}}},
        timeout=10)
    assert resp.status_code == 201
    catalog = {s['type']: s['endpoints']
               for s in resp.json()['token']['catalog']}
    project_id = resp.json()['token']['project']['id']
    assert {'identity', 'compute', 'placement', 'image', 'network',
            'volumev3'} <= set(catalog)
    public = {t: [e['url'] for e in eps if e['interface'] == 'public'][0]
              for t, eps in catalog.items()}
    assert public['compute'] == cloud.urls['compute']
    assert public['volumev3'].endswith('/v3/%s' % project_id)


def test_flavors_are_seeded_as_devstack(demo_api):
    flavors = {f['name']: f for f in demo_api.get_flavors()}
    for name, flavorid, ram, disk, vcpus in seed_data.FLAVORS:
        flavor = flavors[name]
        assert (flavor['id'], flavor['ram'], flavor['disk'],
                flavor['vcpus']) == (flavorid, ram, disk, vcpus)


def test_image_is_seeded_public_and_small(demo_api):
    images = [i for i in demo_api.get_images()
              if i['name'] == seed_data.IMAGE_NAME]
    assert len(images) == 1
    image = images[0]
    assert image['status'] == 'active'
    assert image['visibility'] == 'public'
    assert image['size'] == seed_data.IMAGE_SIZE
    data = demo_api.request('GET', '/v2/images/%s/file' % image['id'],
                            base=demo_api.cloud.urls['image'], expected=200)
    assert data.content == seed_data.image_bytes()


def test_network_is_seeded_and_shared(demo_api, cloud):
    nets = [n for n in demo_api.get_networks()
            if n['name'] == seed_data.NETWORK_NAME]
    assert len(nets) == 1 and nets[0]['shared'] is True
    subnets = demo_api.request(
        'GET', '/v2.0/subnets', params={'network_id': nets[0]['id']},
        base=cloud.urls['network'], expected=200).json()['subnets']
    assert [s['cidr'] for s in subnets] == [seed_data.SUBNET_CIDR]


def test_every_service_reports_up(admin_api, cloud):
    services = admin_api.get('/os-services').json()['services']
    up = sorted((s['binary'], s['host']) for s in services
                if s['state'] == 'up' and s['status'] == 'enabled')
    expected = sorted(
        [('nova-conductor', 'super-conductor'),
         ('nova-conductor', 'cell1-conductor'),
         ('nova-scheduler', 'scheduler')] +
        [('nova-compute', host) for host in cloud.compute_hosts])
    assert up == expected


def test_computes_are_resource_providers(admin_api, cloud):
    resp = admin_api.request(
        'GET', '/resource_providers', base=cloud.urls['placement'],
        headers={'OpenStack-API-Version': 'placement 1.14'}, expected=200)
    names = {rp['name'] for rp in resp.json()['resource_providers']}
    assert set(cloud.compute_hosts) <= names


def test_boot_to_active_and_delete(demo_api, admin_api, cloud):
    server = demo_api.create_server(name='embedded-boot')
    assert server['status'] == 'ACTIVE'
    admin_view = admin_api.get_server(server['id'])
    host = admin_view['OS-EXT-SRV-ATTR:host']
    assert host in cloud.compute_hosts
    assert seed_data.NETWORK_NAME in server['addresses']

    event = demo_api.wait_for_instance_action_event(
        server['id'], 'create', 'compute__do_build_and_run_instance',
        'Success')
    assert event['finish_time']
    ports = admin_api.get_ports(device_id=server['id'])
    assert [p['binding:host_id'] for p in ports] == [host]
    allocations = admin_api.request(
        'GET', '/allocations/%s' % server['id'], base=cloud.urls['placement'],
        headers={'OpenStack-API-Version': 'placement 1.28'},
        expected=200).json()['allocations']
    assert len(allocations) == 1

    demo_api.delete_server_and_wait(server['id'])
    allocations = admin_api.request(
        'GET', '/allocations/%s' % server['id'], base=cloud.urls['placement'],
        headers={'OpenStack-API-Version': 'placement 1.28'},
        expected=200).json()['allocations']
    assert allocations == {}
    assert admin_api.get_ports(device_id=server['id']) == []


def test_another_compute_joins_and_takes_servers(cloud, admin_api):
    cloud.start_compute('compute-extra')
    try:
        hosts = {h['hypervisor_hostname']
                 for h in admin_api.get('/os-hypervisors').json()[
                     'hypervisors']}
        assert 'compute-extra' in hosts
        server = admin_api.create_server(
            name='on-extra', wait_for=None,
            availability_zone='nova:compute-extra')
        server = admin_api.wait_for_state(server['id'], 'ACTIVE')
        assert server['OS-EXT-SRV-ATTR:host'] == 'compute-extra'
        admin_api.delete_server_and_wait(server['id'])
    finally:
        cloud.stop_compute('compute-extra')
        # Retire it as an operator would, so other tests see two hosts.
        for svc in admin_api.get('/os-services', params={
                'host': 'compute-extra'}).json()['services']:
            admin_api.delete('/os-services/%s' % svc['id'], expected=204)


def test_neutron_vif_plugged_switch(cloud, admin_api):
    # On (the default): the bound port goes ACTIVE, Nova hears about it.
    server = admin_api.create_server(name='plugged')
    ports = admin_api.get_ports(device_id=server['id'])
    assert [p['status'] for p in ports] == ['ACTIVE']
    # Off: the port stays DOWN and no event comes; a non-fatal plug
    # timeout lets the boot finish anyway.
    with cloud.neutron_events(send_vif_plugged=False), \
            cloud.flags(vif_plugging_timeout=1, vif_plugging_is_fatal=False):
        quiet = admin_api.create_server(name='unplugged')
    ports = admin_api.get_ports(device_id=quiet['id'])
    assert [p['status'] for p in ports] == ['DOWN']
    assert cloud.cloud.neutron_app.send_vif_plugged is True
