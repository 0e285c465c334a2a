"""nova-compute seen through the REST API of the in-process cloud.

The boot/delete scenario tests belong to the flow tests; these cover what
the compute decides: reschedule or abort, the VIF-plug wait, the image
cache, the hypervisor's usage and the teardown of a deleted server.  Where
a guest runs is read from the fake hypervisors themselves (what ``virsh
list`` would tell an operator).
"""

import os
import time

from nova_clone.compute.host import resource_tracker
from nova_clone.scheduler import host_manager
from nova_clone.virt import fake


def _hosts(cloud):
    hosts = cloud.compute_hosts
    return sorted(hosts() if callable(hosts) else hosts)


def _guest_host(cloud, server_id):
    found = [h for h in _hosts(cloud)
             if server_id in fake.get_hypervisor(h).guests]
    assert len(found) <= 1, found
    return found[0] if found else None


def _fault(server):
    return (server.get('fault') or {}).get('message', '')


def _hypervisor(api, hostname):
    for hyp in api.get('/os-hypervisors/detail',
                       microversion='2.87').json()['hypervisors']:
        if hyp['hypervisor_hostname'] == hostname:
            return hyp
    raise AssertionError('no hypervisor %s' % hostname)


def test_boot_records_the_compute_event_and_caches_the_image(cloud):
    api = cloud.admin_api
    server = api.create_server()
    host = _guest_host(cloud, server['id'])
    assert host is not None
    assert server['OS-EXT-STS:power_state'] == 1
    event = api.wait_for_instance_action_event(
        server['id'], 'create', 'compute__do_build_and_run_instance',
        'Success')
    assert event['host'] == host
    base = os.path.join(cloud.state_dir, 'instances', '_base')
    assert cloud.image_id in os.listdir(base)
    ports = api.get_ports(device_id=server['id'])
    assert ports and {p['binding:host_id'] for p in ports} == {host}
    # The node record follows the claim within the tracker's save interval.
    deadline = time.monotonic() + resource_tracker.NODE_SAVE_INTERVAL + 5
    while _hypervisor(api, host)['running_vms'] < 1:
        assert time.monotonic() < deadline, 'running_vms never counted it'
        time.sleep(0.1)


def test_retryable_spawn_failure_lands_on_the_other_host(cloud):
    bad, good = _hosts(cloud)[:2]
    api = cloud.admin_api
    with cloud.flags(fail_spawn={bad: 'retryable'}, group='fake_driver'):
        servers = [api.create_server(wait_for=None) for _ in range(3)]
        for created in servers:
            api.wait_for_state(created['id'], 'ACTIVE')
            assert _guest_host(cloud, created['id']) == good
            # The failed host gave its ports back to the next one.
            ports = api.get_ports(device_id=created['id'])
            assert {p['binding:host_id'] for p in ports} == {good}


def test_fatal_spawn_failure_is_an_error_with_a_fault(cloud):
    api = cloud.admin_api
    fail = {host: 'fatal' for host in _hosts(cloud)}
    with cloud.flags(fail_spawn=fail, group='fake_driver'):
        created = api.create_server(wait_for=None)
        server = api.wait_for_state(created['id'], 'ERROR')
    assert 'fail_spawn=fatal' in _fault(server)
    assert server['OS-EXT-STS:task_state'] is None
    # Nothing of it is left on a hypervisor or in Neutron.
    assert _guest_host(cloud, server['id']) is None
    assert api.get_ports(device_id=server['id']) == []


def test_missing_vif_plugged_event_times_out_into_error(cloud):
    api = cloud.admin_api
    with cloud.neutron_events(send_vif_plugged=False), \
            cloud.flags(vif_plugging_timeout=1):
        created = api.create_server(wait_for=None)
        server = api.wait_for_state(created['id'], 'ERROR')
    assert _fault(server) == (
        'Build of instance %s aborted: Failed to allocate the network(s), '
        'not rescheduling.' % server['id'])
    assert _guest_host(cloud, server['id']) is None


