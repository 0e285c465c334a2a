"""The API side of volume attach, detach and swap (scenario 5).

The flow is Nova 34's own, without the conductor the seed diagram draws
between: the API checks the volume with Cinder (status, zone,
multiattach), calls the compute's ``reserve_block_device_name`` (the BDM
with its device name), creates the Cinder attachment (3.44, volume
``reserved``) and casts ``attach_volume`` to the compute, which connects
it.  A server that is shelved-offloaded has no compute: the API makes the
BDM and the attachment and completes it at once (event
``api_attach_volume``); unshelve connects it.
"""

import contextlib

from oslo_log import log as logging

from nova_clone.compute.api import instance_list
from nova_clone.compute import instance_actions
from nova_clone.compute import utils as compute_utils
from nova_clone.compute import vm_states
from nova_clone.conf import CONF
from nova_clone import context as nova_context
from nova_clone import exception

LOG = logging.getLogger(__name__)


def _objects():
    from nova_clone import objects
    return objects


@contextlib.contextmanager
def in_cell(context, instance):
    """``context`` targeted at the instance's cell."""
    mapping = instance_list.get_mapping(context, instance.uuid)
    if mapping.cell_mapping is None:
        raise exception.InstanceNotFound(instance_id=instance.uuid)
    with nova_context.target_cell(context, mapping.cell_mapping) as cctxt:
        yield cctxt


def volume_bdms(cctxt, instance):
    """The instance's BDMs of volumes, in the order they were made."""
    bdms = _objects().BlockDeviceMappingList.get_by_instance_uuid(
        cctxt, instance.uuid)
    return [b for b in bdms if b.destination_type == 'volume' and
            b.volume_id]


def get_volume_bdm(cctxt, instance, volume_id):
    """The BDM of ``volume_id`` on the instance; VolumeBDMNotFound."""
    return _objects().BlockDeviceMapping.get_by_volume_and_instance(
        cctxt, volume_id, instance.uuid)


def _check_zone(volume_api, context, volume, instance):
    try:
        volume_api.check_availability_zone(context, volume, instance)
    except exception.MismatchVolumeAZException:
        raise exception.InvalidVolume(reason=(
            'Instance %(instance)s and volume %(vol)s are not in the same '
            'availability_zone. Instance is in %(ins_zone)s. Volume is in '
            '%(vol_zone)s') % {
                'instance': instance.uuid, 'vol': volume['id'],
                'ins_zone': instance.availability_zone,
                'vol_zone': volume['availability_zone']})


def _check_attachable(compute_api, context, instance, volume,
                      supports_multiattach):
    if volume['multiattach'] and not supports_multiattach:
        raise exception.MultiattachNotSupportedOldMicroversion()
    _check_zone(compute_api.volume_api, context, volume, instance)


def attach_volume(compute_api, context, instance, volume_id, device=None,
                  disk_bus=None, device_type=None, tag=None,
                  supports_multiattach=False, delete_on_termination=False):
    """Attach; the BDM (device name reserved), or None when offloaded."""
    volume = compute_api.volume_api.get(context, volume_id)
    _check_attachable(compute_api, context, instance, volume,
                      supports_multiattach)
    with in_cell(context, instance) as cctxt:
        if instance.vm_state == vm_states.SHELVED_OFFLOADED:
            if tag:
                raise exception.VolumeTaggedAttachToShelvedNotSupported()
            _attach_offloaded(compute_api, cctxt, instance, volume,
                              device, disk_bus, device_type,
                              delete_on_termination)
            return None
        _objects().InstanceAction.action_start(
            cctxt, instance.uuid, instance_actions.ATTACH_VOLUME,
            want_result=False)
        bdm = compute_api.compute_rpcapi.reserve_block_device_name(
            cctxt, instance, device, volume_id, disk_bus, device_type, tag,
            volume['multiattach'])
        try:
            bdm.delete_on_termination = delete_on_termination
            attachment = compute_api.volume_api.attachment_create(
                cctxt, volume_id, instance.uuid)
            bdm.attachment_id = attachment['id']
            bdm.save()
        except Exception:
            with _logged('Could not forget the BDM of volume %s'
                         % volume_id):
                bdm.destroy()
            raise
        compute_api.compute_rpcapi.attach_volume(cctxt, instance, bdm)
        LOG.info('Attach of volume %s to instance %s at %s started',
                 volume_id, instance.uuid, bdm.device_name)
        return bdm


