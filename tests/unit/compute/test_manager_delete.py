"""terminate_instance, start-up recovery and the periodic tasks."""

import threading
import time

from oslo_utils import timeutils

from nova_clone.compute import power_state
from tests.unit.compute import fakes


def _active(c, ctxt, bdms=None):
    c.network.active = True
    inst = c.new_instance()
    c.reportclient.allocations[inst.uuid] = {'rp': {}}
    c.build(ctxt, inst, bdms=bdms)
    assert inst.vm_state == 'active'
    return inst


def test_delete_tears_everything_down(compute, ctxt, fake_objects,
                                      notifications):
    c = compute()
    keep = fakes.FakeBDM(volume_id='vol-keep', boot_index=0)
    gone = fakes.FakeBDM(volume_id='vol-gone', boot_index=None,
                         delete_on_termination=True)
    inst = _active(c, ctxt, bdms=[keep, gone])
    inst.task_state = inst.db_task_state = 'deleting'
    c.manager.terminate_instance(ctxt, inst, [keep, gone])
    assert inst.destroyed
    assert (inst.vm_state, inst.task_state) == ('deleted', None)
    assert inst.power_state == power_state.NOSTATE
    assert inst.terminated_at is not None
    assert c.manager.driver.list_instance_uuids() == []
    assert c.network.deallocated == [inst.uuid]
    assert c.volumes.attachments == {}
    assert c.volumes.deleted_volumes == ['vol-gone']
    assert c.reportclient.deleted_allocations == [inst.uuid]
    assert ('compute_terminate_instance', 'Success') in \
        fake_objects.events_for(inst.uuid)
    assert [n[2] for n in notifications][-2:] == [
        'instance.delete.start', 'instance.delete.end']
    assert c.manager.rt.compute_nodes['host1'].running_vms == 0


def test_delete_empties_the_network_cache_with_its_deleted_save(
        compute, ctxt):
    c = compute()
    inst = _active(c, ctxt)
    inst.info_cache.network_info = c.network.allocated[inst.uuid]
    writes = inst.info_cache.saves
    stored = []
    save = inst.save

    def save_and_record(**kwargs):
        stored.append((inst.vm_state, list(inst.info_cache.network_info)))
        return save(**kwargs)
    inst.save = save_and_record
    inst.task_state = inst.db_task_state = 'deleting'
    c.manager.terminate_instance(ctxt, inst, [])
    # No cache write of its own: the DELETED save carries the empty list.
    assert inst.info_cache.saves == writes
    assert stored == [('deleted', [])]


def test_delete_loads_bdms_when_not_given(compute, ctxt, fake_objects):
    c = compute()
    inst = _active(c, ctxt)
    bdm = fakes.FakeBDM(volume_id='v', delete_on_termination=True)
    fake_objects.bdms[inst.uuid] = [bdm]
    c.manager.terminate_instance(ctxt, inst, None)
    assert c.volumes.deleted_volumes == ['v']


def test_failed_delete_leaves_error_and_a_fault(compute, ctxt,
                                                fake_objects):
    c = compute()
    inst = _active(c, ctxt)

    def broken(*a, **k):
        raise RuntimeError('placement said no')
    c.reportclient.delete_allocation_for_instance = broken
    try:
        c.manager.terminate_instance(ctxt, inst, [])
    except RuntimeError:
        pass
    else:
        raise AssertionError('the failure must reach the caller')
    assert not inst.destroyed
    assert inst.vm_state == 'error'
    assert fake_objects.faults[-1].message == 'RuntimeError'
    assert fake_objects.events_for(inst.uuid)[-1] == (
        'compute_terminate_instance', 'Error')


def test_delete_during_vif_wait_does_not_wait_for_the_timeout(compute, ctxt,
                                                              conf,
                                                              fake_objects):
    conf.set_override('vif_plugging_timeout', 30)
    c = compute()
    inst = c.new_instance()
    c.build(ctxt, inst, wait=False)
    end = time.monotonic() + 5
    while inst.task_state != 'spawning' or \
            not c.manager.driver.list_instance_uuids():
        assert time.monotonic() < end
        time.sleep(0.01)
    inst.db_task_state = 'deleting'
    start = time.monotonic()
    t = threading.Thread(target=c.manager.terminate_instance,
                         args=(ctxt, inst, []))
    t.start()
    t.join(10)
    assert c.manager.wait_for_builds(5)
    assert time.monotonic() - start < 5
    assert inst.destroyed and inst.vm_state == 'deleted'
    assert c.manager.driver.list_instance_uuids() == []
    assert fake_objects.faults == []


def test_restart_fails_interrupted_builds_and_finishes_deletes(
        compute, ctxt, fake_objects):
    first = compute()
    building = first.new_instance(vm_state='building',
                                  task_state='spawning')
    deleting = _active(first, ctxt)
    deleting.task_state = deleting.db_task_state = 'deleting'
    second = compute()   # the same host, restarted
    assert (building.vm_state, building.task_state) == ('error', None)
    assert deleting.destroyed
    assert second.manager.driver.list_instance_uuids() == []


