"""build_and_run_instance on a ComputeManager wired to fakes."""

import time

import pytest

from nova_clone.compute import power_state
from nova_clone.compute.host import resource_tracker
from tests.unit.compute import fakes


def _wait_for(predicate, timeout=5):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.01)
    return False


def _plugged(instance, port_id, status='completed'):
    return {'instance_uuid': instance.uuid, 'name': 'network-vif-plugged',
            'tag': port_id, 'status': status}


def _send_plugged_when_bound(c, ctxt, inst, status='completed'):
    assert _wait_for(lambda: inst.uuid in c.network.allocated)
    for vif in c.network.allocated[inst.uuid]:
        c.manager.external_instance_event(ctxt, [inst],
                                          [_plugged(inst, vif['id'], status)])


def test_build_goes_active_once_the_port_is_plugged(compute, ctxt,
                                                    fake_objects,
                                                    notifications):
    c = compute()
    # The conductor leaves host and node to the compute's claim.
    inst = c.new_instance(host=None, node=None)
    c.reportclient.allocations[inst.uuid] = {'rp': {'resources': {'VCPU': 1}}}
    c.build(ctxt, inst, wait=False)
    _send_plugged_when_bound(c, ctxt, inst)
    assert c.manager.wait_for_builds(5)
    assert (inst.vm_state, inst.task_state) == ('active', None)
    assert inst.power_state == power_state.RUNNING
    assert inst.launched_at is not None
    assert (inst.host, inst.node, inst.launched_on) == ('host1',) * 3
    assert inst.compute_id == c.manager.rt.compute_nodes['host1'].id
    steps = [t for _, t in inst.history]
    # started (already this host's: a restart finds a build that died
    # before its claim), then the build steps
    assert steps == [None, 'networking', 'block_device_mapping',
                     'spawning', None]
    assert inst.saved_hosts == ['host1'] * 5
    # The port was bound to this host and the info cache holds it.
    vif = c.network.allocated[inst.uuid][0]
    assert vif['binding:host_id'] == 'host1'
    assert [v['id'] for v in inst.info_cache.network_info] == [vif['id']]
    assert c.manager.driver.list_instance_uuids() == [inst.uuid]
    assert c.manager.driver.image_cache.cached_images() == ['img-1']
    assert fake_objects.events_for(inst.uuid) == [
        ('compute__do_build_and_run_instance', 'Success')]
    assert [n[2] for n in notifications] == ['instance.create.start',
                                             'instance.create.end']
    assert c.reportclient.deleted_allocations == []
    # The node's usage already counts the new guest.
    cn = c.manager.rt.compute_nodes['host1']
    assert cn.running_vms == 1 and cn.vcpus_used == 1


def test_event_arriving_before_spawn_waits_is_not_lost(compute, ctxt,
                                                       conf):
    conf.set_override('spawn_seconds', 0.3, group='fake_driver')
    c = compute()
    inst = c.new_instance()
    c.build(ctxt, inst, wait=False)
    # Sent while the guest is still being created (or even earlier).
    _send_plugged_when_bound(c, ctxt, inst)
    assert c.manager.wait_for_builds(5)
    assert inst.vm_state == 'active'


def test_active_ports_are_not_waited_for(compute, ctxt):
    c = compute()
    c.network.active = True
    inst = c.new_instance()
    start = time.monotonic()
    c.build(ctxt, inst)
    assert inst.vm_state == 'active'
    assert time.monotonic() - start < 1.5


def test_missing_vif_event_is_fatal_by_default(compute, ctxt, conf,
                                               fake_objects):
    conf.set_override('vif_plugging_timeout', 1)
    c = compute()
    inst = c.new_instance()
    c.reportclient.allocations[inst.uuid] = {'rp': {}}
    c.build(ctxt, inst, host_list=[{'host': 'alt'}],
            filter_properties={'retry': {'num_attempts': 1, 'hosts': []}})
    assert (inst.vm_state, inst.task_state) == ('error', None)
    assert inst.host is None and inst.node is None
    fault = fake_objects.faults[-1]
    assert fault.message == (
        'Build of instance %s aborted: Failed to allocate the network(s), '
        'not rescheduling.' % inst.uuid)
    # Nothing is left behind, and nothing is rescheduled.
    assert c.conductor.builds == []
    assert c.reportclient.deleted_allocations == [inst.uuid]
    assert c.network.deallocated == [inst.uuid]
    assert c.manager.driver.list_instance_uuids() == []
    assert c.manager.rt.compute_nodes['host1'].running_vms == 0


