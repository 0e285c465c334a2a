"""The API side of a boot: validate the request, build the records.

Nothing here touches a cell: the instances are objects only, stored inside
their build requests in the API database until the conductor has chosen a
host (scenario 1 of the spec).
"""

import re

from oslo_utils import strutils
from oslo_utils import timeutils
from oslo_utils import uuidutils

from nova_clone.api import validation_extra_specs
from nova_clone.compute import power_state
from nova_clone.compute import task_states
from nova_clone.compute import vm_states
from nova_clone.conf import CONF
from nova_clone import exception

MULTI_NAME_TEMPLATE = '%(name)s-%(count)d'
# Image properties copied into system metadata (Nova's image_ prefix).
_SKIP_IMAGE_KEYS = ('id', 'name', 'status', 'checksum', 'created_at',
                    'updated_at', 'deleted', 'deleted_at', 'properties',
                    'owner', 'locations', 'direct_url', 'file', 'schema',
                    'self', 'tags', 'visibility', 'protected', 'os_hash_algo',
                    'os_hash_value')


def _objects():
    from nova_clone import objects
    return objects


def check_flavor_extra_specs(flavor):
    """A flavor may hold values stored before 2.86 checked them
    (``hw:cpu_policy: evil``): a boot on it is refused with 400 rather
    than failing on every host."""
    for name, value in sorted((flavor.extra_specs or {}).items()):
        try:
            validation_extra_specs.validate(name, str(value),
                                            unknown_ok=True)
        except exception.ValidationError as exc:
            raise exception.ValidationError(
                detail="Flavor %s has an invalid extra spec %s: %s"
                       % (flavor.flavorid, name, exc.format_message()))


def image_property(image, name, default=None):
    props = (image or {}).get('properties') or {}
    return props.get(name, image.get(name, default) if image else default)


def apply_image_properties(instance, image):
    """The instance fields its image decides (at boot and rebuild)."""
    instance.os_type = image_property(image, 'os_type')
    instance.architecture = image_property(image, 'hw_architecture')
    instance.vm_mode = image_property(image, 'hw_vm_mode')
    # A direct kernel boot's images, wherever the server goes later.
    instance.kernel_id = image_property(image, 'kernel_id') or ''
    instance.ramdisk_id = image_property(image, 'ramdisk_id') or ''


def check_flavor_and_image(flavor, image, is_bfv=False):
    """Nova's checks of the image against the flavor."""
    if image is None:
        return
    if image.get('status', 'active') != 'active':
        raise exception.ImageNotActive(image_id=image.get('id'))
    min_ram = int(image.get('min_ram') or 0)
    if min_ram > flavor.memory_mb:
        raise exception.FlavorMemoryTooSmall()
    if is_bfv:
        return
    root_gb = flavor.root_gb or 0
    min_disk = int(image.get('min_disk') or 0)
    size = int(image.get('size') or 0)
    if root_gb:
        if min_disk > root_gb:
            raise exception.FlavorDiskTooSmall()
        if size > root_gb * 1024 ** 3:
            raise exception.FlavorDiskTooSmall()


def sanitize_hostname(name, default='Server'):
    """A DNS label from a display name (Nova's rules, simplified)."""
    host = re.sub(r'[ _\.]', '-', name or '')
    host = re.sub(r'[^\w-]+', '', host, flags=re.ASCII).lower()
    host = host.strip('.-')[:63]
    return host or default.lower()


def display_names(name, count):
    if count <= 1:
        return [name]
    return [MULTI_NAME_TEMPLATE % {'name': name, 'count': i + 1}
            for i in range(count)]


def image_system_metadata(image):
    meta = {}
    if not image:
        return meta
    for key, value in image.items():
        if key in _SKIP_IMAGE_KEYS or value is None:
            continue
        meta['image_%s' % key] = str(value)
    for key, value in (image.get('properties') or {}).items():
        if value is not None:
            meta['image_%s' % key] = str(value)
    return meta


def is_volume_backed(image_href, bdms):
    """No image, or a root mapping (boot_index 0) to a volume."""
    for bdm in bdms or []:
        if str(bdm.get('boot_index')) == '0':
            return bdm.get('destination_type') == 'volume'
    return not image_href


def merge_image_bdms(image, bdm_dicts):
    """The request's mappings plus those the image defines (a snapshot of
    a volume-backed server maps its volumes' snapshots); the request's
    win where both name a device.  An image that maps its own root
    drops the request's image root (clients add one for imageRef)."""
    properties = (image or {}).get('properties') or {}
    image_bdms = properties.get('block_device_mapping') or []
    if not image_bdms or not strutils.bool_from_string(
            properties.get('bdm_v2')):
        return bdm_dicts
    requested = list(bdm_dicts or [])
    if any(str(b.get('boot_index')) == '0' for b in image_bdms):
        requested = [b for b in requested if not (
            str(b.get('boot_index')) == '0' and
            b.get('source_type') == 'image')]
    named = {b.get('device_name') for b in requested if b.get('device_name')}
    return requested + [dict(b) for b in image_bdms
                        if b.get('device_name') not in named]


