"""Parts of the libvirt driver that need no daemon: power states, the
virt_type check, image and device helpers, loading by name."""

import pytest

from nova_clone.compute import power_state
from nova_clone import exception
from nova_clone.network import model as network_model
from nova_clone.objects import image_meta as image_meta_obj
from nova_clone.virt import driver as virt_driver
from nova_clone.virt.libvirt import driver
from nova_clone.virt.libvirt import power_states
from nova_clone.virt.libvirt import utils

IMG = '7d7a1b33-5f0e-4c38-9a57-2f8a1f7c0b11'


@pytest.mark.parametrize('libvirt_state,expected', [
    (0, power_state.NOSTATE), (1, power_state.RUNNING),
    (2, power_state.RUNNING), (3, power_state.PAUSED),
    (4, power_state.SHUTDOWN), (5, power_state.SHUTDOWN),
    (6, power_state.CRASHED), (7, power_state.SUSPENDED),
    (42, power_state.NOSTATE)])
def test_power_state_mapping(libvirt_state, expected):
    assert power_states.to_power_state(libvirt_state) == expected


def test_kvm_refused_without_vmx_or_svm(tmp_path):
    with pytest.raises(exception.InvalidVirtType) as err:
        utils.check_virt_type('kvm', cpu_flags={'sse2', 'hypervisor'})
    assert 'virt_type = qemu' in err.value.format_message()
    with pytest.raises(exception.InvalidVirtType):
        utils.check_virt_type('kvm', cpu_flags={'vmx'},
                               kvm_device=str(tmp_path / 'no-kvm'))
    kvm = tmp_path / 'kvm'
    kvm.touch()
    utils.check_virt_type('kvm', cpu_flags={'svm'}, kvm_device=str(kvm))
    # TCG needs nothing from the CPU.
    utils.check_virt_type('qemu', cpu_flags=set())


def test_cpu_flags_are_read_from_cpuinfo(tmp_path):
    cpuinfo = tmp_path / 'cpuinfo'
    cpuinfo.write_text('processor\t: 0\nflags\t\t: fpu vme svm\n')
    assert utils.host_cpu_flags(str(cpuinfo)) == {'fpu', 'vme', 'svm'}
    assert utils.host_cpu_flags(str(tmp_path / 'missing')) == set()


def test_image_id_and_properties_from_dict_or_object():
    image = {'id': IMG, 'properties': {'os_command_line': 'quiet',
                                          'kernel_id': 'k1'}}
    assert utils.image_id(image) == IMG
    assert utils.image_properties(image)['kernel_id'] == 'k1'
    meta = image_meta_obj.ImageMeta.from_dict(image)
    assert utils.image_id(meta) == IMG
    assert utils.image_properties(meta)['os_command_line'] == 'quiet'
    assert utils.image_id(None) is None
    assert utils.image_properties(None) == {}


def test_device_name_of_mountpoint():
    assert utils.device_name('/dev/vdb') == 'vdb'
    assert utils.device_name('vdc') == 'vdc'
    assert utils.device_name(None) == ''


def test_interfaces_from_network_info():
    vif = network_model.VIF(
        id='0123456789abcdef', address='fa:16:3e:11:22:33',
        network={'id': 'n1', 'meta': {'mtu': 1400}})
    (iface,) = driver.LibvirtDriver._interfaces(
        network_model.NetworkInfo([vif]))
    # No devname from Neutron: Nova's tap naming, cut to 14 characters.
    assert iface.target_dev == 'tap0123456789a'
    assert iface.mac_address == 'fa:16:3e:11:22:33'
    assert iface.mtu == 1400
    vif['devname'] = 'tapcustom'
    assert driver.LibvirtDriver._interfaces([vif])[0].target_dev == \
        'tapcustom'


def test_volume_disk_accepts_only_existing_files(tmp_path):
    drv = driver.LibvirtDriver(None)
    with pytest.raises(exception.VolumeDriverNotFound):
        drv._volume_disk({'driver_volume_type': 'rbd', 'data': {}}, 'vdb')
    with pytest.raises(exception.DiskNotFound):
        drv._volume_disk({'driver_volume_type': 'file',
                          'data': {'device_path': str(tmp_path / 'x')}},
                         'vdb')
    vol = tmp_path / 'vol'
    vol.touch()
    disk = drv._volume_disk({'driver_volume_type': 'file', 'serial': 's1',
                             'data': {'device_path': str(vol),
                                      'access_mode': 'ro'}}, 'vdb')
    assert (disk.source_path, disk.target_dev, disk.driver_format,
            disk.serial, disk.readonly) == (str(vol), 'vdb', 'raw', 's1',
                                            True)


def test_loaded_by_its_short_name():
    drv = virt_driver.load_compute_driver(None, 'libvirt.LibvirtDriver')
    assert isinstance(drv, driver.LibvirtDriver)
    caps = drv.capabilities_as_traits()
    assert caps['COMPUTE_IMAGE_TYPE_QCOW2'] and caps['COMPUTE_IMAGE_TYPE_AKI']
    # Not connected yet: a clean error, not an AttributeError.
    with pytest.raises(exception.VirtDriverNotReady):
        drv.list_instances()
