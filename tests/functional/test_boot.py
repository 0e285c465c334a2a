"""Scenario 1 (boot) through the REST API of the in-process cloud.

Every service runs on its real code path (API, conductor, scheduler,
Placement, computes with the fake driver, the peers' stand-ins); the tests
look only at what a user or operator can see: the API, Placement, the
Neutron stand-in and, for where an instance lives, the cell mappings.
"""

import uuid

import pytest

from nova_clone import context as nova_context
from nova_clone.placement import client as report


def _allocations(server_id):
    client = report.SchedulerReportClient()
    return client.get_allocations_for_consumer(
        nova_context.get_admin_context(), server_id)


def _placed_on(server_id):
    """The compute host whose provider holds the server's allocation."""
    client = report.SchedulerReportClient()
    ctxt = nova_context.get_admin_context()
    allocs = client.get_allocations_for_consumer(ctxt, server_id)
    names = set()
    for rp_uuid in allocs:
        names.add(client.get('/resource_providers/%s' % rp_uuid,
                             version='1.14').json()['name'])
    return names


def _cell_of(server_id):
    from nova_clone import objects
    mapping = objects.InstanceMapping.get_by_instance_uuid(
        nova_context.get_admin_context(), server_id)
    return mapping.cell_mapping


def _events(api, server_id, action_name):
    actions = api.get_instance_actions(server_id, microversion='2.84')
    action = [a for a in actions if a['action'] == action_name][0]
    return api.get_instance_action_details(
        server_id, action['request_id'], microversion='2.84')['events']


def _unplaceable_flavor(admin_api):
    """A small flavor needing a trait no compute has."""
    name = 'flow-nowhere-%s' % uuid.uuid4().hex[:6]
    flavor = admin_api.post('/flavors', {'flavor': {
        'name': name, 'ram': 64, 'vcpus': 1, 'disk': 1}},
        expected=200).json()['flavor']
    admin_api.post('/flavors/%s/os-extra_specs' % flavor['id'],
                   {'extra_specs': {'trait:CUSTOM_FLOW_NOWHERE':
                                    'required'}}, expected=200)
    return flavor['id']


def test_boot_reaches_active_with_address_and_allocation(cloud, admin_api):
    server = admin_api.create_server()
    assert server['status'] == 'ACTIVE'
    assert server['OS-EXT-STS:vm_state'] == 'active'
    assert server['OS-EXT-STS:task_state'] is None
    host = server['OS-EXT-SRV-ATTR:host']
    assert host in cloud.compute_hosts
    addresses = [a['addr'] for net in server['addresses'].values()
                 for a in net]
    assert addresses, server['addresses']
    # The allocation is the flavor's, on exactly one provider.
    allocs = _allocations(server['id'])
    assert len(allocs) == 1
    (resources,) = [a['resources'] for a in allocs.values()]
    assert resources['VCPU'] >= 1 and resources['MEMORY_MB'] >= 1
    # The port is bound to the chosen host.
    ports = admin_api.get_ports(device_id=server['id'])
    assert ports and ports[0].get('binding:host_id') == host
    # The create action records the compute's build step.
    events = _events(admin_api, server['id'], 'create')
    assert any(e['event'] == 'compute__do_build_and_run_instance' and
               e['result'] == 'Success' for e in events), events


def test_list_detail_and_show_see_the_server(cloud, demo_api, admin_api):
    server = demo_api.create_server()
    listed = demo_api.get_servers(detail=False)
    assert server['id'] in [s['id'] for s in listed]
    detail = {s['id']: s for s in demo_api.get_servers()}
    assert detail[server['id']]['status'] == 'ACTIVE'
    assert demo_api.get_server(server['id'])['name'] == server['name']
    # Another project does not see it, not even by id.
    assert server['id'] not in [s['id'] for s in
                                admin_api.get_servers(detail=False)]
    resp = admin_api.request('GET', '/servers',
                             params={'all_tenants': 1})
    assert server['id'] in [s['id'] for s in resp.json()['servers']]


def test_build_request_is_visible_before_scheduling(cloud, demo_api):
    created = demo_api.create_server(wait_for=None)
    # Right after the 202 the server exists for the user, whatever stage
    # the build is in.
    shown = demo_api.get_server(created['id'])
    assert shown['status'] in ('BUILD', 'ACTIVE')
    demo_api.wait_for_state(created['id'], 'ACTIVE')


def test_no_valid_host_buries_the_server_in_cell0(cloud, admin_api):
    flavor_id = _unplaceable_flavor(admin_api)
    created = admin_api.create_server(flavor_id=flavor_id, wait_for=None)
    server = admin_api.wait_for_state(created['id'], 'ERROR')
    assert server['fault']['message'].startswith('No valid host was found.')
    assert server['OS-EXT-SRV-ATTR:host'] is None
    assert _cell_of(created['id']).is_cell0()
    assert _allocations(created['id']) == {}
    events = _events(admin_api, created['id'], 'create')
    assert [(e['event'], e['result']) for e in events] == [
        ('conductor_schedule_and_build_instances', 'Error')]
    # And it can be deleted like any other server.
    admin_api.delete_server_and_wait(created['id'])


