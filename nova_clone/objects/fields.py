"""Field types of the versioned objects.

Every oslo.versionedobjects field is re-exported under its usual name, and
the enumerations Nova's objects use (states, block-device kinds, hardware
properties, ...) are defined here with the same valid values.
"""

import os_resource_classes as orc
from oslo_versionedobjects import fields

# -- re-exports --------------------------------------------------------------

_OVO_NAMES = [
    'Field', 'FieldType', 'AutoTypedField', 'BaseEnumField', 'Enum',
    'String', 'SensitiveString', 'Integer', 'NonNegativeInteger', 'Float',
    'NonNegativeFloat', 'Boolean', 'FlexibleBoolean', 'DateTime',
    'IPAddress', 'IPV4Address', 'IPV6Address', 'IPNetwork', 'UUID',
    'List', 'Dict', 'Set', 'Object', 'CompoundFieldType',
    'StringField', 'SensitiveStringField', 'VersionPredicateField',
    'EnumField', 'StateMachine', 'UUIDField', 'MACAddressField',
    'PCIAddressField', 'IntegerField', 'NonNegativeIntegerField',
    'FloatField', 'NonNegativeFloatField', 'BooleanField',
    'FlexibleBooleanField', 'DateTimeField', 'DictOfStringsField',
    'DictOfNullableStringsField', 'DictOfIntegersField',
    'ListOfStringsField', 'SetOfStringsField', 'ListOfListsOfStringsField',
    'DictOfListOfStringsField', 'DictOfSetOfIntegersField',
    'ListOfEnumField', 'SetOfIntegersField', 'ListOfSetsOfIntegersField',
    'ListOfIntegersField', 'ListOfDictOfNullableStringsField',
    'ObjectField', 'ListOfObjectsField', 'ListOfUUIDField',
    'IPAddressField', 'IPV4AddressField', 'IPV6AddressField',
    'IPV4AndV6AddressField', 'IPNetworkField', 'IPV4NetworkField',
    'IPV6NetworkField', 'UnspecifiedDefault', 'CoercedList',
    'CoercedDict', 'CoercedSet',
]
for _name in _OVO_NAMES:
    globals()[_name] = getattr(fields, _name)

Field = fields.Field
Enum = fields.Enum
BaseEnumField = fields.BaseEnumField
AutoTypedField = fields.AutoTypedField
FieldType = fields.FieldType


def _enum(class_name, values, **constants):
    """Build an Enum subclass whose ALL is ``values`` and whose upper-case
    attributes name each value (``InstanceState.ACTIVE == 'active'``)."""
    attrs = dict(constants)
    attrs['ALL'] = tuple(values)

    def __init__(self):
        Enum.__init__(self, valid_values=type(self).ALL)
    attrs['__init__'] = __init__
    return type(class_name, (Enum,), attrs)


def _consts(values):
    return {v.upper().replace('-', '_').replace('.', '_'): v
            for v in values}


def _field(class_name, enum_cls):
    return type(class_name, (BaseEnumField,), {'AUTO_TYPE': enum_cls()})


# -- enumerations ------------------------------------------------------------

_ARCHES = ('alpha', 'armv6', 'armv7l', 'armv7b', 'aarch64', 'cris', 'i686',
           'ia64', 'lm32', 'm68k', 'microblaze', 'microblazeel', 'mips',
           'mipsel', 'mips64', 'mips64el', 'openrisc', 'parisc', 'parisc64',
           'ppc', 'ppcle', 'ppc64', 'ppc64le', 'ppcemb', 's390', 's390x',
           'sh4', 'sh4eb', 'sparc', 'sparc64', 'unicore32', 'x86_64',
           'xtensa', 'xtensaeb')
Architecture = _enum('Architecture', _ARCHES, **_consts(_ARCHES))
Architecture.canonicalize = staticmethod(
    lambda name: {'amd64': 'x86_64', 'x64': 'x86_64', 'i386': 'i686',
                  'i486': 'i686', 'i586': 'i686', 'x86_32': 'i686',
                  'arm64': 'aarch64', 'armv7': 'armv7l'}.get(
        (name or '').lower(), (name or '').lower()))