def test_missing_vif_event_is_tolerated_when_not_fatal(cloud):
    api = cloud.admin_api
    with cloud.neutron_events(send_vif_plugged=False), \
            cloud.flags(vif_plugging_timeout=1, vif_plugging_is_fatal=False):
        server = api.create_server()
    assert server['status'] == 'ACTIVE'


def test_delete_frees_the_guest_and_the_ports(cloud):
    api = cloud.admin_api
    server = api.create_server()
    assert _guest_host(cloud, server['id']) is not None
    api.delete_server_and_wait(server['id'])
    assert _guest_host(cloud, server['id']) is None
    assert api.get_ports(device_id=server['id']) == []


def test_delete_unbinds_a_user_port_and_keeps_it(cloud):
    api = cloud.demo_api
    port = api.request(
        'POST', '/v2.0/ports', {'port': {'network_id': cloud.network_id}},
        base=cloud.urls['network'], expected=201).json()['port']
    server = api.create_server(networks=[{'port': port['id']}])
    host = _guest_host(cloud, server['id'])
    # binding:host_id is an admin-only attribute in Neutron.
    admin = cloud.admin_api
    bound = admin.request('GET', '/v2.0/ports/%s' % port['id'],
                        base=cloud.urls['network'], expected=200).json()[
        'port']
    assert (bound['device_id'], bound['binding:host_id']) == (server['id'],
                                                              host)
    api.delete_server_and_wait(server['id'])
    kept = admin.request('GET', '/v2.0/ports/%s' % port['id'],
                       base=cloud.urls['network'], expected=200).json()[
        'port']
    assert kept['device_id'] == ''
    assert not kept['binding:host_id']
    api.request('DELETE', '/v2.0/ports/%s' % port['id'],
                base=cloud.urls['network'], expected=204)


def _volume_api(cloud, api, method, path, body=None, expected=None):
    base = cloud.urls['volumev3'].replace('%(project_id)s', api.project_id)
    return api.request(method, path, body, base=base, expected=expected)


def _wait_volume(cloud, api, volume_id, status, timeout=20):
    import time
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        resp = _volume_api(cloud, api, 'GET', '/volumes/%s' % volume_id)
        if resp.status_code == 404 and status is None:
            return None
        if resp.status_code == 200 and \
                resp.json()['volume']['status'] == status:
            return resp.json()['volume']
        time.sleep(0.05)
    raise AssertionError('volume %s not %s' % (volume_id, status))


def test_boot_from_volume_attaches_it_and_delete_removes_it(cloud):
    api = cloud.demo_api
    volume = _volume_api(cloud, api, 'POST', '/volumes', {'volume': {
        'size': 1, 'imageRef': cloud.image_id}}, expected=202).json()[
        'volume']
    _wait_volume(cloud, api, volume['id'], 'available')
    server = api.create_server(imageRef='', block_device_mapping_v2=[{
        'uuid': volume['id'], 'source_type': 'volume',
        'destination_type': 'volume', 'boot_index': 0,
        'delete_on_termination': True}])
    host = _guest_host(cloud, server['id'])
    attached = _wait_volume(cloud, api, volume['id'], 'in-use')
    assert [a['server_id'] for a in attached['attachments']] == [
        server['id']]
    assert fake.get_hypervisor(host).guests[server['id']].volumes
    api.delete_server_and_wait(server['id'])
    _wait_volume(cloud, api, volume['id'], None)


def test_boot_from_image_to_a_new_volume(cloud):
    api = cloud.demo_api
    server = api.create_server(imageRef='', block_device_mapping_v2=[{
        'uuid': cloud.image_id, 'source_type': 'image',
        'destination_type': 'volume', 'volume_size': 1, 'boot_index': 0,
        'delete_on_termination': True}])
    volumes = _volume_api(cloud, api, 'GET', '/volumes/detail',
                          expected=200).json()['volumes']
    mine = [v for v in volumes
            if any(a.get('server_id') == server['id']
                   for a in v.get('attachments') or [])]
    assert len(mine) == 1 and mine[0]['status'] == 'in-use'
    assert mine[0]['size'] == 1
    volume_id = mine[0]['id']
    api.delete_server_and_wait(server['id'])
    _wait_volume(cloud, api, volume_id, None)


