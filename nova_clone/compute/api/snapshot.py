"""The API side of createImage and createBackup.

The image record is created in Glance first (queued, with the properties
Nova gives a snapshot: the source image's inheritable properties,
instance_uuid, user_id, base_image_ref, image_type), then the server takes
task_state image_snapshot or image_backup, the action is recorded and the
compute is asked to upload the guest's disk into that image.  A server
the compute is not asked about (refused by its state) leaves no image.
"""

from oslo_log import log as logging

from nova_clone.compute.api import rebuild as rebuild_flow
from nova_clone.compute import instance_actions
from nova_clone.compute import task_states
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