_BDM_SOURCE = ('blank', 'image', 'snapshot', 'volume')
BlockDeviceSourceType = _enum('BlockDeviceSourceType', _BDM_SOURCE,
                              **_consts(_BDM_SOURCE))
_BDM_DEST = ('local', 'volume')
BlockDeviceDestinationType = _enum('BlockDeviceDestinationType', _BDM_DEST,
                                   **_consts(_BDM_DEST))
_BDM_TYPE = ('cdrom', 'disk', 'floppy', 'fs', 'lun')
BlockDeviceType = _enum('BlockDeviceType', _BDM_TYPE, **_consts(_BDM_TYPE))
_BDM_ENC = ('plain', 'luks', 'luksv2')
BlockDeviceEncryptionFormatType = _enum(
    'BlockDeviceEncryptionFormatType', _BDM_ENC, **_consts(_BDM_ENC))

_CONFIG_DRIVE = ('optional', 'mandatory')
ConfigDrivePolicy = _enum('ConfigDrivePolicy', _CONFIG_DRIVE,
                          **_consts(_CONFIG_DRIVE))

_CPU_POLICY = ('dedicated', 'shared', 'mixed')
CPUAllocationPolicy = _enum('CPUAllocationPolicy', _CPU_POLICY,
                            **_consts(_CPU_POLICY))
_CPU_THREADS = ('prefer', 'isolate', 'require')
CPUThreadAllocationPolicy = _enum('CPUThreadAllocationPolicy', _CPU_THREADS,
                                  **_consts(_CPU_THREADS))
_CPU_MODE = ('custom', 'host-model', 'host-passthrough', 'maximum')
CPUMode = _enum('CPUMode', _CPU_MODE, **_consts(_CPU_MODE))

_DISK_BUS = ('fdc', 'ide', 'sata', 'scsi', 'usb', 'virtio', 'xen', 'lxc',
             'uml')
DiskBus = _enum('DiskBus', _DISK_BUS, **_consts(_DISK_BUS))
_DISK_CONFIG = ('MANUAL', 'AUTO')
DiskConfig = _enum('DiskConfig', _DISK_CONFIG, MANUAL='MANUAL', AUTO='AUTO')

_FIRMWARE = ('bios', 'uefi')
FirmwareType = _enum('FirmwareType', _FIRMWARE, **_consts(_FIRMWARE))

_HV_TYPES = ('baremetal', 'bhyve', 'docker', 'fake', 'hyperv', 'ironic',
             'kvm', 'lxc', 'lxd', 'parallels', 'qemu', 'test', 'uml', 'vbox',
             'virtuozzo', 'vmware', 'xen', 'zvm', 'powervm')
HVType = _enum('HVType', _HV_TYPES, **_consts(_HV_TYPES))

_OS_TYPES = ('linux', 'windows')
OSType = _enum('OSType', _OS_TYPES, **_consts(_OS_TYPES))

_VM_MODES = ('hvm', 'xen', 'uml', 'exe')
VMMode = _enum('VMMode', _VM_MODES, **_consts(_VM_MODES))

_SECURE_BOOT = ('required', 'disabled', 'optional')
SecureBoot = _enum('SecureBoot', _SECURE_BOOT, **_consts(_SECURE_BOOT))

_VIF_MODELS = ('virtio', 'ne2k_pci', 'pcnet', 'rtl8139', 'e1000', 'e1000e',
               'netfront', 'spapr-vlan', 'lan9118', 'igb')
VIFModel = _enum('VIFModel', _VIF_MODELS, **_consts(_VIF_MODELS))

_VIDEO_MODELS = ('vga', 'cirrus', 'vmvga', 'xen', 'qxl', 'gop', 'none',
                 'virtio', 'bochs')
VideoModel = _enum('VideoModel', _VIDEO_MODELS, **_consts(_VIDEO_MODELS))

_WATCHDOG = ('disabled', 'pause', 'poweroff', 'reset', 'none')
WatchdogAction = _enum('WatchdogAction', _WATCHDOG, **_consts(_WATCHDOG))

