"""Volumes of a running guest: reserve a device, attach, detach, swap.

Scenario 5, compute side.  The API asks ``reserve_block_device_name``
(a call: the BDM exists with its device name when it answers), creates
the Cinder attachment itself, then casts ``attach_volume``: the attachment
gets this host's connector (volume ``attaching``), the driver attaches the
disk, the attachment is completed (volume ``in-use``).  A failed attach
undoes all three: no BDM, no attachment, the volume ``available`` again,
the server untouched.
"""

from oslo_log import log as logging
from oslo_serialization import jsonutils
from oslo_utils import excutils

from nova_clone.compute.host import block_devices
from nova_clone.compute.host import collaborators
from nova_clone.compute import utils as compute_utils
from nova_clone import exception
from nova_clone.volume import release

LOG = logging.getLogger(__name__)


def reserve_block_device_name(collab, context, instance, device, volume_id,
                              disk_bus=None, device_type=None, tag=None,
                              multiattach=False):
    """Create the volume's BDM with the next free device name; return it."""
    objects = compute_utils._objects()
    if tag and not collab.driver.capabilities.get(
            'supports_tagged_attach_volume'):
        raise exception.VolumeTaggedAttachNotSupported()
    if multiattach and not collab.driver.capabilities.get(
            'supports_multiattach'):
        raise exception.MultiattachNotSupportedByVirtDriver(
            volume_id=volume_id)
    with collaborators.instance_lock(instance.uuid):
        bdms = block_devices.get_bdms(context, instance)
        if any(b.volume_id == volume_id for b in bdms):
            raise exception.InvalidVolume(
                reason='volume %s already attached' % volume_id)
        used = {b.device_name for b in bdms if b.device_name}
        if device and device in used:
            raise exception.DevicePathInUse(path=device)
        bdm = objects.BlockDeviceMapping(
            context, instance_uuid=instance.uuid, source_type='volume',
            destination_type='volume', volume_id=volume_id,
            device_name=None, boot_index=None, disk_bus=disk_bus,
            device_type=device_type or 'disk', tag=tag,
            delete_on_termination=False)
        # A requested name is a hint a guest may not honour (as in Nova):
        # the next free name of the bus is the one used.
        block_devices.default_device_names(instance, list(bdms) + [bdm])
        bdm.create()
    LOG.info('Reserved %s for volume %s of instance %s', bdm.device_name,
             volume_id, instance.uuid)
    return bdm


def attach_volume(collab, context, instance, bdm):
    """Connect the reserved BDM's volume to the guest."""
    try:
        connect(collab, context, instance, bdm)
    except Exception:
        LOG.exception('Attaching volume %s to instance %s failed',
                      bdm.volume_id, instance.uuid)
        _forget(collab, context, bdm)
        raise


def connect(collab, context, instance, bdm):
    """Attachment update with the connector, driver attach, complete.

    Also the unshelve of a server whose volumes were attached while it
    had no host.
    """
    connector = collab.driver.get_volume_connector(instance)
    attachment = collab.volume_api.attachment_update(
        context, bdm.attachment_id, connector, bdm.device_name)
    connection_info = attachment.get('connection_info') or {}
    bdm.connection_info = jsonutils.dumps(connection_info)
    bdm.save()
    collab.driver.attach_volume(
        context, connection_info, instance, bdm.device_name,
        disk_bus=bdm.disk_bus, device_type=bdm.device_type)
    collab.volume_api.attachment_complete(context, bdm.attachment_id)
    LOG.info('Volume %s attached to instance %s at %s', bdm.volume_id,
             instance.uuid, bdm.device_name)


def _forget(collab, context, bdm):
    """A failed attach leaves no attachment and no BDM behind."""
    release.release_attachments(collab.volume_api, context, [bdm])
    try:
        bdm.destroy()
    except exception.NotFound:
        pass


def detach_volume(collab, context, volume_id, instance, attachment_id=None):
    """Driver detach, attachment deleted, BDM destroyed."""
    objects = compute_utils._objects()
    bdm = objects.BlockDeviceMapping.get_by_volume_and_instance(
        context, volume_id, instance.uuid)
    connection_info = _connection_info(bdm)
    try:
        if collab.driver.instance_exists(instance):
            collab.driver.detach_volume(context, connection_info, instance,
                                        bdm.device_name)
    except Exception:
        with excutils.save_and_reraise_exception():
            LOG.exception('The guest of %s kept volume %s', instance.uuid,
                          volume_id)
            collab.volume_api.roll_detaching(context, volume_id)
    release.release_attachments(collab.volume_api, context, [bdm],
                                raise_exc=True)
    bdm.destroy()
    LOG.info('Volume %s detached from instance %s', volume_id,
             instance.uuid)


def swap_volume(collab, context, old_volume_id, new_volume_id, instance,
                new_attachment_id):
    """Move the guest's disk from one volume to another (admin swap)."""
    objects = compute_utils._objects()
    bdm = objects.BlockDeviceMapping.get_by_volume_and_instance(
        context, old_volume_id, instance.uuid)
    connector = collab.driver.get_volume_connector(instance)
    try:
        attachment = collab.volume_api.attachment_update(
            context, new_attachment_id, connector, bdm.device_name)
        new_info = attachment.get('connection_info') or {}
        collab.driver.swap_volume(context, _connection_info(bdm), new_info,
                                  instance, bdm.device_name, None)
    except Exception:
        LOG.exception('Swapping volume %s for %s on instance %s failed',
                      old_volume_id, new_volume_id, instance.uuid)
        collab.volume_api.attachment_delete(context, new_attachment_id)
        raise
    collab.volume_api.attachment_complete(context, new_attachment_id)
    old_attachment_id = bdm.attachment_id
    bdm.volume_id = new_volume_id
    bdm.attachment_id = new_attachment_id
    bdm.connection_info = jsonutils.dumps(new_info)
    bdm.save()
    collab.volume_api.attachment_delete(context, old_attachment_id)
    LOG.info('Volume %s of instance %s swapped for %s', old_volume_id,
             instance.uuid, new_volume_id)


def _connection_info(bdm):
    try:
        return jsonutils.loads(bdm.connection_info or '{}')
    except ValueError:
        return {}
