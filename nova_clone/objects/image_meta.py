"""ImageMeta: a Glance image as the scheduler and drivers see it.

``ImageMetaProps`` holds the well-known properties (hw_*, img_*, os_*)
as typed fields; unknown properties are dropped, legacy names are mapped
to current ones, and ``trait:NAME=required`` properties become
``traits_required``.
"""

import copy

from oslo_utils import timeutils

from nova_clone.objects import base
from nova_clone.objects import fields

# Old property names still found on images, and what they mean today.
LEGACY_PROPERTY_NAMES = {
    'architecture': 'hw_architecture',
    'owner_id': 'img_owner_id',
    'vmware_adaptertype': 'hw_scsi_model',
    'vmware_disktype': 'hw_disk_type',
    'vmware_ostype': 'os_distro',
    'auto_disk_config': 'hw_auto_disk_config',
    'ipxe_boot': 'hw_ipxe_boot',
    'hypervisor_type': 'img_hv_type',
    'hypervisor_version_requires': 'img_hv_requested_version',
    'vm_mode': 'hw_vm_mode',
    'vmware_image_version': 'img_version',
}

_S = fields.StringField
_I = fields.IntegerField
_NI = fields.NonNegativeIntegerField
_B = fields.FlexibleBooleanField


@base.NovaObjectRegistry.register
class ImageMetaProps(base.NovaObject):
    VERSION = '1.38'

    fields = {
        'hw_architecture': fields.ArchitectureField(),
        'hw_emulation_architecture': fields.ArchitectureField(),
        'hw_auto_disk_config': _S(),
        'hw_boot_menu': _B(),
        'hw_cdrom_bus': fields.DiskBusField(),
        'hw_cpu_cores': _NI(),
        'hw_cpu_sockets': _NI(),
        'hw_cpu_threads': _NI(),
        'hw_cpu_max_cores': _NI(),
        'hw_cpu_max_sockets': _NI(),
        'hw_cpu_max_threads': _NI(),
        'hw_cpu_policy': fields.CPUAllocationPolicyField(),
        'hw_cpu_thread_policy': fields.CPUThreadAllocationPolicyField(),
        'hw_cpu_realtime_mask': _S(),
        'hw_disk_bus': fields.DiskBusField(),
        'hw_disk_type': _S(),
        'hw_ephemeral_encryption': _B(),
        'hw_ephemeral_encryption_format':
            fields.BlockDeviceEncryptionFormatTypeField(),
        'hw_firmware_type': fields.FirmwareTypeField(),
        'hw_firmware_stateless': _B(),
        'hw_floppy_bus': fields.DiskBusField(),
        'hw_input_bus': fields.InputBusField(),
        'hw_ipxe_boot': _B(),
        'hw_locked_memory': _B(),
        'hw_machine_type': _S(),
        'hw_maxphysaddr_mode': _S(),
        'hw_maxphysaddr_bits': _NI(),
        'hw_mem_encryption': _B(),
        'hw_mem_page_size': _S(),
        'hw_numa_nodes': _NI(),
        'hw_numa_cpus': fields.ListOfSetsOfIntegersField(),
        'hw_numa_mem': fields.ListOfIntegersField(),
        'hw_pci_numa_affinity_policy': _S(),
        'hw_pmu': _B(),
        'hw_pointer_model': fields.PointerModelField(),
        'hw_qemu_guest_agent': _B(),
        'hw_rescue_bus': fields.DiskBusField(),
        'hw_rescue_device': fields.BlockDeviceTypeField(),
        'hw_rng_model': _S(),
        'hw_serial_port_count': _NI(),
        'hw_scsi_model': _S(),
        'hw_time_hpet': _B(),
        'hw_tpm_model': _S(),
        'hw_tpm_version': _S(),
        'hw_video_model': fields.VideoModelField(),
        'hw_video_ram': _NI(),
        'hw_vif_model': fields.VIFModelField(),
        'hw_vif_multiqueue_enabled': _B(),
        'hw_viommu_model': _S(),
        'hw_virtio_packed_ring': _B(),
        'hw_vm_mode': fields.VMModeField(),
        'hw_watchdog_action': fields.WatchdogActionField(),
        'hw_device_id': _S(),
        'img_bittorrent': _B(),
        'img_bdm_v2': _B(),
        'img_block_device_mapping': fields.ListOfDictOfNullableStringsField(),
        'img_cache_in_nova': _B(),
        'img_compression_level': _NI(),
        'img_config_drive': fields.ConfigDrivePolicyField(),
        'img_hide_hypervisor_id': _B(),
        'img_hv_requested_version': fields.VersionPredicateField(),
        'img_hv_type': fields.HVTypeField(),
        'img_linked_clone': _B(),
        'img_mappings': fields.ListOfDictOfNullableStringsField(),
        'img_owner_id': _S(),
        'img_root_device_name': _S(),
        'img_signature': _S(),
        'img_signature_hash_method': _S(),
        'img_signature_certificate_uuid': _S(),
        'img_signature_key_type': _S(),
        'img_use_agent': _B(),
        'img_version': _I(),
        'os_admin_user': _S(),
        'os_command_line': _S(),
        'os_distro': _S(),
        'os_require_quiesce': _B(),
        'os_secure_boot': fields.SecureBootField(),
        'os_skip_agent_inject_files_at_boot': _B(),
        'os_skip_agent_inject_ssh': _B(),
        'os_type': fields.OSTypeField(),
        'traits_required': fields.ListOfStringsField(),
        'socket_pci_numa_affinity_policy': _S(),
    }

    def get(self, name, defvalue=None):
        """The property value, or ``defvalue`` when unset."""
        if name not in self.fields:
            raise AttributeError(
                'Unknown image property %s' % name)
        if not self.obj_attr_is_set(name):
            return defvalue
        return getattr(self, name)

    def _set_attr(self, name, value):
        if name == 'hw_numa_cpus' and isinstance(value, str):
            value = [set(int(c) for c in value.split(','))]
        if name in ('hw_architecture', 'hw_emulation_architecture'):
            value = fields.Architecture.canonicalize(value)
        setattr(self, name, value)

    @classmethod
    def from_dict(cls, image_props):
        """Build from Glance's ``properties`` dict; raises ValueError on a
        property with an invalid value."""
        obj = cls()
        numa_cpus, numa_mem = {}, {}
        traits = []
        for key, value in (image_props or {}).items():
            key = LEGACY_PROPERTY_NAMES.get(key, key)
            if key.startswith('trait:'):
                if str(value).lower() == 'required':
                    traits.append(key[len('trait:'):])
                continue
            if key.startswith('hw_numa_cpus.'):
                numa_cpus[int(key.split('.')[1])] = value
                continue
            if key.startswith('hw_numa_mem.'):
                numa_mem[int(key.split('.')[1])] = int(value)
                continue
            if key in cls.fields and key not in ('hw_numa_cpus',
                                                 'hw_numa_mem',
                                                 'traits_required'):
                if value is None:
                    continue
                obj._set_attr(key, value)
        if numa_cpus:
            obj.hw_numa_cpus = [
                set(int(c) for c in str(numa_cpus[i]).split(','))
                for i in sorted(numa_cpus)]
        if numa_mem:
            obj.hw_numa_mem = [numa_mem[i] for i in sorted(numa_mem)]
        if traits:
            obj.traits_required = traits
        return obj

    def to_dict(self):
        """The set properties as a flat dict (Glance's shape)."""
        result = {}
        for name in self.fields:
            if not self.obj_attr_is_set(name):
                continue
            value = getattr(self, name)
            if name == 'traits_required':
                for trait in value:
                    result['trait:%s' % trait] = 'required'
            elif name == 'hw_numa_cpus':
                for i, cpus in enumerate(value):
                    result['hw_numa_cpus.%d' % i] = ','.join(
                        str(c) for c in sorted(cpus))
            elif name == 'hw_numa_mem':
                for i, mem in enumerate(value):
                    result['hw_numa_mem.%d' % i] = mem
            else:
                result[name] = value
        return result


