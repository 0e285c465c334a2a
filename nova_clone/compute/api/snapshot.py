"""The API side of createImage and createBackup.

The image record is created in Glance first (queued, with the properties
Nova gives a snapshot: the source image's inheritable properties,
instance_uuid, user_id, base_image_ref, image_type), then the server takes
task_state image_snapshot or image_backup, the action is recorded and the
compute is asked to upload the guest's disk into that image.  A server
the compute is not asked about (refused by its state) leaves no image.

A volume-backed server's createImage runs here, without its compute: a
forced Cinder snapshot of each of its volumes, then an active image with
no data whose ``block_device_mapping`` property maps those snapshots (a
boot from it makes a volume of each, see build.merge_image_bdms).
"""

from oslo_log import log as logging
from oslo_utils import strutils

from nova_clone.compute.api import rebuild as rebuild_flow
from nova_clone.compute import instance_actions
from nova_clone.compute import task_states
from nova_clone.compute import vm_states
from nova_clone.compute import utils as compute_utils
from nova_clone.conf import CONF
from nova_clone import exception

LOG = logging.getLogger(__name__)

# Image attributes a snapshot takes from its source image; every other
# image_* system metadata key is a property.
_INHERITED_ATTRIBUTES = ('min_ram', 'min_disk', 'disk_format',
                         'container_format')
# image_* system metadata that describes the source image's record, not
# what its guest is: not passed on.
_NOT_INHERITED = ('size', 'virtual_size', 'is_public', 'os_hidden',
                  'checksum', 'deleted', 'deleted_at', 'min_ram',
                  'min_disk', 'disk_format', 'container_format',
                  # Nova's default [DEFAULT] non_inheritable_image_properties
                  'cache_in_nova', 'bittorrent',
                  # Signatures belong to the source image's bits.
                  'img_signature', 'img_signature_hash_method',
                  'img_signature_key_type',
                  'img_signature_certificate_uuid')


def _objects():
    from nova_clone import objects
    return objects


def snapshot_metadata(context, instance, name, image_type,
                      extra_properties=None):
    """The image record of a snapshot of ``instance``."""
    system_metadata = instance.system_metadata or {}
    image = {'name': name, 'properties': {}}
    for key, value in system_metadata.items():
        if not key.startswith('image_'):
            continue
        key = key[len('image_'):]
        if key in _INHERITED_ATTRIBUTES:
            image[key] = int(value) if key.startswith('min_') else value
        elif key not in _NOT_INHERITED:
            image['properties'][key] = value
    properties = image['properties']
    properties['instance_uuid'] = instance.uuid
    properties['user_id'] = str(context.user_id)
    properties['image_type'] = image_type
    if instance.image_ref:
        properties['base_image_ref'] = instance.image_ref
    if context.project_id != instance.project_id:
        # An admin's snapshot of someone's server: its owner may see it.
        image['visibility'] = 'shared'
        properties['instance_owner'] = instance.project_id
    else:
        image['visibility'] = 'private'
    properties.update(extra_properties or {})
    if image_type == 'snapshot':
        # The guest's disk may not be in the source image's format: the
        # driver says which format it uploads.
        image.pop('disk_format', None)
        image.pop('container_format', None)
    return image


def _create(compute_api, context, instance, image_meta, task_state,
            action, cast):
    """Create the image record, mark the server busy with it, record the
    action and ``cast(image_id)``; the image goes again if the server
    cannot take the task."""
    image = compute_api.image_api.create(context, image_meta)
    instance.task_state = task_state
    try:
        instance.save(expected_task_state=[None])
    except (exception.UnexpectedTaskStateError,
            exception.InstanceNotFound):
        _delete_image(compute_api, context, image['id'])
        raise
    _objects().InstanceAction.action_start(context, instance.uuid, action,
                                           want_result=False)
    cast(image['id'])
    return image


def _delete_image(compute_api, context, image_id):
    try:
        compute_api.image_api.delete(context, image_id)
    except Exception:
        LOG.exception('Could not delete the unused image %s', image_id)


def snapshot(compute_api, context, instance, name, extra_properties=None):
    """createImage of an image-backed server: the image record (queued)."""
    return _create(
        compute_api, context, instance,
        snapshot_metadata(context, instance, name, 'snapshot',
                          extra_properties),
        task_states.IMAGE_SNAPSHOT, instance_actions.CREATE_IMAGE,
        lambda image_id: compute_api.compute_rpcapi.snapshot_instance(
            context, instance, image_id))


def backup(compute_api, context, instance, name, backup_type, rotation,
           extra_properties=None):
    """createBackup: a snapshot typed ``backup_type``; the compute keeps
    the newest ``rotation`` backups of that type."""
    if rebuild_flow.is_volume_backed(context, instance):
        raise exception.InvalidRequest(
            message='Backup is not supported for volume-backed instances.')
    properties = dict(extra_properties or {}, backup_type=backup_type)
    return _create(
        compute_api, context, instance,
        snapshot_metadata(context, instance, name, 'backup', properties),
        task_states.IMAGE_BACKUP, instance_actions.BACKUP,
        lambda image_id: compute_api.compute_rpcapi.backup_instance(
            context, instance, image_id, backup_type, rotation))