_INPUT_BUS = ('usb', 'virtio')
InputBus = _enum('InputBus', _INPUT_BUS, **_consts(_INPUT_BUS))

_POINTER = ('usbtablet',)
PointerModelType = _enum('PointerModelType', _POINTER, USBTABLET='usbtablet')

_VM_STATES = ('active', 'building', 'paused', 'suspended', 'stopped',
              'rescued', 'resized', 'soft-delete', 'deleted', 'error',
              'shelved', 'shelved_offloaded')
InstanceState = _enum('InstanceState', _VM_STATES, **_consts(_VM_STATES))

_TASK_STATES = (
    'scheduling', 'block_device_mapping', 'networking', 'spawning',
    'image_snapshot', 'image_snapshot_pending', 'image_pending_upload',
    'image_uploading', 'image_backup', 'updating_password', 'resize_prep',
    'resize_migrating', 'resize_migrated', 'resize_finish',
    'resize_reverting', 'resize_confirming', 'rebooting', 'reboot_pending',
    'reboot_started', 'rebooting_hard', 'reboot_pending_hard',
    'reboot_started_hard', 'pausing', 'unpausing', 'suspending', 'resuming',
    'powering-off', 'powering-on', 'rescuing', 'unrescuing', 'rebuilding',
    'rebuild_block_device_mapping', 'rebuild_spawning', 'migrating',
    'deleting', 'soft-deleting', 'restoring', 'shelving',
    'shelving_image_pending_upload', 'shelving_image_uploading',
    'shelving_offloading', 'unshelving')
InstanceTaskState = _enum('InstanceTaskState', _TASK_STATES,
                          **_consts(_TASK_STATES))

_POWER_STATES = ('pending', 'running', 'paused', 'shutdown', 'crashed',
                 'suspended')
InstancePowerState = _enum('InstancePowerState', _POWER_STATES,
                           **_consts(_POWER_STATES))
# The integer stored in the database for each power state name.
InstancePowerState._STATE_MAP = {0: 'pending', 1: 'running', 3: 'paused',
                                 4: 'shutdown', 6: 'crashed',
                                 7: 'suspended'}
InstancePowerState.from_index = classmethod(
    lambda cls, index: cls._STATE_MAP[index])
InstancePowerState.index = classmethod(
    lambda cls, name: {v: k for k, v in cls._STATE_MAP.items()}[name])

_MIGRATION_TYPES = ('migration', 'resize', 'live-migration', 'evacuation')
MigrationType = _enum('MigrationType', _MIGRATION_TYPES,
                      **_consts(_MIGRATION_TYPES))

_NOTIF_PRIORITY = ('audit', 'critical', 'debug', 'info', 'error', 'sample',
                   'warn')
NotificationPriority = _enum('NotificationPriority', _NOTIF_PRIORITY,
                             **_consts(_NOTIF_PRIORITY))
_NOTIF_PHASE = ('start', 'end', 'error', 'progress')
NotificationPhase = _enum('NotificationPhase', _NOTIF_PHASE,
                          **_consts(_NOTIF_PHASE))
_NOTIF_SOURCE = ('nova-api', 'nova-conductor', 'nova-scheduler',
                 'nova-compute', 'nova-manage')
NotificationSource = _enum('NotificationSource', _NOTIF_SOURCE,
                           API='nova-api', CONDUCTOR='nova-conductor',
                           SCHEDULER='nova-scheduler',
                           COMPUTE='nova-compute', MANAGE='nova-manage')

_ALLOCATION_DIRECTIONS = ('source', 'destination')
AllocationDirection = _enum('AllocationDirection', _ALLOCATION_DIRECTIONS,
                            **_consts(_ALLOCATION_DIRECTIONS))

_KEYPAIR_TYPES = ('ssh', 'x509')
KeypairType = _enum('KeypairType', _KEYPAIR_TYPES, **_consts(_KEYPAIR_TYPES))

_SERVER_GROUP_POLICIES = ('anti-affinity', 'affinity', 'soft-anti-affinity',
                          'soft-affinity')
ServerGroupPolicy = _enum('ServerGroupPolicy', _SERVER_GROUP_POLICIES,
                          **_consts(_SERVER_GROUP_POLICIES))