def test_failed_vif_event_is_fatal(compute, ctxt, fake_objects):
    c = compute()
    inst = c.new_instance()
    c.build(ctxt, inst, wait=False)
    _send_plugged_when_bound(c, ctxt, inst, status='failed')
    assert c.manager.wait_for_builds(5)
    assert inst.vm_state == 'error'
    assert 'Failed to allocate the network(s)' in fake_objects.faults[-1] \
        .message


def test_missing_vif_event_is_tolerated_when_not_fatal(compute, ctxt, conf):
    conf.set_override('vif_plugging_timeout', 1)
    conf.set_override('vif_plugging_is_fatal', False)
    c = compute()
    inst = c.new_instance()
    c.build(ctxt, inst)
    assert (inst.vm_state, inst.task_state) == ('active', None)


def test_retryable_failure_reschedules_to_the_alternates(compute, ctxt,
                                                         conf, fake_objects):
    conf.set_override('fail_spawn', {'host1': 'retryable'},
                      group='fake_driver')
    c = compute()
    c.network.active = True
    inst = c.new_instance()
    c.reportclient.allocations[inst.uuid] = {'rp': {}}
    retry = {'num_attempts': 1, 'hosts': [['host1', 'host1']]}
    alternates = [{'host': 'host2'}, {'host': 'host3'}]
    c.build(ctxt, inst, host_list=alternates,
            filter_properties={'retry': retry})
    assert (inst.vm_state, inst.task_state) == ('building', 'scheduling')
    assert inst.host is None
    assert len(c.conductor.builds) == 1
    call = c.conductor.builds[0]
    assert call['instances'] == [inst]
    assert call['host_lists'] == [alternates]
    assert 'fail_spawn=retryable' in call['filter_properties']['retry'][
        'exc_reason']
    assert c.reportclient.deleted_allocations == [inst.uuid]
    assert c.network.deallocated == [inst.uuid]
    assert c.manager.driver.list_instance_uuids() == []
    assert fake_objects.faults == []


def test_retryable_failure_with_nowhere_to_go_is_an_error(compute, ctxt,
                                                          conf,
                                                          fake_objects):
    conf.set_override('fail_spawn', {'host1': 'retryable'},
                      group='fake_driver')
    c = compute()
    c.network.active = True
    inst = c.new_instance()
    c.build(ctxt, inst)
    assert inst.vm_state == 'error'
    assert c.conductor.builds == []
    assert 'fail_spawn=retryable' in fake_objects.faults[-1].message


def test_full_host_reschedules(compute, ctxt, fake_objects):
    c = compute()
    c.network.active = True
    inst = c.new_instance(vcpus=64)
    c.build(ctxt, inst, host_list=[{'host': 'host2'}],
            filter_properties={'retry': {'num_attempts': 1}})
    assert inst.task_state == 'scheduling'
    assert len(c.conductor.builds) == 1


def test_fatal_failure_is_an_error_with_a_fault(compute, ctxt, conf,
                                                fake_objects):
    conf.set_override('fail_spawn', {'host1': 'fatal'}, group='fake_driver')
    c = compute()
    c.network.active = True
    inst = c.new_instance()
    c.build(ctxt, inst, host_list=[{'host': 'host2'}],
            filter_properties={'retry': {'num_attempts': 1}})
    assert (inst.vm_state, inst.task_state) == ('error', None)
    assert c.conductor.builds == []
    assert 'fail_spawn=fatal' in fake_objects.faults[-1].message
    assert c.reportclient.deleted_allocations == [inst.uuid]


def test_network_allocation_failure_aborts(compute, ctxt, fake_objects):
    c = compute()
    c.network.fail = RuntimeError('neutron is down')
    inst = c.new_instance()
    c.build(ctxt, inst, host_list=[{'host': 'host2'}])
    assert inst.vm_state == 'error'
    assert 'Failed to allocate the network(s)' in fake_objects.faults[-1] \
        .message