def test_multi_create_spreads_over_hosts(cloud, admin_api):
    resp = admin_api.post('/servers', {'server': {
        'name': 'flow-multi', 'flavorRef': cloud.flavor_id,
        'imageRef': cloud.image_id,
        'networks': [{'uuid': cloud.network_id}],
        'min_count': 2, 'max_count': 2, 'return_reservation_id': True}},
        expected=202)
    reservation = resp.json()['reservation_id']
    servers = admin_api.get_servers(
        search_opts={'reservation_id': reservation})
    assert len(servers) == 2
    hosts = set()
    for s in servers:
        cloud.track_server(s['id'])
        admin_api.wait_for_state(s['id'], 'ACTIVE')
        hosts |= _placed_on(s['id'])
    assert hosts == set(cloud.compute_hosts)


def test_retryable_failure_reschedules_to_another_host(cloud, admin_api):
    failing, healthy = cloud.compute_hosts[0], cloud.compute_hosts[1]
    with cloud.flags(fail_spawn={failing: 'retryable'},
                     group='fake_driver'):
        servers = [admin_api.create_server(wait_for=None) for _ in range(2)]
        finals = [admin_api.wait_for_state(s['id'], 'ACTIVE')
                  for s in servers]
    for s in finals:
        assert _placed_on(s['id']) == {healthy}
    rescheduled = 0
    for s in finals:
        events = [e for e in _events(admin_api, s['id'], 'create')
                  if e['event'] == 'compute__do_build_and_run_instance']
        if failing in [e.get('host') for e in events]:
            rescheduled += 1
            # A build step per host: the failed one, then the good one.
            assert {e.get('host') for e in events} == {failing, healthy}
            last = max(events, key=lambda e: e['start_time'])
            assert (last.get('host'), last['result']) == (healthy,
                                                          'Success')
    assert rescheduled >= 1


def test_fatal_failure_puts_the_server_in_error(cloud, admin_api):
    hosts = {h: 'fatal' for h in cloud.compute_hosts}
    with cloud.flags(fail_spawn=hosts, group='fake_driver'):
        created = admin_api.create_server(wait_for=None)
        server = admin_api.wait_for_state(created['id'], 'ERROR')
    assert server['fault']['message']
    assert server['OS-EXT-STS:task_state'] is None
    assert _allocations(created['id']) == {}
    assert not _cell_of(created['id']).is_cell0()


@pytest.mark.parametrize('bad', [
    {'flavorRef': 'no-such-flavor'},
    {'imageRef': str(uuid.uuid4())},
    {'networks': [{'uuid': str(uuid.uuid4())}]},
    {'key_name': 'no-such-key'},
])
def test_bad_boot_requests_get_clean_errors(cloud, demo_api, bad):
    server = {'name': 'bad', 'flavorRef': cloud.flavor_id,
              'imageRef': cloud.image_id,
              'networks': [{'uuid': cloud.network_id}]}
    server.update(bad)
    resp = demo_api.request('POST', '/servers', {'server': server})
    assert resp.status_code in (400, 404), resp.text
    body = resp.json()
    (fault,) = body.values()
    assert fault['code'] == resp.status_code and fault['message']


def test_unknown_security_group_is_the_requests_400(cloud, demo_api):
    before = {s['id'] for s in demo_api.get_servers(detail=False)}
    resp = demo_api.request('POST', '/servers', {'server': {
        'name': 'bad-sg', 'flavorRef': cloud.flavor_id,
        'imageRef': cloud.image_id,
        'networks': [{'uuid': cloud.network_id}],
        'security_groups': [{'name': 'does_not_exist'}]}})
    assert resp.status_code == 400, resp.text
    assert resp.json()['badRequest']['message'] == (
        'Security group does_not_exist not found.')
    assert {s['id'] for s in demo_api.get_servers(detail=False)} == before
    # The project's default group is always there.
    server = demo_api.create_server(security_groups=[{'name': 'default'}])
    assert server['security_groups'] == [{'name': 'default'}]


def test_list_paging_with_limit_and_marker(cloud, demo_api):
    ids = {demo_api.create_server(wait_for=None)['id'] for _ in range(3)}
    for server_id in ids:
        demo_api.wait_for_state(server_id, 'ACTIVE')
    first = demo_api.get('/servers', params={'limit': 2}).json()
    assert len(first['servers']) == 2
    assert 'servers_links' in first
    marker = first['servers'][-1]['id']
    rest = demo_api.get('/servers', params={'marker': marker}).json()
    seen = [s['id'] for s in first['servers'] + rest['servers']]
    assert len(seen) == len(set(seen))
    assert ids <= set(seen)
    # Newest first, as Nova sorts by default (created_at desc).
    detail = demo_api.get_servers()
    created = [s['created'] for s in detail]
    assert created == sorted(created, reverse=True)
    resp = demo_api.request('GET', '/servers',
                            params={'marker': '00000000-0000-0000-0000-'
                                              '00000000abcd'})
    assert resp.status_code == 400
