"""The fake hypervisor: finite capacity, per-host state, injected failures."""

import os

import pytest

from nova_clone.compute import power_state
from nova_clone.conf import CONF
from nova_clone import exception
from nova_clone.placement import provider_tree
from nova_clone.virt import driver
from nova_clone.virt import fake
from nova_clone.virt import imagecache
from tests.unit.compute import fakes


@pytest.fixture(autouse=True)
def fake_conf(tmp_path):
    overrides = [('instances_path', str(tmp_path), None),
                 ('vcpus', 4, 'fake_driver'),
                 ('memory_mb', 2048, 'fake_driver'),
                 ('local_gb', 10, 'fake_driver'),
                 ('fail_spawn', {}, 'fake_driver')]
    for name, value, group in overrides:
        CONF.set_override(name, value, group=group)
    fake.reset_hypervisors()
    yield
    for name, _, group in overrides:
        CONF.clear_override(name, group=group)
    fake.reset_hypervisors()


def _driver(host, downloads=None):
    drv = driver.load_compute_driver(None, 'fake.FakeDriver')
    drv.init_host(host)

    def download(ctx, image_id, dest):
        (downloads if downloads is not None else []).append(image_id)
        with open(dest, 'wb') as f:
            f.write(b'image-bytes')
    drv.image_cache = imagecache.ImageCache(download=download)
    return drv


def _spawn(drv, inst, image=None, **kw):
    drv.spawn(None, inst, image or {'id': 'img-1'}, [], None, {}, **kw)


def test_load_compute_driver_resolves_short_and_full_names():
    assert isinstance(driver.load_compute_driver(None, 'fake.FakeDriver'),
                      fake.FakeDriver)
    assert isinstance(driver.load_compute_driver(
        None, 'nova_clone.virt.fake.FakeDriver'), fake.FakeDriver)


@pytest.mark.parametrize('name', ['nosuch.Driver', 'fake.NoSuchDriver',
                                  'NoDot', 'driver.InstanceInfo'])
def test_load_compute_driver_rejects_bad_names_cleanly(name):
    with pytest.raises(exception.NovaException) as err:
        driver.load_compute_driver(None, name)
    assert name in str(err.value)


def test_spawn_get_info_list_and_destroy():
    drv = _driver('h1')
    inst = fakes.FakeInstance()
    _spawn(drv, inst, network_info=[{'id': 'port-1'}])
    assert drv.get_info(inst).state == power_state.RUNNING
    assert drv.list_instance_uuids() == [inst.uuid]
    assert drv.list_instances() == [inst.name]
    drv.power_off(inst)
    assert drv.get_info(inst).state == power_state.SHUTDOWN
    drv.destroy(None, inst, [])
    with pytest.raises(exception.InstanceNotFound):
        drv.get_info(inst)
    # Destroying a guest that is gone is not an error.
    drv.destroy(None, inst, [])


def test_hosts_do_not_share_guests_but_a_restart_sees_its_own():
    a, b = _driver('ha'), _driver('hb')
    inst = fakes.FakeInstance()
    _spawn(a, inst)
    assert b.list_instance_uuids() == []
    assert _driver('ha').list_instance_uuids() == [inst.uuid]


def test_capacity_is_finite_and_full_host_refuses_with_retryable_error():
    drv = _driver('h1')
    _spawn(drv, fakes.FakeInstance(vcpus=3, memory_mb=1024, root_gb=5))
    # RAM and disk are not overcommitted: 1024 + 1536 MiB > 2048 MiB.
    with pytest.raises(exception.ComputeResourcesUnavailable):
        _spawn(drv, fakes.FakeInstance(vcpus=2, memory_mb=1536, root_gb=1))
    res = drv.get_available_resource('h1')
    assert (res['vcpus'], res['vcpus_used']) == (4, 3)
    assert (res['memory_mb_used'], res['local_gb_used']) == (1024, 5)


