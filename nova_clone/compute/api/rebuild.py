"""The API side of a rebuild: the server gets a new image on its host.

The instance takes the request's changes (name, metadata, key pair, user
data, hostname...) and task_state rebuilding in one save, the action
``rebuild`` is recorded, and the conductor gets ``rebuild_instance``.
When the image changes, the request spec carries the new image and a
rebuild check type, so the conductor has the scheduler check that the
instance's own host accepts the image before the compute re-images it.
"""

from oslo_log import log as logging

from nova_clone.compute.api import build
from nova_clone.compute import instance_actions
from nova_clone.compute import task_states
from nova_clone import exception

LOG = logging.getLogger(__name__)

# The scheduler hint that makes a request spec a rebuild check: no
# Placement claim, only the filters that matter to a new image.
REBUILD_CHECK = {'_nova_check_type': ['rebuild']}

# Instance fields the request may set, by the compute API's keyword.
_SIMPLE_FIELDS = ('display_name', 'display_description', 'access_ip_v4',
                  'access_ip_v6', 'auto_disk_config', 'hostname',
                  'user_data')


def _objects():
    from nova_clone import objects
    return objects


def is_volume_backed(context, instance, bdms=None):
    """The server boots from a volume (no image_ref, or a volume root)."""
    if bdms is None:
        bdms = _objects().BlockDeviceMappingList.get_by_instance_uuid(
            context, instance.uuid)
    for bdm in bdms:
        if bdm.boot_index == 0:
            return bdm.destination_type == 'volume'
    return not instance.image_ref


def _root_volume_image(compute_api, context, bdms):
    """The image a volume-backed server's root volume was made from."""
    for bdm in bdms:
        if bdm.boot_index == 0 and bdm.volume_id:
            volume = compute_api.volume_api.get(context, bdm.volume_id)
            meta = volume.get('volume_image_metadata') or {}
            return meta.get('image_id') or ''
    return ''


def _refresh_image_system_metadata(instance, image):
    """The image_* system metadata describe the new image, not the old."""
    system_metadata = dict(instance.system_metadata or {})
    for key in [k for k in system_metadata if k.startswith('image_')]:
        del system_metadata[key]
    system_metadata.update(build.image_system_metadata(image))
    instance.system_metadata = system_metadata


def _apply_key_pair(compute_api, context, instance, key_name):
    """2.54: a key name replaces the key pair; None removes it."""
    objects = _objects()
    if key_name is None:
        instance.key_name = None
        instance.key_data = None
        instance.keypairs = objects.KeyPairList(objects=[])
        return
    key_pair = compute_api._get_keypair(context, key_name)
    instance.key_name = key_pair.name
    instance.key_data = key_pair.public_key
    instance.keypairs = objects.KeyPairList(objects=[key_pair])


def _request_spec(context, instance, image, image_changed):
    objects = _objects()
    try:
        spec = objects.RequestSpec.get_by_instance_uuid(context,
                                                        instance.uuid)
    except exception.RequestSpecNotFound:
        spec = objects.RequestSpec.from_components(
            context, instance.uuid, image, instance.flavor, None, None,
            {}, None, instance.availability_zone,
            project_id=instance.project_id, user_id=instance.user_id)
    if image_changed:
        spec.image = objects.ImageMeta.from_dict(image)
        hints = dict(spec.scheduler_hints or {})
        hints.update(REBUILD_CHECK)
        spec.scheduler_hints = hints
    return spec


def rebuild(compute_api, context, instance, image_href, admin_password,
            files_to_inject=None, preserve_ephemeral=False,
            reimage_boot_volume=False, metadata=None, key_name=(),
            **changes):
    """Start the rebuild of ``instance`` with ``image_href``.

    ``changes``: instance fields among _SIMPLE_FIELDS.  ``key_name``
    left out keeps the key pair.  ``reimage_boot_volume``: the request's
    microversion (2.93) would allow a new image on a volume-backed
    server.
    """
    objects = _objects()
    bdms = objects.BlockDeviceMappingList.get_by_instance_uuid(
        context, instance.uuid)
    volume_backed = is_volume_backed(context, instance, bdms)
    orig_image_ref = (_root_volume_image(compute_api, context, bdms)
                      if volume_backed else instance.image_ref or '')
    image = compute_api.image_api.get(context, image_href)
    image_changed = image_href != orig_image_ref
    if volume_backed and image_changed:
        # 2.93 allows it in Nova (Cinder re-images the root volume); the
        # compute here cannot re-image a volume yet, so it says so.
        raise exception.ImageUnacceptable(
            image_id=image_href,
            reason='Unable to rebuild with a different image for a '
                   'volume-backed server.' if not reimage_boot_volume else
                   'Re-imaging the root volume of a volume-backed server '
                   'is not supported by this cloud.')
    build.check_flavor_and_image(instance.flavor, image,
                                 is_bfv=volume_backed)
    if metadata is not None:
        from nova_clone import quota
        quota.check_metadata_items(context, metadata)
        instance.metadata = dict(metadata)
    if key_name != ():
        _apply_key_pair(compute_api, context, instance, key_name)
    for field, value in changes.items():
        if field not in _SIMPLE_FIELDS:
            raise TypeError('rebuild() got an unexpected field %r' % field)
        setattr(instance, field, value)
    orig_sys_metadata = dict(instance.system_metadata or {})
    _refresh_image_system_metadata(instance, image)
    if not volume_backed:
        instance.image_ref = image_href
    build.apply_image_properties(instance, image)
    instance.progress = 0
    instance.task_state = task_states.REBUILDING
    instance.save(expected_task_state=[None])

    spec = _request_spec(context, instance, image, image_changed)
    objects.InstanceAction.action_start(
        context, instance.uuid, instance_actions.REBUILD, want_result=False)
    LOG.info('Rebuilding instance %s with image %s', instance.uuid,
             image_href)
    compute_api.compute_task_api.rebuild_instance(
        context, instance=instance, new_pass=admin_password,
        injected_files=files_to_inject or [], image_ref=image_href,
        orig_image_ref=orig_image_ref,
        orig_sys_metadata=orig_sys_metadata, bdms=bdms,
        recreate=False, on_shared_storage=False,
        preserve_ephemeral=preserve_ephemeral, host=None,
        request_spec=spec, reimage_boot_volume=reimage_boot_volume)