# What an image's block_device_mapping property keeps of a mapping: the
# fields a boot needs, nothing of the server it came from.
IMAGE_MAPPING_FIELDS = (
    'source_type', 'destination_type', 'guest_format', 'device_type',
    'disk_bus', 'boot_index', 'device_name', 'delete_on_termination',
    'snapshot_id', 'volume_id', 'volume_size', 'image_id', 'no_device',
    'tag', 'volume_type', 'encrypted', 'encryption_secret_uuid',
    'encryption_format', 'encryption_options')
# What a volume's snapshot mapping takes from the volume's mapping.
_KEPT_FOR_SNAPSHOT = ('disk_bus', 'device_type', 'boot_index',
                      'delete_on_termination', 'volume_size', 'device_name')


def _image_mapping(bdm):
    return {key: getattr(bdm, key) if bdm.obj_attr_is_set(key) else None
            for key in IMAGE_MAPPING_FIELDS}


def _snapshot_mapping(snapshot_id, bdm):
    mapping = dict.fromkeys(IMAGE_MAPPING_FIELDS)
    mapping.update({key: getattr(bdm, key) for key in _KEPT_FOR_SNAPSHOT})
    mapping.update(source_type='snapshot', destination_type='volume',
                   snapshot_id=snapshot_id)
    return mapping


def _check_snapshot_quota(volume_api, context, count):
    """Cinder's snapshot quota, checked before the first snapshot so a
    server's volumes are snapshotted all or none."""
    limits = volume_api.get_absolute_limits(context)
    allowed = limits.get('maxTotalSnapshots', -1)
    used = limits.get('totalSnapshotsUsed', 0)
    if allowed is not None and allowed > -1 and used + count > allowed:
        raise exception.OverQuota(overs='snapshots')


def snapshot_volume_backed(compute_api, context, instance, name,
                           extra_properties=None):
    """createImage of a volume-backed server: the image record (active,
    size 0), after a snapshot of each volume."""
    image_meta = snapshot_metadata(context, instance, name, 'snapshot',
                                   extra_properties)
    image_meta['size'] = 0
    properties = image_meta['properties']
    # A server booted from such an image inherits these: they describe
    # this snapshot, not that one.
    for key in ('block_device_mapping', 'bdm_v2', 'root_device_name'):
        properties.pop(key, None)
    if instance.root_device_name:
        properties['root_device_name'] = instance.root_device_name
    bdms = _objects().BlockDeviceMappingList.get_by_instance_uuid(
        context, instance.uuid)
    volume_bdms = [bdm for bdm in bdms if bdm.is_volume]
    mapping = [_image_mapping(bdm) for bdm in bdms
               if not bdm.is_volume and not bdm.no_device]
    volume_api = compute_api.volume_api
    if volume_bdms:
        _check_snapshot_quota(volume_api, context, len(volume_bdms))
    _objects().InstanceAction.action_start(
        context, instance.uuid, instance_actions.CREATE_IMAGE,
        want_result=False)
    quiesced = _quiesce(compute_api, context, instance)
    made = []
    try:
        with compute_utils.EventReporter(context, 'api_snapshot_instance',
                                         CONF.host, instance.uuid):
            for bdm in volume_bdms:
                volume = volume_api.get(context, bdm.volume_id)
                snapshot = volume_api.create_snapshot(
                    context, volume['id'], 'snapshot for %s' % name,
                    volume.get('display_description') or '', force=True)
                made.append(snapshot['id'])
                mapping.append(_snapshot_mapping(snapshot['id'], bdm))
        if quiesced:
            quiesced = False
            compute_api.compute_rpcapi.unquiesce_instance(context, instance,
                                                          mapping)
        if mapping:
            properties['block_device_mapping'] = mapping
            properties['bdm_v2'] = True
        image = compute_api.image_api.create(context, image_meta)
    except Exception:
        if quiesced:
            compute_api.compute_rpcapi.unquiesce_instance(context, instance)
        for snapshot_id in made:
            _delete_snapshot(volume_api, context, snapshot_id)
        raise
    LOG.info('Image %s of volume-backed server %s maps snapshots %s',
             image['id'], instance.uuid, ', '.join(made) or '(none)')
    return image


def _quiesce(compute_api, context, instance):
    """Freeze a running guest's filesystems through its compute; True if
    it did.  A guest that cannot be frozen is snapshotted as it is,
    unless its image says it must be (os_require_quiesce)."""
    if instance.vm_state != vm_states.ACTIVE:
        return False
    try:
        compute_api.compute_rpcapi.quiesce_instance(context, instance)
    except (exception.NovaException, NotImplementedError) as exc:
        if strutils.bool_from_string((instance.system_metadata or {}).get(
                'image_os_require_quiesce')):
            raise
        LOG.info('Snapshotting the volumes of %s without quiescing it: %s',
                 instance.uuid, exc or type(exc).__name__)
        return False
    return True


def _delete_snapshot(volume_api, context, snapshot_id):
    try:
        volume_api.delete_snapshot(context, snapshot_id)
    except Exception:
        LOG.exception('Could not delete the unused volume snapshot %s',
                      snapshot_id)