def test_guest_of_a_deleted_instance_is_reaped(compute, ctxt, conf):
    conf.set_override('running_deleted_instance_action', 'reap')
    conf.set_override('running_deleted_instance_timeout', 0)
    c = compute()
    inst = _active(c, ctxt)
    inst.deleted = True
    inst.deleted_at = timeutils.utcnow()
    c.manager._cleanup_running_deleted_instances(ctxt)
    assert c.manager.driver.list_instance_uuids() == []
    assert c.network.deallocated == [inst.uuid]


def test_running_deleted_log_and_shutdown_actions(compute, ctxt, conf):
    c = compute()
    inst = _active(c, ctxt)
    inst.deleted = True
    conf.set_override('running_deleted_instance_action', 'log')
    c.manager._cleanup_running_deleted_instances(ctxt)
    assert c.manager.driver.get_info(inst).state == power_state.RUNNING
    conf.set_override('running_deleted_instance_action', 'shutdown')
    c.manager._cleanup_running_deleted_instances(ctxt)
    assert c.manager.driver.get_info(inst).state == power_state.SHUTDOWN
    conf.clear_override('running_deleted_instance_action')


def test_recently_deleted_guest_is_left_until_the_timeout(compute, ctxt,
                                                          conf):
    conf.set_override('running_deleted_instance_timeout', 3600)
    c = compute()
    inst = _active(c, ctxt)
    inst.deleted = True
    inst.deleted_at = timeutils.utcnow()
    c.manager._cleanup_running_deleted_instances(ctxt)
    assert c.manager.driver.list_instance_uuids() == [inst.uuid]
    conf.clear_override('running_deleted_instance_timeout')


def test_power_sync_stops_a_guest_that_stopped(compute, ctxt, monkeypatch):
    from nova_clone.compute.host import periodic
    c = compute()
    inst = _active(c, ctxt)
    stops = []

    def force_stop(rpcapi, context, instance):
        # The API's stop, cast back to this host.
        stops.append(instance.uuid)
        instance.task_state = 'powering-off'
        c.manager.stop_instance(context, instance)

    monkeypatch.setattr(periodic.api_power, 'force_stop', force_stop)
    c.manager.driver.power_off(inst)
    c.manager._sync_power_states(ctxt)
    assert stops == [inst.uuid]
    assert inst.power_state == power_state.SHUTDOWN
    assert (inst.vm_state, inst.task_state) == ('stopped', None)
    # Stopped and shut down: nothing more to do.
    c.manager._sync_power_states(ctxt)
    assert stops == [inst.uuid]


def test_periodic_intervals_follow_the_configuration(compute, conf):
    conf.set_override('running_deleted_instance_poll_interval', 0)
    conf.set_override('sync_power_state_interval', 17)
    try:
        c = compute()
        names = [n for n, _ in c.manager._periodic_tasks]
        assert '_cleanup_running_deleted_instances' not in names
        assert c.manager._periodic_spacing['_sync_power_states'] == 17
        assert 'update_available_resource' in names
    finally:
        conf.clear_override('running_deleted_instance_poll_interval')
        conf.clear_override('sync_power_state_interval')


def test_set_host_enabled_flips_the_status_trait_at_once(compute, ctxt):
    c = compute()
    cn = c.manager.rt.compute_nodes['host1']
    assert c.manager.set_host_enabled(ctxt, False) == 'disabled'
    assert 'COMPUTE_STATUS_DISABLED' in c.reportclient.tree.data(
        cn.uuid).traits
    assert c.manager.set_host_enabled(ctxt, True) == 'enabled'
    assert 'COMPUTE_STATUS_DISABLED' not in c.reportclient.tree.data(
        cn.uuid).traits


def test_power_sync_leaves_a_vanished_guest_active(compute, ctxt):
    c = compute()
    inst = _active(c, ctxt)
    c.manager.driver.destroy(ctxt, inst, [])
    c.manager._sync_power_states(ctxt)
    assert (inst.vm_state, inst.power_state) == ('active',
                                                 power_state.NOSTATE)


def test_delete_with_placement_down_completes_and_the_periodic_frees(
        compute, ctxt, fake_objects):
    from nova_clone import exception
    c = compute()
    inst = _active(c, ctxt)
    rp = c.manager.rt.compute_nodes['host1'].uuid
    c.reportclient.allocations[inst.uuid] = {rp: {'resources': {'VCPU': 1}}}
    delete = c.reportclient.delete_allocation_for_instance

    def unreachable(*a, **k):
        raise exception.PlacementAPIConnectFailure(reason='down')
    c.reportclient.delete_allocation_for_instance = unreachable
    c.manager.terminate_instance(ctxt, inst, [])
    assert inst.destroyed and inst.vm_state == 'deleted'
    assert fake_objects.faults == []
    assert inst.uuid in c.reportclient.allocations
    c.reportclient.delete_allocation_for_instance = delete
    c.manager.update_available_resource(ctxt)
    assert inst.uuid not in c.reportclient.allocations


def test_restart_finishes_a_delete_that_died_after_the_guest(compute, ctxt):
    first = compute()
    inst = _active(first, ctxt)
    inst.vm_state = 'deleted'    # the guest went, the row stayed
    second = compute()   # the same host, restarted
    assert inst.destroyed
    assert second.reportclient.deleted_allocations == [inst.uuid]