@base.NovaObjectRegistry.register
class ImageMeta(base.NovaObject):
    VERSION = '1.8'

    fields = {
        'id': fields.UUIDField(),
        'name': fields.StringField(),
        'checksum': fields.StringField(),
        'container_format': fields.StringField(),
        'disk_format': fields.StringField(),
        'created_at': fields.DateTimeField(nullable=True),
        'updated_at': fields.DateTimeField(nullable=True),
        'direct_url': fields.StringField(),
        'min_disk': fields.IntegerField(),
        'min_ram': fields.IntegerField(),
        'owner': fields.StringField(),
        'properties': fields.ObjectField('ImageMetaProps'),
        'protected': fields.BooleanField(),
        'size': fields.IntegerField(),
        'status': fields.StringField(),
        'tags': fields.ListOfStringsField(),
        'virtual_size': fields.IntegerField(),
        'visibility': fields.StringField(),
    }

    @classmethod
    def from_dict(cls, image_meta):
        """Build from a Glance image dict (unknown keys ignored)."""
        image_meta = copy.deepcopy(dict(image_meta or {}))
        props = image_meta.pop('properties', {}) or {}
        # Glance v2 puts custom properties at the top level.
        for key in list(image_meta):
            if key not in cls.fields:
                props.setdefault(key, image_meta.pop(key))
        for key in ('created_at', 'updated_at'):
            if isinstance(image_meta.get(key), str):
                image_meta[key] = timeutils.parse_isotime(
                    image_meta[key]).replace(tzinfo=None)
        for key in ('min_disk', 'min_ram', 'size', 'virtual_size'):
            if image_meta.get(key) is None:
                image_meta.pop(key, None)
        image_meta = {k: v for k, v in image_meta.items()
                      if v is not None or cls.fields[k].nullable}
        obj = cls(**image_meta)
        obj.properties = ImageMetaProps.from_dict(props)
        return obj

    @classmethod
    def from_instance(cls, instance):
        """Rebuild from the image_* keys an instance keeps in its system
        metadata (what it was booted from)."""
        sysmeta = {}
        if instance.obj_attr_is_set('system_metadata'):
            sysmeta = instance.system_metadata or {}
        image_meta = {}
        props = {}
        for key, value in sysmeta.items():
            if not key.startswith('image_'):
                continue
            name = key[len('image_'):]
            if name in ('min_disk', 'min_ram', 'size'):
                try:
                    image_meta[name] = int(value)
                except (TypeError, ValueError):
                    pass
            elif name in ('container_format', 'disk_format', 'checksum',
                          'name', 'owner', 'status'):
                image_meta[name] = value
            else:
                props[name] = value
        image_ref = getattr(instance, 'image_ref', None)
        if image_ref:
            image_meta['id'] = image_ref
        image_meta['properties'] = props
        return cls.from_dict(image_meta)

    @classmethod
    def from_image_ref(cls, context, image_api, image_ref):
        """Fetch ``image_ref`` with the Glance client and wrap it."""
        return cls.from_dict(image_api.get(context, image_ref))
