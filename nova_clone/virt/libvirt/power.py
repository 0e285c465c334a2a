"""What the libvirt driver reads from and sends to a running domain
besides its lifecycle: diagnostics from libvirt's statistics, and the
NMI of a crash dump.

Diagnostics come in Nova's two shapes: the free-form dict of the API
before 2.48 (``cpu0_time``, ``vda_read``, ``vnet0_rx`` ...) and the 2.48
structure (state, cpu/disk/nic/memory details).
"""

import xml.etree.ElementTree as ET

from oslo_log import log as logging

from nova_clone.compute import power_state
from nova_clone import exception
from nova_clone.virt.libvirt import power_states

LOG = logging.getLogger(__name__)


def _devices(dom):
    """([disk target dev], [(interface target dev, mac)]) of the domain."""
    root = ET.fromstring(dom.XMLDesc(0))
    disks = [t.get('dev') for t in root.findall('./devices/disk/target')
             if t.get('dev')]
    nics = []
    for iface in root.findall('./devices/interface'):
        target = iface.find('target')
        mac = iface.find('mac')
        if target is not None and target.get('dev'):
            nics.append((target.get('dev'),
                         mac.get('address') if mac is not None else None))
    return disks, nics


def _stats(libvirt, fn, *args):
    """A statistic libvirt may not have for this device (None then)."""
    try:
        return fn(*args)
    except libvirt.libvirtError as exc:
        LOG.debug('No statistics from %s%r: %s', fn.__name__, args, exc)
        return None


def _vcpu_times(libvirt, dom):
    vcpus = _stats(libvirt, dom.vcpus)
    return [(info[0], info[2]) for info in vcpus[0]] if vcpus else []


def _memory_used_mb(libvirt, dom):
    stats = _stats(libvirt, dom.memoryStats) or {}
    if 'actual' in stats and 'unused' in stats:
        return (stats['actual'] - stats['unused']) // 1024
    if 'rss' in stats:
        return stats['rss'] // 1024
    return None


def free_form(libvirt, dom):
    """The pre-2.48 diagnostics: one key per statistic."""
    info = dom.info()
    diags = {'state': power_state.name(power_states.to_power_state(
                info[0])),
             'memory': info[1]}
    for number, cpu_time in _vcpu_times(libvirt, dom):
        diags['cpu%d_time' % number] = cpu_time
    disks, nics = _devices(dom)
    for dev in disks:
        stats = _stats(libvirt, dom.blockStats, dev)
        if stats:
            diags.update({'%s_read_req' % dev: stats[0],
                          '%s_read' % dev: stats[1],
                          '%s_write_req' % dev: stats[2],
                          '%s_write' % dev: stats[3],
                          '%s_errors' % dev: stats[4]})
    for dev, _mac in nics:
        stats = _stats(libvirt, dom.interfaceStats, dev)
        if stats:
            diags.update({'%s_rx' % dev: stats[0],
                          '%s_rx_packets' % dev: stats[1],
                          '%s_rx_errors' % dev: stats[2],
                          '%s_rx_drop' % dev: stats[3],
                          '%s_tx' % dev: stats[4],
                          '%s_tx_packets' % dev: stats[5],
                          '%s_tx_errors' % dev: stats[6],
                          '%s_tx_drop' % dev: stats[7]})
    return diags


def structured(libvirt, dom, virt_type, config_drive):
    """The 2.48 diagnostics of the domain."""
    state, max_mem, _mem, num_cpus, _cpu_time = dom.info()
    disks, nics = _devices(dom)
    disk_details = []
    for dev in disks:
        stats = _stats(libvirt, dom.blockStats, dev) or (0, 0, 0, 0, 0)
        disk_details.append({'read_requests': stats[0],
                             'read_bytes': stats[1],
                             'write_requests': stats[2],
                             'write_bytes': stats[3],
                             'errors_count': stats[4]})
    nic_details = []
    for dev, mac in nics:
        stats = _stats(libvirt, dom.interfaceStats, dev) or (0,) * 8
        nic_details.append({'mac_address': mac,
                            'rx_octets': stats[0], 'rx_packets': stats[1],
                            'rx_errors': stats[2], 'rx_drop': stats[3],
                            'tx_octets': stats[4], 'tx_packets': stats[5],
                            'tx_errors': stats[6], 'tx_drop': stats[7],
                            'rx_rate': None, 'tx_rate': None})
    return {
        'state': power_state.name(power_states.to_power_state(state)),
        'driver': 'libvirt', 'hypervisor': virt_type,
        # libvirt does not say since when a domain runs.
        'hypervisor_os': 'linux', 'uptime': None,
        'config_drive': config_drive, 'num_cpus': num_cpus,
        'num_nics': len(nics), 'num_disks': len(disks),
        'cpu_details': [{'id': number, 'time': cpu_time,
                         'utilisation': None}
                        for number, cpu_time in _vcpu_times(libvirt, dom)],
        'nic_details': nic_details, 'disk_details': disk_details,
        'memory_details': {'maximum': max_mem // 1024,
                           'used': _memory_used_mb(libvirt, dom)},
    }


def inject_nmi(libvirt, dom, instance):
    """The crash dump: an NMI the guest kernel answers with a dump."""
    try:
        dom.injectNMI(0)
    except libvirt.libvirtError as exc:
        if exc.get_error_code() == libvirt.VIR_ERR_NO_SUPPORT:
            raise exception.TriggerCrashDumpNotSupported()
        if exc.get_error_code() == libvirt.VIR_ERR_OPERATION_INVALID:
            raise exception.InstanceNotRunning(instance_id=instance.uuid)
        raise
