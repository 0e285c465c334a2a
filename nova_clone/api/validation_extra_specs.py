"""The flavor extra specs Nova knows, and the check of one (name, value)
pair against them (microversion 2.86 and later).

A key of a namespace listed here must be one of that namespace's keys,
with a value of its kind; a key without a namespace or of a namespace
unknown here (a deployment's own filters) is accepted as it is.
"""

import functools
import re

import os_resource_classes
import os_traits
from oslo_utils import strutils

from nova_clone import exception

# Groups of granular resource requests: resources1:VCPU, trait_gpu:...
_GROUP = r'(?:[a-zA-Z0-9_-]{1,64})?'
# A set of CPUs: 0-3,^2,5
_CPU_SET = r'\^?\d+((-\d+)?(,\^?\d+(-\d+)?)?)*'
_TRAIT_VALUE = ('required', 'forbidden')


class Spec(object):
    """One extra spec: ``pattern`` matches its whole name; ``kind`` is
    'str', 'int' or 'bool', with an optional enum, value pattern or
    bounds."""

    def __init__(self, pattern, kind='str', enum=None, value=None,
                 minimum=None, maximum=None):
        self.name = re.compile(pattern)
        self.kind = kind
        self.enum = enum
        self.value = value
        self.minimum = minimum
        self.maximum = maximum

    def check(self, value):
        if self.kind == 'bool':
            try:
                strutils.bool_from_string(value, strict=True)
            except ValueError:
                _fail("'%s' is not a valid boolean-like value." % value)
        elif self.kind == 'int':
            try:
                number = int(value)
            except ValueError:
                _fail("'%s' is not a valid integer value." % value)
            if self.maximum is not None and number > self.maximum:
                _fail("'%s' is greater than the max value of '%s'."
                      % (value, self.maximum))
            if self.minimum is not None and number < self.minimum:
                _fail("'%s' is less than the min value of '%s'."
                      % (value, self.minimum))
        elif self.value is not None:
            if not re.fullmatch(self.value, value):
                _fail("'%s' is not of the format '%s'." % (value, self.value))
        elif self.enum is not None and value not in self.enum:
            _fail("'%s' is not one of: %s." % (value, ', '.join(self.enum)))


def _fail(reason):
    raise exception.ValidationError(detail='Validation failed; ' + reason)


def _hw_specs():
    flags = ('cpu_realtime', 'hide_hypervisor_id', 'locked_memory',
             'boot_menu', 'vif_multiqueue_enabled', 'mem_encryption', 'pmu',
             'virtio_packed_ring', 'ephemeral_encryption')
    counts = ('numa_nodes', 'cpu_sockets', 'cpu_cores', 'cpu_threads',
              'cpu_max_sockets', 'cpu_max_cores', 'cpu_max_threads')
    enums = {
        'cpu_policy': ('dedicated', 'shared', 'mixed'),
        'cpu_thread_policy': ('prefer', 'isolate', 'require'),
        'emulator_threads_policy': ('isolate', 'share'),
        'pci_numa_affinity_policy': ('required', 'preferred', 'legacy',
                                     'socket'),
        'mem_encryption_model': ('amd-sev', 'amd-sev-es', 'amd-sev-snp'),
        'tpm_model': ('tpm-tis', 'tpm-crb'),
        'tpm_version': ('1.2', '2.0'),
        'tpm_secret_security': ('user', 'host', 'deployment'),
        'watchdog_action': ('none', 'pause', 'poweroff', 'reset',
                            'disabled'),
        'viommu_model': ('intel', 'smmuv3', 'virtio', 'auto'),
        'sound_model': ('sb16', 'es1370', 'pcspk', 'ac97', 'ich6', 'ich9',
                        'usb', 'virtio'),
        'usb_model': ('none', 'nec-xhci', 'qemu-xhci'),
        'ephemeral_encryption_format': ('plain', 'luks', 'luksv2'),
    }
    specs = [Spec('hw:' + name, 'bool') for name in flags]
    specs += [Spec('hw:' + name, 'int', minimum=1) for name in counts]
    specs += [Spec('hw:' + name, enum=values)
              for name, values in enums.items()]
    specs += [
        Spec('hw:cpu_realtime_mask', value=_CPU_SET),
        Spec('hw:cpu_dedicated_mask', value=_CPU_SET),
        Spec('hw:mem_page_size',
             value=r'(large|small|any|\d+([kKMGT]i?)?(b|bit|B)?)'),
        Spec(r'hw:numa_cpus\.\d+', value=_CPU_SET),
        Spec(r'hw:numa_mem\.\d+', 'int', minimum=1),
        Spec('hw:pmem', value='([a-zA-Z0-9_]+(,)?)+'),
        Spec('hw:serial_port_count', 'int', minimum=0),
        Spec('hw:redirected_usb_ports', 'int', minimum=0, maximum=15),
    ]
    return specs