def test_guest_of_an_instance_deleted_behind_its_back_is_reaped(cloud):
    from nova_clone import context as nova_context
    from nova_clone import objects
    api = cloud.admin_api
    server = api.create_server()
    host = _guest_host(cloud, server['id'])
    # The record goes away while the compute is not told (as after a
    # local delete with the compute unreachable).
    ctxt = nova_context.get_admin_context()
    cell1 = [c for c in cloud.cloud.cell_mappings.values()
             if not c.is_cell0()][0]
    with nova_context.target_cell(ctxt, cell1) as cctxt:
        objects.Instance.get_by_uuid(cctxt, server['id']).destroy()
    assert _guest_host(cloud, server['id']) == host
    manager = cloud.cloud.computes[host].manager
    with cloud.flags(running_deleted_instance_action='reap',
                     running_deleted_instance_timeout=0):
        manager._cleanup_running_deleted_instances(
            nova_context.get_admin_context())
    assert _guest_host(cloud, server['id']) is None
    assert api.get_ports(device_id=server['id']) == []


def _provider_traits(hostname):
    from nova_clone.placement import client as report
    client = report.SchedulerReportClient()
    rps = client.get('/resource_providers?name=%s' % hostname,
                     version='1.14').json()['resource_providers']
    assert len(rps) == 1, rps
    return set(client.get('/resource_providers/%s/traits' % rps[0]['uuid'],
                          version='1.6').json()['traits'])


def _settled(api, server_id, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        server = api.get_server(server_id)
        if server['status'] != 'BUILD':
            return server
        time.sleep(0.1)
    raise AssertionError('server %s still in BUILD' % server_id)


def _compute_service(api, host):
    services = api.get('/os-services', params={
        'host': host, 'binary': 'nova-compute'},
        microversion='2.53').json()['services']
    assert len(services) == 1, services
    return services[0]


def test_disabling_and_enabling_a_compute_reaches_placement_at_once(cloud):
    api = cloud.admin_api
    host = _hosts(cloud)[0]
    service = _compute_service(api, host)
    api.put('/os-services/%s' % service['id'], {'status': 'disabled'},
            microversion='2.53', expected=200)
    assert 'COMPUTE_STATUS_DISABLED' in _provider_traits(host)
    api.put('/os-services/%s' % service['id'], {'status': 'enabled'},
            microversion='2.53', expected=200)
    # Not left for the compute's periodic run: the scheduler, which asks
    # Placement for hosts without the trait, can use the host right away.
    assert 'COMPUTE_STATUS_DISABLED' not in _provider_traits(host)
    # The other hosts fail (and reschedule): only this one can take it.
    with cloud.flags(fail_spawn={h: 'retryable' for h in _hosts(cloud)
                                 if h != host}, group='fake_driver'):
        server = api.create_server()
    assert _guest_host(cloud, server['id']) == host


def test_a_host_whose_builds_fail_is_avoided_but_stays_enabled(cloud):
    api = cloud.admin_api
    bad = _hosts(cloud)[0]
    with cloud.flags(fail_spawn={bad: 'fatal'}, group='fake_driver'):
        # Until one build has failed on it, the host gets its share.
        for _ in range(len(_hosts(cloud)) + 1):
            created = api.create_server(wait_for=None)
            server = _settled(api, created['id'])
            if server['status'] == 'ERROR':
                break
        assert server['status'] == 'ERROR'
    # Healed, but its last build failed: once the scheduler's cached view
    # of the nodes has been refreshed, every new server goes elsewhere (the
    # BuildFailureWeigher), and the service was not disabled.
    time.sleep(host_manager.HOST_STATE_TTL + 0.5)
    for _ in range(3):
        server = api.create_server()
        assert _guest_host(cloud, server['id']) != bad
    assert _compute_service(api, bad)['status'] == 'enabled'