def _attach_offloaded(compute_api, cctxt, instance, volume, device,
                      disk_bus, device_type, delete_on_termination):
    """No host to connect to: record the BDM and a completed attachment."""
    objects = _objects()
    volume_id = volume['id']
    try:
        get_volume_bdm(cctxt, instance, volume_id)
    except exception.VolumeBDMNotFound:
        pass
    else:
        raise exception.InvalidVolume(
            reason='volume %s already attached' % volume_id)
    objects.InstanceAction.action_start(
        cctxt, instance.uuid, instance_actions.ATTACH_VOLUME,
        want_result=False)
    with compute_utils.EventReporter(cctxt, 'api_attach_volume', CONF.host,
                                     instance.uuid):
        bdm = objects.BlockDeviceMapping(
            cctxt, instance_uuid=instance.uuid, source_type='volume',
            destination_type='volume', volume_id=volume_id,
            device_name=device, boot_index=None, disk_bus=disk_bus,
            device_type=device_type or 'disk',
            delete_on_termination=delete_on_termination)
        bdm.create()
        try:
            attachment = compute_api.volume_api.attachment_create(
                cctxt, volume_id, instance.uuid)
            bdm.attachment_id = attachment['id']
            bdm.save()
            compute_api.volume_api.attachment_complete(cctxt,
                                                       attachment['id'])
        except Exception:
            with _logged('Could not undo the attach of volume %s'
                         % volume_id):
                if bdm.attachment_id:
                    compute_api.volume_api.attachment_delete(
                        cctxt, bdm.attachment_id)
                bdm.destroy()
            raise
    LOG.info('Volume %s attached to shelved-offloaded instance %s',
             volume_id, instance.uuid)


@contextlib.contextmanager
def _logged(message):
    """Undo steps after a failure: their own failure is only logged, the
    first one is what the user sees."""
    try:
        yield
    except Exception:
        LOG.exception(message)


def detach_volume(compute_api, context, instance, volume):
    """Detach ``volume`` (Cinder's view of it) from the instance."""
    objects = _objects()
    volume_id = volume['id']
    with in_cell(context, instance) as cctxt:
        bdm = get_volume_bdm(cctxt, instance, volume_id)
        if bdm.is_root:
            raise exception.RootVolumeDetachNotAllowed()
        if instance.vm_state != vm_states.SHELVED_OFFLOADED:
            # Cinder refuses a volume it does not show in use, before
            # anything is recorded.
            compute_api.volume_api.begin_detaching(cctxt, volume_id)
        objects.InstanceAction.action_start(
            cctxt, instance.uuid, instance_actions.DETACH_VOLUME,
            want_result=False)
        if instance.vm_state == vm_states.SHELVED_OFFLOADED:
            with compute_utils.EventReporter(
                    cctxt, 'api_detach_volume', CONF.host, instance.uuid):
                if bdm.attachment_id:
                    compute_api.volume_api.attachment_delete(
                        cctxt, bdm.attachment_id)
                bdm.destroy()
            return
        compute_api.compute_rpcapi.detach_volume(
            cctxt, instance, volume_id, bdm.attachment_id)
        LOG.info('Detach of volume %s from instance %s started', volume_id,
                 instance.uuid)


def swap_volume(compute_api, context, instance, old_volume, new_volume):
    """Move the attachment of ``old_volume`` to ``new_volume``."""
    objects = _objects()
    with in_cell(context, instance) as cctxt:
        get_volume_bdm(cctxt, instance, old_volume['id'])
        if old_volume['status'] not in ('in-use', 'attaching'):
            raise exception.InvalidVolume(
                reason='old volume must be in use')
        if new_volume['status'] != 'available' or \
                new_volume['attachments']:
            raise exception.InvalidVolume(
                reason='new volume must be available')
        if (new_volume['size'] or 0) < (old_volume['size'] or 0):
            raise exception.InvalidVolume(
                reason='new volume must be at least as big as the old one')
        _check_zone(compute_api.volume_api, context, new_volume, instance)
        attachment = compute_api.volume_api.attachment_create(
            cctxt, new_volume['id'], instance.uuid)
        objects.InstanceAction.action_start(
            cctxt, instance.uuid, instance_actions.SWAP_VOLUME,
            want_result=False)
        compute_api.compute_rpcapi.swap_volume(
            cctxt, instance, old_volume['id'], new_volume['id'],
            attachment['id'])


def update_delete_on_termination(context, instance, volume_id, value):
    """PUT of the same volume from 2.85: only this flag changes."""
    with in_cell(context, instance) as cctxt:
        bdm = get_volume_bdm(cctxt, instance, volume_id)
        bdm.delete_on_termination = value
        bdm.save()
