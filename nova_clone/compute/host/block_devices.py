"""Block devices of a compute's guests: the Cinder attachments a build
makes, and the driver's block_device_info.

Detaching and deleting volumes is part of the teardown (teardown.py).
"""

import time

from oslo_log import log as logging
from oslo_serialization import jsonutils

from nova_clone.compute import utils as compute_utils
from nova_clone.conf import CONF
from nova_clone import exception

LOG = logging.getLogger(__name__)


def is_volume_bdm(bdm):
    return getattr(bdm, 'destination_type', None) == 'volume'


def default_device_names(instance, bdms):
    """Give every volume BDM a device name (vda for the root, then vdb...)."""
    used = {b.device_name for b in bdms if getattr(b, 'device_name', None)}
    letters = iter('abcdefghijklmnopqrstuvwxyz')
    for bdm in sorted(bdms, key=lambda b: (b.boot_index is None or
                                           b.boot_index < 0,
                                           b.boot_index or 0)):
        if getattr(bdm, 'device_name', None):
            continue
        for letter in letters:
            name = '/dev/vd%s' % letter
            if name not in used:
                used.add(name)
                bdm.device_name = name
                break
        if bdm.boot_index == 0 and not getattr(instance, 'root_device_name',
                                               None):
            instance.root_device_name = bdm.device_name


def block_device_info_from_bdms(instance, bdms):
    mapping = []
    for bdm in bdms or []:
        if not is_volume_bdm(bdm):
            continue
        connection_info = getattr(bdm, 'connection_info', None)
        if isinstance(connection_info, str):
            try:
                connection_info = jsonutils.loads(connection_info)
            except ValueError:
                connection_info = None
        mapping.append({'connection_info': connection_info,
                        'mount_device': bdm.device_name,
                        'delete_on_termination': bdm.delete_on_termination,
                        'attachment_id': bdm.attachment_id})
    return {'root_device_name': getattr(instance, 'root_device_name', None),
            'ephemerals': [], 'swap': None,
            'block_device_mapping': mapping}


def get_bdms(context, instance):
    """The instance's block device mappings, from the database."""
    bdm_list = compute_utils._objects().BlockDeviceMappingList
    return bdm_list.get_by_instance_uuid(context, instance.uuid)


def prep_block_device(driver, volume_api, context, instance, bdms):
    """Attach every volume BDM to this host; block_device_info.

    Boot arrow "CMP->>CIN: POST attachments (3.44)".
    """
    volume_bdms = [b for b in bdms or [] if is_volume_bdm(b)]
    mapping = []
    if not volume_bdms:
        return {'root_device_name': getattr(instance, 'root_device_name',
                                            None),
                'ephemerals': [], 'swap': None,
                'block_device_mapping': mapping}
    default_device_names(instance, volume_bdms)
    connector = driver.get_volume_connector(instance)
    for bdm in volume_bdms:
        if not bdm.volume_id:
            _create_volume_for_bdm(volume_api, context, instance, bdm)
        if not bdm.attachment_id:
            attachment = volume_api.attachment_create(
                context, bdm.volume_id, instance.uuid)
            bdm.attachment_id = attachment['id']
        attachment = volume_api.attachment_update(
            context, bdm.attachment_id, connector, bdm.device_name)
        connection_info = attachment.get('connection_info') or {}
        bdm.connection_info = jsonutils.dumps(connection_info)
        bdm.save()
        mapping.append({
            'connection_info': connection_info,
            'mount_device': bdm.device_name,
            'boot_index': bdm.boot_index,
            'delete_on_termination': bdm.delete_on_termination,
            'disk_bus': getattr(bdm, 'disk_bus', None),
            'device_type': getattr(bdm, 'device_type', None),
            'attachment_id': bdm.attachment_id,
        })
    return {'root_device_name': getattr(instance, 'root_device_name',
                                        None),
            'ephemerals': [], 'swap': None,
            'block_device_mapping': mapping}


def _create_volume_for_bdm(volume_api, context, instance, bdm):
    """Boot from image/snapshot/blank to a new volume: create, wait."""
    kwargs = {}
    if bdm.source_type == 'image':
        kwargs['image_id'] = bdm.image_id
    elif bdm.source_type == 'snapshot':
        kwargs['snapshot'] = volume_api.get_snapshot(context,
                                                     bdm.snapshot_id)
    if getattr(bdm, 'volume_type', None):
        kwargs['volume_type'] = bdm.volume_type
    volume = volume_api.create(
        context, bdm.volume_size,
        '%s-blank-vol' % instance.uuid if bdm.source_type == 'blank'
        else '', '', availability_zone=getattr(
            instance, 'availability_zone', None), **kwargs)
    bdm.volume_id = volume['id']
    bdm.save()
    attempts = max(1, CONF.block_device_allocate_retries)
    for _ in range(attempts):
        volume = volume_api.get(context, bdm.volume_id)
        status = volume.get('status')
        if status == 'available':
            return
        if status == 'error':
            break
        time.sleep(CONF.block_device_allocate_retries_interval)
    raise exception.BuildAbortException(
        instance_uuid=instance.uuid,
        reason='Volume %s did not finish being created (status %s).'
               % (bdm.volume_id, volume.get('status')))


def complete_volume_attachments(volume_api, context, bdms):
    """Boot arrow "CMP->>CIN: ... complete", once the guest runs."""
    for bdm in bdms or []:
        if is_volume_bdm(bdm) and bdm.attachment_id:
            volume_api.attachment_complete(context, bdm.attachment_id)