class ResourceClass(fields.StringPattern):
    """A Placement resource class: a standard one or CUSTOM_*."""

    STANDARD = tuple(orc.STANDARDS)
    CUSTOM_NAMESPACE = orc.CUSTOM_NAMESPACE

    @staticmethod
    def coerce(obj, attr, value):
        value = str(value)
        if value in orc.STANDARDS or orc.is_custom(value):
            return value
        raise ValueError('%s is not a valid resource class' % value)


for _name in ('VCPU', 'MEMORY_MB', 'DISK_GB', 'PCPU', 'VGPU',
              'SRIOV_NET_VF'):
    setattr(ResourceClass, _name, getattr(orc, _name))


# -- enum fields -------------------------------------------------------------

ArchitectureField = _field('ArchitectureField', Architecture)
BlockDeviceSourceTypeField = _field('BlockDeviceSourceTypeField',
                                    BlockDeviceSourceType)
BlockDeviceDestinationTypeField = _field('BlockDeviceDestinationTypeField',
                                         BlockDeviceDestinationType)
BlockDeviceTypeField = _field('BlockDeviceTypeField', BlockDeviceType)
BlockDeviceEncryptionFormatTypeField = _field(
    'BlockDeviceEncryptionFormatTypeField', BlockDeviceEncryptionFormatType)
ConfigDrivePolicyField = _field('ConfigDrivePolicyField', ConfigDrivePolicy)
CPUAllocationPolicyField = _field('CPUAllocationPolicyField',
                                  CPUAllocationPolicy)
CPUThreadAllocationPolicyField = _field('CPUThreadAllocationPolicyField',
                                        CPUThreadAllocationPolicy)
CPUModeField = _field('CPUModeField', CPUMode)
DiskBusField = _field('DiskBusField', DiskBus)
DiskConfigField = _field('DiskConfigField', DiskConfig)
FirmwareTypeField = _field('FirmwareTypeField', FirmwareType)
HVTypeField = _field('HVTypeField', HVType)
OSTypeField = _field('OSTypeField', OSType)
VMModeField = _field('VMModeField', VMMode)
SecureBootField = _field('SecureBootField', SecureBoot)
VIFModelField = _field('VIFModelField', VIFModel)
VideoModelField = _field('VideoModelField', VideoModel)
WatchdogActionField = _field('WatchdogActionField', WatchdogAction)
InputBusField = _field('InputBusField', InputBus)
PointerModelField = _field('PointerModelField', PointerModelType)
InstanceStateField = _field('InstanceStateField', InstanceState)
InstanceTaskStateField = _field('InstanceTaskStateField', InstanceTaskState)
InstancePowerStateField = _field('InstancePowerStateField',
                                 InstancePowerState)
MigrationTypeField = _field('MigrationTypeField', MigrationType)
NotificationPriorityField = _field('NotificationPriorityField',
                                   NotificationPriority)
NotificationPhaseField = _field('NotificationPhaseField', NotificationPhase)
NotificationSourceField = _field('NotificationSourceField',
                                 NotificationSource)
AllocationDirectionField = _field('AllocationDirectionField',
                                  AllocationDirection)
KeypairTypeField = _field('KeypairTypeField', KeypairType)
ServerGroupPolicyField = _field('ServerGroupPolicyField', ServerGroupPolicy)


class ResourceClassField(AutoTypedField):
    AUTO_TYPE = ResourceClass()


class ListOfListsOfUUIDsField(AutoTypedField):
    AUTO_TYPE = fields.List(fields.List(fields.UUID()))


class DictOfListOfIntegersField(AutoTypedField):
    AUTO_TYPE = fields.Dict(fields.List(fields.Integer()))


class Json(FieldType):
    """Any JSON-serializable value, sent as is."""

    @staticmethod
    def coerce(obj, attr, value):
        return value

    @staticmethod
    def to_primitive(obj, attr, value):
        return value

    @staticmethod
    def from_primitive(obj, attr, value):
        return value


class JsonField(AutoTypedField):
    AUTO_TYPE = Json()