def test_volume_bdm_is_attached_through_cinder(compute, ctxt):
    c = compute()
    c.network.active = True
    inst = c.new_instance()
    bdm = fakes.FakeBDM(volume_id='vol-1', boot_index=0)
    c.build(ctxt, inst, bdms=[bdm])
    assert inst.vm_state == 'active'
    assert bdm.device_name == '/dev/vda'
    assert inst.root_device_name == '/dev/vda'
    ops = [op for op, _ in c.volumes.calls]
    assert ops == ['create', 'update', 'complete']
    att = c.volumes.attachments[bdm.attachment_id]
    assert att['status'] == 'attached'
    assert att['connector']['host'] == 'host1'
    assert 'vol-1' in bdm.connection_info
    # A volume-backed server does not download its image.
    assert c.manager.driver.image_cache.cached_images() == []


def test_build_of_an_instance_deleted_meanwhile_stops_quietly(compute, ctxt,
                                                              fake_objects):
    c = compute()
    inst = c.new_instance()
    inst.db_task_state = 'deleting'
    c.build(ctxt, inst)
    assert c.network.allocated == {}
    assert fake_objects.faults == []


def test_failed_builds_are_counted_in_the_node_stats(compute, ctxt, conf,
                                                     fake_objects):
    conf.set_override('fail_spawn', {'host1': 'fatal'}, group='fake_driver')
    try:
        c = compute()
        c.network.active = True
        for _ in range(3):
            c.build(ctxt, c.new_instance())
        cn = c.manager.rt.compute_nodes['host1']
        # What the scheduler's BuildFailureWeigher reads; the service
        # itself stays enabled (Nova 34 no longer disables it).
        assert cn.stats['failed_builds'] == '3'
        assert fake_objects.service.disabled is False
    finally:
        conf.clear_override('fail_spawn', group='fake_driver')
    c.build(ctxt, c.new_instance())
    assert cn.stats['failed_builds'] == '0'


def test_failed_builds_are_not_counted_with_a_zero_threshold(compute, ctxt,
                                                             conf):
    conf.set_override('consecutive_build_service_disable_threshold', 0,
                      group='compute')
    conf.set_override('fail_spawn', {'host1': 'fatal'}, group='fake_driver')
    try:
        c = compute()
        c.network.active = True
        c.build(ctxt, c.new_instance())
        cn = c.manager.rt.compute_nodes['host1']
        assert 'failed_builds' not in (resource_tracker._field(cn, 'stats')
                                       or {})
    finally:
        conf.clear_override('consecutive_build_service_disable_threshold',
                            group='compute')
        conf.clear_override('fail_spawn', group='fake_driver')


@pytest.mark.parametrize('limit', [1])
def test_builds_are_bounded_by_max_concurrent_builds(compute, ctxt, conf,
                                                     limit):
    conf.set_override('max_concurrent_builds', limit)
    conf.set_override('spawn_seconds', 0.2, group='fake_driver')
    try:
        c = compute()
        c.network.active = True
        insts = [c.new_instance() for _ in range(3)]
        start = time.monotonic()
        for inst in insts:
            c.build(ctxt, inst, wait=False)
        assert c.manager.wait_for_builds(5)
        assert time.monotonic() - start >= 0.55
        assert all(i.vm_state == 'active' for i in insts)
    finally:
        conf.clear_override('max_concurrent_builds')


def test_failure_outside_the_flow_still_ends_in_error(compute, ctxt,
                                                      fake_objects):
    c = compute()
    c.network.active = True

    def db_locked(*a, **k):
        raise RuntimeError('database is locked')
    # Recording the action event fails, and so does the first save.
    fake_objects.InstanceActionEvent.event_start = staticmethod(db_locked)
    inst = c.new_instance()
    saves = []
    real_save = inst.save

    def flaky_save(expected_task_state=None, **kwargs):
        saves.append(expected_task_state)
        if len(saves) == 1:
            raise RuntimeError('database is locked')
        real_save()
    inst.save = flaky_save
    c.build(ctxt, inst)
    assert (inst.vm_state, inst.task_state) == ('error', None)
    assert fake_objects.faults[-1].message == 'RuntimeError'


def test_reschedule_that_cannot_reach_the_conductor_ends_in_error(
        compute, ctxt, conf, fake_objects):
    conf.set_override('fail_spawn', {'host1': 'retryable'},
                      group='fake_driver')
    c = compute()
    c.network.active = True

    def unreachable(*a, **k):
        raise RuntimeError('conductor unreachable')
    c.conductor.build_instances = unreachable
    inst = c.new_instance()
    c.build(ctxt, inst, host_list=[{'host': 'host2'}])
    assert (inst.vm_state, inst.task_state) == ('error', None)
    assert 'fail_spawn=retryable' in fake_objects.faults[-1].message