def _quota_specs():
    specs = []
    for key in ('cpu', 'memory', 'disk_io', 'vif'):
        specs += [
            Spec('quota:%s_limit' % key, 'int', minimum=0),
            Spec('quota:%s_reservation' % key, 'int', minimum=0),
            Spec('quota:%s_shares_level' % key,
                 enum=('custom', 'high', 'normal', 'low')),
            Spec('quota:%s_shares_share' % key, 'int', minimum=0),
        ]
    specs += [Spec('quota:cpu_shares', 'int', minimum=0),
              Spec('quota:cpu_period', 'int', minimum=0),
              Spec('quota:cpu_quota', 'int')]
    specs += [Spec('quota:disk_%s_%s_sec' % (stat, metric), 'int', minimum=0)
              for stat in ('read', 'write', 'total')
              for metric in ('bytes', 'iops')]
    specs += [Spec('quota:vif_%s_%s' % (way, metric), 'int', minimum=0)
              for way in ('inbound', 'outbound')
              for metric in ('average', 'peak', 'burst')]
    return specs


_CAPABILITIES = (
    'id', 'uuid', 'service_id', 'host', 'vcpus', 'memory_mb', 'local_gb',
    'vcpus_used', 'memory_mb_used', 'local_gb_used', 'hypervisor_type',
    'hypervisor_version', 'hypervisor_hostname', 'free_ram_mb',
    'free_disk_gb', 'current_workload', 'running_vms',
    'disk_available_least', 'host_ip', 'mapped', 'cpu_allocation_ratio',
    'ram_allocation_ratio', 'disk_allocation_ratio', 'total_usable_ram_mb',
    'total_usable_disk_gb', 'disk_mb_used', 'free_disk_mb', 'vcpus_total',
    'num_instances', 'num_io_ops', 'failed_builds', 'aggregates',
    'cell_uuid', 'updated')
# Capabilities holding a structure: a filter may name a path inside.
_NESTED_CAPABILITIES = (
    'cpu_info', 'metrics', 'stats', 'numa_topology', 'supported_hv_specs',
    'pci_device_pools', 'nodename', 'pci_stats', 'supported_instances',
    'limits', 'instances')


def _other_specs():
    standard_traits = '|'.join(re.escape(t) for t in os_traits.get_traits())
    standard_classes = '|'.join(os_resource_classes.STANDARDS)
    return [
        Spec('hide_hypervisor_id', 'bool'),
        Spec('group_policy', enum=('isolate', 'none')),
        Spec('hw_rng:allowed', 'bool'),
        Spec('hw_rng:rate_bytes', 'int', minimum=0),
        Spec('hw_rng:rate_period', 'int', minimum=0),
        Spec('hw_video:ram_max_mb', 'int', minimum=0),
        Spec('os:secure_boot', enum=('disabled', 'required')),
        Spec('accel:device_profile'),
        Spec('pci_passthrough:alias',
             value=r'[^:]+:\d+(?:\s*,\s*[^:]+:\d+)*'),
        Spec('vmware:hw_version'),
        Spec('vmware:storage_policy'),
        Spec('aggregate_instance_extra_specs:.+'),
        Spec('capabilities:(%s)' % '|'.join(_CAPABILITIES)),
        Spec(r'capabilities:(%s)(:\w+)*' % '|'.join(_NESTED_CAPABILITIES)),
        Spec('resources%s:(%s|CUSTOM_[A-Z0-9_]+)' % (_GROUP, standard_classes),
             'int'),
        Spec('trait%s:(%s|CUSTOM_[A-Z0-9_]+)' % (_GROUP, standard_traits),
             enum=_TRAIT_VALUE),
    ]


# Namespaces whose keys are all known: another key there is a typo.
_NAMESPACES = re.compile(
    '(hw|hw_rng|hw_video|os|accel|pci_passthrough|quota|vmware|'
    'aggregate_instance_extra_specs|capabilities|resources%s|trait%s)'
    % (_GROUP, _GROUP))


@functools.lru_cache(maxsize=None)
def _registry():
    """({exact name: Spec}, [Spec of a name pattern]), built on first use
    (the trait list is long)."""
    exact, patterned = {}, []
    for spec in _hw_specs() + _quota_specs() + _other_specs():
        name = spec.name.pattern
        if re.fullmatch(r'[\w:]+', name):  # no regular expression in it
            exact[name] = spec
        else:
            patterned.append(spec)
    return exact, patterned


def validate(name, value, unknown_ok=False):
    """Raise ValidationError unless ``value`` (a string) suits extra spec
    ``name``; with ``unknown_ok`` a name of a known namespace that is not
    one of its keys passes (a boot ignores such a key)."""
    exact, patterned = _registry()
    spec = exact.get(name)
    if spec is None:
        spec = next((s for s in patterned if s.name.fullmatch(name)), None)
    if spec is not None:
        spec.check(value)
        return
    namespace, sep, _rest = name.partition(':')
    if sep and not unknown_ok and _NAMESPACES.fullmatch(namespace):
        _fail("extra spec '%s' does not appear to be a valid extra spec."
              % name)
