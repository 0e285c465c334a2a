"""The resource tracker: compute node records and the Placement view."""

import time

import os_traits
import pytest

from nova_clone.compute.host import resource_tracker
from nova_clone.virt import driver as virt_driver
from tests.unit.compute import fakes


@pytest.fixture
def rt(conf, fake_objects):
    drv = virt_driver.load_compute_driver(None, 'fake.FakeDriver')
    drv.init_host('h1')
    return resource_tracker.ResourceTracker(
        'h1', drv, reportclient=fakes.FakeReportClient())


def _add_instance(objs, **kw):
    inst = fakes.FakeInstance(host='h1', node='h1', **kw)
    objs.instances[inst.uuid] = inst
    return inst


def test_first_run_creates_the_node_and_its_provider(rt, fake_objects,
                                                     ctxt):
    cn = rt.update_available_resource(ctxt, 'h1')
    assert fake_objects.compute_nodes[('h1', 'h1')] is cn
    assert (cn.vcpus, cn.memory_mb, cn.local_gb) == (4, 4096, 40)
    assert cn.cpu_allocation_ratio == 4.0
    tree = rt.reportclient.tree
    root = tree.data(cn.uuid)
    assert root.name == 'h1'
    assert set(root.inventory) == {'VCPU', 'MEMORY_MB', 'DISK_GB'}
    assert root.inventory['MEMORY_MB']['reserved'] == 512
    assert os_traits.COMPUTE_NET_ATTACH_INTERFACE in root.traits
    assert os_traits.COMPUTE_VOLUME_MULTI_ATTACH in root.traits
    assert os_traits.OWNER_NOVA in root.traits
    assert os_traits.COMPUTE_TRUSTED_CERTS not in root.traits


def test_unchanged_inventory_is_not_pushed_again(rt, ctxt):
    rt.update_available_resource(ctxt, 'h1')
    rt.update_available_resource(ctxt, 'h1')
    rt.update_available_resource(ctxt, 'h1')
    assert len(rt.reportclient.pushes) == 1


def test_changed_capacity_is_pushed(rt, conf, ctxt):
    rt.update_available_resource(ctxt, 'h1')
    conf.set_override('vcpus', 8, group='fake_driver')
    cn = rt.update_available_resource(ctxt, 'h1')
    assert len(rt.reportclient.pushes) == 2
    assert rt.reportclient.tree.data(cn.uuid).inventory['VCPU'][
        'total'] == 8
    assert cn.vcpus == 8


def test_usage_comes_from_one_instance_query(rt, fake_objects, ctxt):
    _add_instance(fake_objects, vcpus=2, memory_mb=1024, root_gb=10,
                  ephemeral_gb=5, vm_state='active', task_state=None)
    _add_instance(fake_objects, vcpus=1, memory_mb=256, root_gb=1,
                  vm_state='building', task_state='spawning')
    _add_instance(fake_objects, vcpus=8, memory_mb=8192, root_gb=80,
                  vm_state='shelved_offloaded', task_state=None)
    fake_objects.InstanceList.queries = 0
    cn = rt.update_available_resource(ctxt, 'h1')
    assert fake_objects.InstanceList.queries == 1
    assert cn.vcpus_used == 3
    assert cn.memory_mb_used == 512 + 1280
    assert cn.local_gb_used == 16
    assert cn.running_vms == 2
    assert cn.current_workload == 1
    assert cn.free_ram_mb == 4096 - 1792


def test_claim_moves_usage_and_abort_gives_it_back(rt, fake_objects, ctxt):
    cn = rt.update_available_resource(ctxt, 'h1')
    inst = fakes.FakeInstance(host='h1', node='h1', vcpus=2, memory_mb=512,
                              root_gb=3)
    with pytest.raises(RuntimeError):
        with rt.instance_claim(ctxt, inst, 'h1'):
            assert (cn.vcpus_used, cn.memory_mb_used, cn.local_gb_used,
                    cn.running_vms) == (2, 1024, 3, 1)
            raise RuntimeError('spawn failed')
    assert (cn.vcpus_used, cn.memory_mb_used, cn.local_gb_used,
            cn.running_vms) == (0, 512, 0, 0)


def test_claim_is_counted_until_the_instance_is_in_the_query(
        rt, fake_objects, ctxt):
    rt.update_available_resource(ctxt, 'h1')
    inst = fakes.FakeInstance(host='h1', node='h1', vcpus=2)
    # Its row does not show the host yet.
    fake_objects.instances[inst.uuid] = fakes.FakeInstance(
        uuid=inst.uuid, host=None, node=None, vcpus=2)
    rt.instance_claim(ctxt, inst, 'h1')
    cn = rt.update_available_resource(ctxt, 'h1')
    assert cn.vcpus_used == 2 and cn.running_vms == 1
    rt.remove_instance(ctxt, inst)
    assert cn.vcpus_used == 0 and cn.running_vms == 0