def test_vcpus_overcommit_as_placement_was_told():
    drv = _driver('h1')
    # 4 physical vCPUs at the initial ratio 4.0 hold 16 guest vCPUs.
    for _ in range(4):
        _spawn(drv, fakes.FakeInstance(vcpus=4, memory_mb=256, root_gb=1))
    with pytest.raises(exception.ComputeResourcesUnavailable):
        _spawn(drv, fakes.FakeInstance(vcpus=1, memory_mb=256, root_gb=1))


@pytest.mark.parametrize('mode,exc', [
    ('retryable', exception.ComputeResourcesUnavailable),
    ('fatal', exception.BuildAbortException)])
def test_fail_spawn_injects_failure_on_the_named_host_only(mode, exc):
    CONF.set_override('fail_spawn', {'bad': mode}, group='fake_driver')
    with pytest.raises(exc):
        _spawn(_driver('bad'), fakes.FakeInstance())
    good = _driver('good')
    _spawn(good, fakes.FakeInstance())
    assert len(good.list_instances()) == 1
    assert _driver('bad').list_instances() == []


def test_image_is_downloaded_once_into_the_base_cache(tmp_path):
    downloads = []
    drv = _driver('h1', downloads)
    _spawn(drv, fakes.FakeInstance(), image={'id': 'img-9'})
    _spawn(drv, fakes.FakeInstance(), image={'id': 'img-9'})
    assert downloads == ['img-9']
    assert os.path.exists(tmp_path / '_base' / 'img-9')
    assert drv.image_cache.cached_images() == ['img-9']


def test_volume_backed_spawn_skips_the_image_cache():
    downloads = []
    drv = _driver('h1', downloads)
    bdi = {'block_device_mapping': [{'mount_device': '/dev/vda',
                                     'connection_info': {}}]}
    _spawn(drv, fakes.FakeInstance(), block_device_info=bdi)
    assert downloads == []


def test_unknown_node_is_a_clean_error():
    with pytest.raises(exception.HypervisorUnavailable):
        _driver('h1').get_available_resource('other')


def test_update_provider_tree_reports_capacity_and_ratios():
    CONF.set_override('reserved_host_memory_mb', 256)
    try:
        drv = _driver('h1')
        tree = provider_tree.ProviderTree()
        tree.new_root('h1', 'rp-uuid')
        drv.update_provider_tree(tree, 'h1')
        inv = tree.data('h1').inventory
        assert inv['VCPU']['total'] == 4
        assert inv['VCPU']['allocation_ratio'] == 4.0
        assert inv['MEMORY_MB']['reserved'] == 256
        assert inv['MEMORY_MB']['allocation_ratio'] == 1.0
        assert inv['DISK_GB']['total'] == 10
    finally:
        CONF.clear_override('reserved_host_memory_mb')


def test_configured_ratio_wins_and_existing_ratio_is_kept():
    tree = provider_tree.ProviderTree()
    tree.new_root('h1', 'rp-uuid')
    tree.update_inventory('h1', {'VCPU': {'total': 4,
                                          'allocation_ratio': 8.0}})
    drv = _driver('h1')
    drv.update_provider_tree(tree, 'h1')
    assert tree.data('h1').inventory['VCPU']['allocation_ratio'] == 8.0
    CONF.set_override('cpu_allocation_ratio', 2.0, group='compute')
    try:
        drv.update_provider_tree(tree, 'h1')
        assert tree.data('h1').inventory['VCPU']['allocation_ratio'] == 2.0
    finally:
        CONF.clear_override('cpu_allocation_ratio', group='compute')


def test_base_driver_methods_say_not_implemented():
    base = driver.ComputeDriver(None)
    with pytest.raises(NotImplementedError):
        base.spawn(None, None, None, None, None, None)
    assert base.capabilities_as_traits()['COMPUTE_NET_ATTACH_INTERFACE'] \
        is False
    assert fake.FakeDriver(None).capabilities_as_traits()[
        'COMPUTE_NET_ATTACH_INTERFACE'] is True
