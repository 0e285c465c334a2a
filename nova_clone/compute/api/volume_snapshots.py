"""Finding the server a volume is attached to, for the Cinder-assisted
snapshots (os-assisted-volume-snapshots): Cinder knows the attachment,
the server's cell has the block device mapping."""

from nova_clone.compute.api import instance_list
from nova_clone import context as nova_context
from nova_clone import exception


def _objects():
    from nova_clone import objects
    return objects


def attached_instance(context, volume_api, volume_id):
    """The instance ``volume_id`` is attached to (VolumeBDMNotFound when
    none, VolumeBDMIsMultiAttach when several)."""
    volume = volume_api.get(context, volume_id)
    servers = list(volume['attachments'])
    if not servers:
        raise exception.VolumeBDMNotFound(volume_id=volume_id)
    if len(servers) > 1:
        raise exception.VolumeBDMIsMultiAttach(volume_id=volume_id)
    instance, mapping = instance_list.get_one_and_mapping(context,
                                                          servers[0])
    if mapping.cell_mapping is None:
        raise exception.VolumeBDMNotFound(volume_id=volume_id)
    with nova_context.target_cell(context, mapping.cell_mapping) as cctxt:
        _objects().BlockDeviceMapping.get_by_volume_and_instance(
            cctxt, volume_id, instance.uuid)
    return instance