def test_claim_of_a_build_gone_elsewhere_is_forgotten(rt, fake_objects,
                                                      ctxt):
    """A claim a failure did not drop (the instance deleted, or
    rescheduled to another host) stops counting at the next update."""
    rt.update_available_resource(ctxt, 'h1')
    gone = fakes.FakeInstance(host='h1', node='h1', vcpus=2)
    moved = fakes.FakeInstance(host='h1', node='h1', vcpus=1)
    fake_objects.instances[moved.uuid] = fakes.FakeInstance(
        uuid=moved.uuid, host='h2', node='h2', vcpus=1)
    rt.instance_claim(ctxt, gone, 'h1')
    rt.instance_claim(ctxt, moved, 'h1')
    cn = rt.update_available_resource(ctxt, 'h1')
    assert (cn.vcpus_used, cn.running_vms) == (0, 0)
    assert rt.tracked_instances == {}


def test_claim_on_an_untracked_node_holds_nothing(rt, ctxt):
    claim = rt.instance_claim(ctxt, fakes.FakeInstance(), 'unknown')
    assert (claim.vcpus, claim.memory_mb) == (0, 0)


def test_existing_node_record_is_reused(rt, fake_objects, ctxt):
    cn = rt.update_available_resource(ctxt, 'h1')
    rt.compute_nodes.clear()
    again = rt.update_available_resource(ctxt, 'h1')
    assert again is cn and cn.creates == 1


def test_startup_survives_placement_being_down(rt, ctxt):
    def down(*a, **k):
        raise ConnectionError('placement down')
    rt.reportclient.get_provider_tree_and_ensure_root = down
    cn = rt.update_available_resource(ctxt, 'h1', startup=True)
    assert cn.vcpus == 4
    with pytest.raises(ConnectionError):
        rt.update_available_resource(ctxt, 'h1')


def test_disabled_service_is_reported_as_a_trait(rt, fake_objects, ctxt):
    cn = rt.update_available_resource(ctxt, 'h1')
    fake_objects.service.disabled = True
    rt.refresh_service_disabled(ctxt)
    rt.update_available_resource(ctxt, 'h1')
    traits = rt.reportclient.tree.data(cn.uuid).traits
    assert os_traits.COMPUTE_STATUS_DISABLED in traits
    fake_objects.service.disabled = False
    rt.refresh_service_disabled(ctxt)
    rt.update_available_resource(ctxt, 'h1')
    traits = rt.reportclient.tree.data(cn.uuid).traits
    assert os_traits.COMPUTE_STATUS_DISABLED not in traits
    assert len(rt.reportclient.pushes) == 3


def test_a_restarted_service_forgets_the_build_failures_of_its_node(
        rt, fake_objects, ctxt):
    cn = rt.update_available_resource(ctxt, 'h1')
    cn.stats = {'failed_builds': '7'}
    rt.update_available_resource(ctxt, 'h1')
    assert cn.stats['failed_builds'] == '7'  # same service: kept
    drv = rt.driver
    restarted = resource_tracker.ResourceTracker(
        'h1', drv, reportclient=fakes.FakeReportClient())
    again = restarted.update_available_resource(ctxt, 'h1')
    assert again is cn and cn.stats['failed_builds'] == '0'


def _wait_for(predicate, timeout=5.0):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, 'condition not met in time'
        time.sleep(0.01)


def test_claims_do_not_wait_for_the_node_record(rt, ctxt, monkeypatch):
    monkeypatch.setattr(resource_tracker, 'NODE_SAVE_INTERVAL', 0.3)
    rt = resource_tracker.ResourceTracker('h1', rt.driver,
                                          reportclient=rt.reportclient)
    cn = rt.update_available_resource(ctxt, 'h1')
    saved = cn.saves
    # The first change after a quiet spell is written at once...
    rt.instance_claim(ctxt, fakes.FakeInstance(host='h1', node='h1'), 'h1')
    _wait_for(lambda: cn.saves == saved + 1)
    # ...a burst right after it waits for the interval, then costs one
    # write for all of it.
    for _ in range(5):
        rt.instance_claim(ctxt, fakes.FakeInstance(host='h1', node='h1'),
                          'h1')
    time.sleep(0.1)
    assert cn.saves == saved + 1
    _wait_for(lambda: cn.saves == saved + 2)
    assert cn.running_vms == 6 and not cn.obj_what_changed()


def test_stopping_writes_the_pending_usage(rt, ctxt, monkeypatch):
    monkeypatch.setattr(resource_tracker, 'NODE_SAVE_INTERVAL', 60)
    rt = resource_tracker.ResourceTracker('h1', rt.driver,
                                          reportclient=rt.reportclient)
    cn = rt.update_available_resource(ctxt, 'h1')
    rt.instance_claim(ctxt, fakes.FakeInstance(host='h1', node='h1'), 'h1')
    _wait_for(lambda: not cn.obj_what_changed())
    inst = fakes.FakeInstance(host='h1', node='h1')
    rt.instance_claim(ctxt, inst, 'h1')
    rt.remove_instance(ctxt, inst)
    rt.instance_claim(ctxt, fakes.FakeInstance(host='h1', node='h1'), 'h1')
    assert 'running_vms' in cn.obj_what_changed()
    saves = cn.saves
    writer = rt._saver._thread
    rt.flush_node_saves()
    assert cn.saves == saves + 1 and not cn.obj_what_changed()
    # The writer thread ends with the service; a stopped compute leaves
    # no thread behind.
    assert not writer.is_alive()
