"""Soft delete, restore, forceDelete and reclaim ([DEFAULT]
reclaim_instance_interval) through the REST API of the in-process
cloud."""

import time

from nova_clone.compute import power_state
from nova_clone import context as nova_context
from nova_clone.virt import fake


def _action(api, server_id, key, expected=202):
    return api.post('/servers/%s/action' % server_id, {key: None},
                    expected=expected)


def _guest(host, server_id):
    return fake.get_hypervisor(host).guests.get(server_id)


def test_soft_delete_restore_and_force_delete(cloud, admin_api):
    with cloud.flags(reclaim_instance_interval=3600):
        server = admin_api.create_server()
        sid = server['id']
        host = server['OS-EXT-SRV-ATTR:host']
        resp = _action(admin_api, sid, 'restore', expected=409)
        assert resp.json()['conflictingRequest']['message'] == (
            "Cannot 'restore' instance %s while it is in vm_state active"
            % sid)

        admin_api.delete_server(sid)
        server = admin_api.wait_for_state(sid, 'SOFT_DELETED',
                                          task_state=None)
        assert server['OS-EXT-STS:power_state'] == power_state.SHUTDOWN
        assert _guest(host, sid).state == power_state.SHUTDOWN
        # The ports and the allocation stay for a restore.
        assert admin_api.get_ports(device_id=sid)
        admin_api.wait_for_instance_action_event(
            sid, 'delete', 'compute_soft_delete_instance', 'Success')

        _action(admin_api, sid, 'restore')
        server = admin_api.wait_for_state(sid, 'ACTIVE', task_state=None)
        assert server['OS-EXT-STS:power_state'] == power_state.RUNNING
        admin_api.wait_for_instance_action_event(
            sid, 'restore', 'compute_restore_instance', 'Success')

        admin_api.delete_server(sid)
        admin_api.wait_for_state(sid, 'SOFT_DELETED', task_state=None)
        _action(admin_api, sid, 'forceDelete')
        admin_api.wait_until_deleted(sid)
        assert admin_api.get_ports(device_id=sid) == []
        assert _guest(host, sid) is None


def test_reclaim_of_old_soft_deleted_servers(cloud, admin_api):
    with cloud.flags(reclaim_instance_interval=3600):
        server = admin_api.create_server()
        sid = server['id']
        host = server['OS-EXT-SRV-ATTR:host']
        admin_api.delete_server(sid)
        admin_api.wait_for_state(sid, 'SOFT_DELETED', task_state=None)
    manager = cloud.compute_service(host).manager
    ctxt = nova_context.get_admin_context()
    # Not old enough yet: kept.
    with cloud.flags(reclaim_instance_interval=3600):
        manager._reclaim_queued_deletes(ctxt)
    assert admin_api.get_server(sid)['status'] == 'SOFT_DELETED'
    with cloud.flags(reclaim_instance_interval=1):
        time.sleep(1.5)
        manager._reclaim_queued_deletes(ctxt)
    admin_api.wait_until_deleted(sid)
    assert admin_api.get_ports(device_id=sid) == []
    assert _guest(host, sid) is None


def test_delete_of_a_server_that_never_ran_is_not_deferred(cloud,
                                                           admin_api):
    with cloud.flags(reclaim_instance_interval=3600), \
            cloud.flags(fail_spawn={h: 'fatal' for h in cloud.compute_hosts},
                        group='fake_driver'):
        server = admin_api.create_server(wait_for='ERROR')
        admin_api.delete_server(server['id'])
        admin_api.wait_until_deleted(server['id'])
