"""evacuate through the REST API of the in-process cloud: a server whose
host is forced down is rebuilt on the other host; the old host, when it
comes back, removes its guest and the allocation left there."""

from nova_clone.compute.host import startup
from nova_clone import context as nova_context
from nova_clone import objects
from nova_clone.placement import client as report
from nova_clone.virt import fake
from tests.functional.test_delete import _compute_forced_down


def _evacuate(api, server_id, body, expected=200, microversion='2.95'):
    return api.post('/servers/%s/action' % server_id, {'evacuate': body},
                    expected=expected, microversion=microversion)


def _migration(server_id):
    ctxt = nova_context.get_admin_context()
    mapping = objects.InstanceMapping.get_by_instance_uuid(ctxt, server_id)
    with nova_context.target_cell(ctxt, mapping.cell_mapping) as cctxt:
        found = objects.MigrationList.get_by_filters(
            cctxt, {'instance_uuid': server_id,
                    'migration_type': 'evacuation'})
        assert len(found) == 1
        return found[0]


def _allocated_hosts(cloud, consumer):
    allocations = report.SchedulerReportClient().get_allocations_for_consumer(
        nova_context.get_admin_context(), consumer)
    names = {}
    for host in cloud.compute_hosts:
        rt = cloud.compute_service(host).manager.rt
        for node in rt.compute_nodes.values():
            names[node.uuid] = host
    return sorted(names.get(rp, rp) for rp in allocations)


def test_evacuate_from_a_host_forced_down(cloud, admin_api, demo_api):
    server = demo_api.create_server()
    sid = server['id']
    source = admin_api.get_server(sid)['OS-EXT-SRV-ATTR:host']
    dest = [h for h in cloud.compute_hosts if h != source][0]

    resp = _evacuate(admin_api, sid, {}, expected=400)
    assert resp.json()['badRequest']['message'] == (
        'Compute service of %s is still in use.' % source)
    _evacuate(demo_api, sid, {}, expected=403)

    with _compute_forced_down(source):
        _evacuate(admin_api, sid, {'host': source}, expected=400)
        _evacuate(admin_api, sid, {'host': 'nowhere'}, expected=404)
        resp = _evacuate(admin_api, sid, {})
        assert resp.text == ''
        # 2.95: the evacuated server ends stopped, on the other host.
        server = admin_api.wait_for_state(sid, 'SHUTOFF', task_state=None)
        assert server['OS-EXT-SRV-ATTR:host'] == dest
        assert sid in fake.get_hypervisor(dest).guests
        ports = admin_api.get_ports(device_id=sid)
        assert [p['binding:host_id'] for p in ports] == [dest]
        for event in ('rebuild_server', 'compute_rebuild_instance'):
            admin_api.wait_for_instance_action_event(
                sid, 'evacuate', event, 'Success')
        migration = _migration(sid)
        assert (migration.status, migration.source_compute,
                migration.dest_compute) == ('done', source, dest)
        assert _allocated_hosts(cloud, sid) == [dest]
        assert _allocated_hosts(cloud, migration.uuid) == [source]

    # The old host comes back: its guest and allocation go.
    assert sid in fake.get_hypervisor(source).guests
    collab = cloud.compute_service(source).manager.collaborators
    startup.destroy_evacuated_instances(collab,
                                        nova_context.get_admin_context())
    assert sid not in fake.get_hypervisor(source).guests
    assert _migration(sid).status == 'completed'
    assert _allocated_hosts(cloud, migration.uuid) == []


def test_evacuate_before_2_14_answers_the_password(cloud, admin_api):
    server = admin_api.create_server()
    sid = server['id']
    source = server['OS-EXT-SRV-ATTR:host']
    with _compute_forced_down(source):
        _evacuate(admin_api, sid, {'onSharedStorage': True,
                                   'adminPass': 'x'}, expected=400,
                  microversion='2.13')
        resp = _evacuate(admin_api, sid, {'onSharedStorage': False,
                                          'adminPass': 'evac-pass'},
                         microversion='2.13')
        assert resp.json() == {'adminPass': 'evac-pass'}
        server = admin_api.wait_for_state(sid, 'ACTIVE', task_state=None)
        assert server['OS-EXT-SRV-ATTR:host'] != source
    collab = cloud.compute_service(source).manager.collaborators
    startup.destroy_evacuated_instances(collab,
                                        nova_context.get_admin_context())