def build_bdm_list(context, image_href, image, flavor, bdm_dicts,
                   volume_api=None):
    """BlockDeviceMapping objects (not yet in any cell) for the request."""
    objects = _objects()
    bdms = []
    has_root = False
    for raw in bdm_dicts or []:
        bdm = dict(raw)
        source = bdm.get('source_type')
        dest = bdm.get('destination_type') or (
            'volume' if source in ('volume', 'snapshot') else 'local')
        boot_index = bdm.get('boot_index')
        try:
            boot_index = int(boot_index) if boot_index is not None else None
        except (TypeError, ValueError):
            raise exception.InvalidBDM()
        if boot_index == 0:
            has_root = True
        values = {
            'source_type': source, 'destination_type': dest,
            'boot_index': boot_index,
            'delete_on_termination': bool(bdm.get('delete_on_termination')),
            'device_name': bdm.get('device_name'),
            'volume_size': bdm.get('volume_size'),
            'guest_format': bdm.get('guest_format'),
            'device_type': bdm.get('device_type'),
            'disk_bus': bdm.get('disk_bus'),
            'tag': bdm.get('tag'),
            'volume_type': bdm.get('volume_type'),
        }
        # An image's mappings name their source by <source>_id.
        uuid = bdm.get('uuid') or bdm.get('%s_id' % source)
        if source == 'volume':
            if not uuid:
                raise exception.InvalidBDM()
            if volume_api is not None:
                # VolumeNotFound if missing.
                volume = volume_api.get(context, uuid)
                if boot_index == 0 and not volume.get('bootable', True):
                    raise exception.InvalidBDMVolumeNotBootable(id=uuid)
            values['volume_id'] = uuid
        elif source == 'snapshot':
            values['snapshot_id'] = uuid
        elif source == 'image':
            values['image_id'] = uuid or image_href
        elif source != 'blank':
            raise exception.InvalidBDM()
        bdms.append(values)
    if image_href and not has_root:
        bdms.insert(0, {'source_type': 'image', 'destination_type': 'local',
                        'boot_index': 0, 'delete_on_termination': True,
                        'image_id': image_href, 'device_name': None,
                        'volume_size': None, 'guest_format': None,
                        'device_type': 'disk', 'disk_bus': None,
                        'tag': None, 'volume_type': None})
    elif not image_href and not has_root:
        raise exception.InvalidBDM(
            message='Block Device Mapping is Invalid: Boot sequence for the '
                    'instance and image/block device mapping combination '
                    'is not valid.')
    return [objects.BlockDeviceMapping(
        context=context, uuid=uuidutils.generate_uuid(),
        **{k: v for k, v in b.items() if v is not None or k in (
            'boot_index',)}) for b in bdms]


def new_instance(context, flavor, image_href, image, *, uuid, index,
                 display_name, display_description, hostname, key_pair,
                 availability_zone, metadata, user_data, config_drive,
                 access_ip_v4, access_ip_v6, reservation_id, launch_index,
                 security_groups=None):
    """An Instance object as the build request stores it."""
    objects = _objects()
    instance = objects.Instance(context=context)
    instance.uuid = uuid
    instance.user_id = context.user_id
    instance.project_id = context.project_id
    instance.image_ref = image_href or ''
    instance.flavor = flavor
    instance.old_flavor = None
    instance.new_flavor = None
    instance.instance_type_id = flavor.id
    instance.memory_mb = flavor.memory_mb
    instance.vcpus = flavor.vcpus
    instance.root_gb = flavor.root_gb
    instance.ephemeral_gb = flavor.ephemeral_gb
    instance.display_name = display_name
    instance.display_description = display_description
    instance.hostname = hostname
    instance.key_name = key_pair.name if key_pair else None
    instance.key_data = key_pair.public_key if key_pair else None
    if key_pair is not None:
        instance.keypairs = objects.KeyPairList(objects=[key_pair])
    instance.availability_zone = availability_zone
    instance.metadata = dict(metadata or {})
    instance.system_metadata = image_system_metadata(image)
    instance.user_data = user_data
    instance.config_drive = 'True' if config_drive else ''
    instance.access_ip_v4 = access_ip_v4
    instance.access_ip_v6 = access_ip_v6
    instance.reservation_id = reservation_id
    instance.launch_index = launch_index
    instance.vm_state = vm_states.BUILDING
    instance.task_state = task_states.SCHEDULING
    instance.power_state = power_state.NOSTATE
    instance.progress = 0
    instance.locked = False
    instance.host = None
    instance.node = None
    instance.launched_on = None
    instance.launched_at = None
    instance.terminated_at = None
    apply_image_properties(instance, image)
    instance.root_device_name = None
    instance.info_cache = objects.InstanceInfoCache(instance_uuid=uuid,
                                                    network_info='[]')
    instance.tags = objects.TagList(objects=[])
    # Names, as the server views show them (not looked up per server in
    # Neutron).
    instance.security_groups = list(security_groups or ['default'])
    instance.deleted = False
    instance.cell_name = None
    instance.ephemeral_key_uuid = None
    instance.created_at = timeutils.utcnow()
    instance.updated_at = None
    return instance


def parse_availability_zone(context, availability_zone):
    """(zone, forced_host, forced_node) from 'zone[:host[:node]]'."""
    if not availability_zone:
        return CONF.default_schedule_zone, None, None
    zone, host, node = (availability_zone.split(':') + [None, None])[:3]
    if (host or node) and not context.is_admin:
        raise exception.Forbidden()
    return zone or None, host or None, node or None
