"""Domain XML the libvirt driver sends to libvirtd (no daemon needed)."""

import xml.etree.ElementTree as ET

from nova_clone.virt.libvirt import config


def _guest(**kwargs):
    values = dict(virt_type='qemu', name='instance-0000002a',
                  uuid='4f0f1a9e-9d5b-4e55-8a3b-1b2a3c4d5e6f', memory_mb=128,
                  vcpus=1, console_log='/inst/u/console.log')
    values.update(kwargs)
    return config.Guest(**values)


def _root(guest):
    return ET.fromstring(guest.to_xml())


def test_domain_basics():
    root = _root(_guest(virt_type='kvm'))
    assert root.tag == 'domain' and root.get('type') == 'kvm'
    assert root.findtext('name') == 'instance-0000002a'
    assert root.findtext('uuid') == '4f0f1a9e-9d5b-4e55-8a3b-1b2a3c4d5e6f'
    assert root.find('memory').get('unit') == 'MiB'
    assert root.findtext('memory') == '128'
    assert root.findtext('vcpu') == '1'
    assert root.findtext('on_poweroff') == 'destroy'
    assert root.find('./features/acpi') is not None
    # kvm never gets TCG tuning.
    assert root.find('./features/tcg') is None


def test_tcg_cache_only_for_qemu():
    root = _root(_guest(tb_cache_mib=32))
    tb = root.find('./features/tcg/tb-cache')
    assert tb.text == '32' and tb.get('unit') == 'MiB'
    assert _root(_guest()).find('./features/tcg') is None


def test_disk_boot_without_kernel():
    root = _root(_guest())
    assert root.find('./os/boot').get('dev') == 'hd'
    assert root.find('./os/kernel') is None
    assert root.find('./os/type').text == 'hvm'


def test_direct_kernel_boot():
    root = _root(_guest(kernel='/inst/u/kernel', ramdisk='/inst/u/ramdisk',
                        cmdline='console=ttyS0', machine_type='q35'))
    assert root.findtext('./os/kernel') == '/inst/u/kernel'
    assert root.findtext('./os/initrd') == '/inst/u/ramdisk'
    assert root.findtext('./os/cmdline') == 'console=ttyS0'
    assert root.find('./os/type').get('machine') == 'q35'
    assert root.find('./os/boot') is None


def test_serial_console_to_file():
    root = _root(_guest())
    serial = root.find('./devices/serial')
    assert serial.get('type') == 'file'
    assert serial.find('source').get('path') == '/inst/u/console.log'
    assert serial.find('source').get('append') == 'on'
    console = root.find('./devices/console')
    assert console.find('target').get('type') == 'serial'


def test_disks_and_interfaces():
    guest = _guest(
        disks=[config.GuestDisk('/inst/u/disk', 'vda'),
               config.GuestDisk('/vols/v1', 'vdb', driver_format='raw',
                                serial='vol-1', readonly=True)],
        interfaces=[config.GuestInterface('fa:16:3e:00:00:01',
                                          'tap1234567890a', mtu=1450)])
    root = _root(guest)
    disks = root.findall('./devices/disk')
    assert [d.find('target').get('dev') for d in disks] == ['vda', 'vdb']
    assert disks[0].find('driver').get('type') == 'qcow2'
    assert disks[0].find('source').get('file') == '/inst/u/disk'
    assert disks[0].find('target').get('bus') == 'virtio'
    assert disks[0].find('readonly') is None
    assert disks[1].find('driver').get('type') == 'raw'
    assert disks[1].findtext('serial') == 'vol-1'
    assert disks[1].find('readonly') is not None
    iface = root.find('./devices/interface')
    assert iface.get('type') == 'ethernet'
    assert iface.find('mac').get('address') == 'fa:16:3e:00:00:01'
    assert iface.find('target').get('dev') == 'tap1234567890a'
    assert iface.find('model').get('type') == 'virtio'
    assert iface.find('mtu').get('size') == '1450'
    assert config.disk_targets(guest.to_xml()) == ['vda', 'vdb']
    assert config.find_disk(guest.to_xml(), 'vdb').findtext('serial') == \
        'vol-1'
    assert config.find_disk(guest.to_xml(), 'vdz') is None


def test_single_device_xml_for_hotplug():
    disk = ET.fromstring(config.GuestDisk('/vols/v1', 'vdc',
                                          driver_format='raw').to_xml())
    assert disk.tag == 'disk' and disk.get('type') == 'file'
    assert disk.find('target').get('dev') == 'vdc'


def test_nova_metadata():
    root = _root(_guest(metadata={
        'name': 'vm1', 'flavor': {'name': 'm1.tiny', 'memory': 128,
                                  'vcpus': 1, 'disk': 1},
        'owner': {'user_id': 'u1', 'project_id': 'p1'}}))
    ns = {'nova': config.NOVA_NS}
    inst = root.find('./metadata/nova:instance', ns)
    assert inst.findtext('nova:name', namespaces=ns) == 'vm1'
    flavor = inst.find('nova:flavor', ns)
    assert flavor.get('name') == 'm1.tiny'
    assert flavor.findtext('nova:memory', namespaces=ns) == '128'
    assert inst.find('nova:owner/nova:project', ns).get('uuid') == 'p1'
