"""libvirt domain XML, built with xml.etree from plain data objects.

Nothing here talks to libvirt: the driver fills these objects from the
instance, its flavor, image and devices, and sends ``to_xml()`` to the
daemon.  Device objects also serve hot-plug (attachDeviceFlags takes the
XML of one device).
"""

import dataclasses
import xml.etree.ElementTree as ET

NOVA_NS = 'http://openstack.org/xmlns/libvirt/nova/1.1'


def _text(parent, tag, text, **attrs):
    el = ET.SubElement(parent, tag, {k: str(v) for k, v in attrs.items()})
    el.text = str(text)
    return el


def tostring(element):
    ET.indent(element)
    return ET.tostring(element, encoding='unicode')


@dataclasses.dataclass
class GuestDisk:
    """A file-backed disk (the root overlay or a volume)."""
    source_path: str
    target_dev: str
    driver_format: str = 'qcow2'
    target_bus: str = 'virtio'
    device_type: str = 'disk'
    driver_cache: str = 'none'
    serial: str = None
    readonly: bool = False

    def to_element(self):
        disk = ET.Element('disk', type='file', device=self.device_type)
        ET.SubElement(disk, 'driver', name='qemu', type=self.driver_format,
                      cache=self.driver_cache)
        ET.SubElement(disk, 'source', file=self.source_path)
        ET.SubElement(disk, 'target', dev=self.target_dev,
                      bus=self.target_bus)
        if self.serial:
            _text(disk, 'serial', self.serial)
        if self.readonly:
            ET.SubElement(disk, 'readonly')
        return disk

    def to_xml(self):
        return tostring(self.to_element())


@dataclasses.dataclass
class GuestInterface:
    """A NIC on a host tap device (``<interface type='ethernet'>``).

    libvirt creates the tap named ``target_dev`` and removes it when the
    guest stops; no libvirt network or bridge is involved.
    """
    mac_address: str
    target_dev: str
    model: str = 'virtio'
    mtu: int = None

    def to_element(self):
        iface = ET.Element('interface', type='ethernet')
        ET.SubElement(iface, 'mac', address=self.mac_address)
        ET.SubElement(iface, 'model', type=self.model)
        ET.SubElement(iface, 'target', dev=self.target_dev)
        if self.mtu:
            ET.SubElement(iface, 'mtu', size=str(self.mtu))
        return iface

    def to_xml(self):
        return tostring(self.to_element())


@dataclasses.dataclass
class Guest:
    """One domain definition."""
    virt_type: str
    name: str
    uuid: str
    memory_mb: int
    vcpus: int
    arch: str = 'x86_64'
    machine_type: str = None
    kernel: str = None
    ramdisk: str = None
    cmdline: str = None
    console_log: str = None
    tb_cache_mib: int = None
    disks: list = dataclasses.field(default_factory=list)
    interfaces: list = dataclasses.field(default_factory=list)
    # Nova's metadata block: instance name, flavor, owner, creation time.
    metadata: dict = dataclasses.field(default_factory=dict)

    def _os(self, root):
        os_el = ET.SubElement(root, 'os')
        type_attrs = {'arch': self.arch}
        if self.machine_type:
            type_attrs['machine'] = self.machine_type
        _text(os_el, 'type', 'hvm', **type_attrs)
        if self.kernel:
            # Direct kernel boot (AMI style): no bootloader on the disk.
            _text(os_el, 'kernel', self.kernel)
            if self.ramdisk:
                _text(os_el, 'initrd', self.ramdisk)
            if self.cmdline:
                _text(os_el, 'cmdline', self.cmdline)
        else:
            ET.SubElement(os_el, 'boot', dev='hd')

    def _features(self, root):
        features = ET.SubElement(root, 'features')
        ET.SubElement(features, 'acpi')
        ET.SubElement(features, 'apic')
        if self.virt_type == 'qemu' and self.tb_cache_mib:
            tcg = ET.SubElement(features, 'tcg')
            _text(tcg, 'tb-cache', self.tb_cache_mib, unit='MiB')

    def _metadata(self, root):
        if not self.metadata:
            return
        ET.register_namespace('nova', NOVA_NS)
        meta = ET.SubElement(root, 'metadata')
        inst = ET.SubElement(meta, '{%s}instance' % NOVA_NS)
        for key in ('name', 'creationTime'):
            if self.metadata.get(key):
                _text(inst, '{%s}%s' % (NOVA_NS, key), self.metadata[key])
        flavor = self.metadata.get('flavor')
        if flavor:
            fl = ET.SubElement(inst, '{%s}flavor' % NOVA_NS,
                               name=str(flavor.get('name') or ''))
            for key in ('memory', 'disk', 'swap', 'ephemeral', 'vcpus'):
                _text(fl, '{%s}%s' % (NOVA_NS, key), flavor.get(key) or 0)
        owner = self.metadata.get('owner')
        if owner:
            ow = ET.SubElement(inst, '{%s}owner' % NOVA_NS)
            _text(ow, '{%s}user' % NOVA_NS, owner.get('user') or '',
                  uuid=owner.get('user_id') or '')
            _text(ow, '{%s}project' % NOVA_NS, owner.get('project') or '',
                  uuid=owner.get('project_id') or '')

    def _devices(self, root):
        devices = ET.SubElement(root, 'devices')
        for disk in self.disks:
            devices.append(disk.to_element())
        for iface in self.interfaces:
            devices.append(iface.to_element())
        if self.console_log:
            # The serial console goes to a file Nova can read back
            # (get_console_output) without a console proxy; appending
            # keeps the output of earlier boots across power cycles.
            serial = ET.SubElement(devices, 'serial', type='file')
            ET.SubElement(serial, 'source', path=self.console_log,
                          append='on')
            ET.SubElement(serial, 'target', port='0')
            console = ET.SubElement(devices, 'console', type='file')
            ET.SubElement(console, 'source', path=self.console_log,
                          append='on')
            ET.SubElement(console, 'target', type='serial', port='0')
        ET.SubElement(devices, 'memballoon', model='virtio')

    def to_element(self):
        root = ET.Element('domain', type=self.virt_type)
        _text(root, 'name', self.name)
        _text(root, 'uuid', self.uuid)
        self._metadata(root)
        _text(root, 'memory', self.memory_mb, unit='MiB')
        _text(root, 'vcpu', self.vcpus)
        self._os(root)
        self._features(root)
        ET.SubElement(root, 'clock', offset='utc')
        _text(root, 'on_poweroff', 'destroy')
        _text(root, 'on_reboot', 'restart')
        _text(root, 'on_crash', 'destroy')
        self._devices(root)
        return root

    def to_xml(self):
        return tostring(self.to_element())


def find_disk(domain_xml, target_dev):
    """The ``<disk>`` element of ``target_dev`` in a domain XML, or None."""
    root = ET.fromstring(domain_xml)
    for disk in root.findall('./devices/disk'):
        target = disk.find('target')
        if target is not None and target.get('dev') == target_dev:
            return disk
    return None


def disk_targets(domain_xml):
    """Target device names (vda, vdb, ...) of a domain XML's disks."""
    root = ET.fromstring(domain_xml)
    return [t.get('dev') for t in root.findall('./devices/disk/target')]
