"""Shelve, offload and unshelve on a compute host.

``shelve_instance`` stops the guest and uploads its disk to the image the
API made (image-backed servers); the server is ``shelved`` and keeps its
host until it is offloaded: at once when ``[DEFAULT]
shelved_offload_time`` is 0, by ``poll_shelved_instances`` once it has
been shelved that long, never when -1.  ``shelve_offload_instance``
destroys the guest, keeps each volume reserved for the server by an
attachment without a host, and gives up the host and its Placement
allocation (``shelved_offloaded``).  ``unshelve_instance`` runs on the
host the conductor picked: claim, ports bound here, volumes connected,
spawn from the shelved image.
"""

from oslo_log import log as logging
from oslo_utils import timeutils

from nova_clone.compute.host import block_devices
from nova_clone.compute.host import network_info as network_cache
from nova_clone.compute import power_state
from nova_clone.compute import task_states
from nova_clone.compute import utils as compute_utils
from nova_clone.compute import vm_states
from nova_clone.conf import CONF

LOG = logging.getLogger(__name__)

SHELVED_KEYS = ('shelved_at', 'shelved_image_id', 'shelved_host')


# The driver names the steps of its snapshot; a shelve shows them as its own.
_SHELVING_STEPS = {
    task_states.IMAGE_PENDING_UPLOAD:
        task_states.SHELVING_IMAGE_PENDING_UPLOAD,
    task_states.IMAGE_UPLOADING: task_states.SHELVING_IMAGE_UPLOADING,
}


def _shelving_task_state(instance):
    def update_task_state(task_state, expected_state=task_states.SHELVING):
        instance.task_state = _SHELVING_STEPS[task_state]
        instance.save(expected_task_state=_SHELVING_STEPS.get(
            expected_state, expected_state))
    return update_task_state


def shelve_instance(collab, context, instance, image_id,
                    clean_shutdown=True):
    """Stop the guest, snapshot it to ``image_id``, vm_state shelved."""
    collab.driver.power_off(instance)
    if image_id:
        collab.driver.snapshot(context, instance, image_id,
                               _shelving_task_state(instance))
    instance.system_metadata.update({
        'shelved_at': timeutils.utcnow().isoformat(),
        'shelved_image_id': image_id, 'shelved_host': collab.host})
    instance.power_state = _power_state(collab.driver, instance)
    instance.vm_state = vm_states.SHELVED
    instance.task_state = None
    instance.save()
    LOG.info('Instance %s shelved on %s (image %s)', instance.uuid,
             collab.host, image_id)
    if CONF.shelved_offload_time == 0:
        instance.task_state = task_states.SHELVING_OFFLOADING
        instance.save()
        shelve_offload_instance(collab, context, instance)


def shelve_offload_instance(collab, context, instance, clean_shutdown=True):
    """Take the server off this host; its volumes stay reserved."""
    bdms = block_devices.get_bdms(context, instance)
    collab.driver.power_off(instance)
    collab.driver.destroy(
        context, instance, network_cache.cached(instance),
        block_devices.block_device_info_from_bdms(instance, bdms))
    _disconnect_volumes(collab.volume_api, context, instance, bdms)
    collab.network_api.unbind_ports_from_host(context, instance)
    instance.power_state = power_state.NOSTATE
    instance.vm_state = vm_states.SHELVED_OFFLOADED
    instance.task_state = None
    instance.host = None
    instance.node = None
    instance.save()
    collab.rt.remove_instance(context, instance)
    collab.reportclient.delete_allocation_for_instance(
        context, instance.uuid, force=True)
    LOG.info('Instance %s offloaded from %s', instance.uuid, collab.host)


def _disconnect_volumes(volume_api, context, instance, bdms):
    """Each volume attachment is replaced by one without a connector: the
    volume stays the server's while it has no host."""
    for bdm in bdms:
        if not (block_devices.is_volume_bdm(bdm) and bdm.attachment_id):
            continue
        reserved = volume_api.attachment_create(context, bdm.volume_id,
                                                instance.uuid)
        volume_api.attachment_delete(context, bdm.attachment_id)
        bdm.attachment_id = reserved['id']
        bdm.connection_info = None
        bdm.save()


def unshelve_instance(collab, context, instance, image, filter_properties,
                      node, request_spec=None):
    """Spawn the offloaded server here, from its shelved image."""
    instance.task_state = task_states.SPAWNING
    instance.save(expected_task_state=[task_states.UNSHELVING])
    bdms = block_devices.get_bdms(context, instance)
    # Volumes attached while offloaded get their names now, after the
    # root disk's.
    block_devices.default_device_names(instance, bdms)
    node = node or collab.driver.nodename
    with collab.rt.instance_claim(context, instance, node, None, None):
        network_info = collab.network_api.setup_instance_network_on_host(
            context, instance, collab.host)
        block_device_info = block_devices.prep_block_device(
            collab.driver, collab.volume_api, context, instance, bdms)
        allocations = collab.reportclient.get_allocations_for_consumer(
            context, instance.uuid)
        collab.driver.spawn(context, instance, image or {}, [], None,
                            allocations, network_info=network_info,
                            block_device_info=block_device_info)
    block_devices.complete_volume_attachments(collab.volume_api, context,
                                              bdms)
    network_cache.set_unsaved(instance, network_info)
    shelved_image_id = instance.system_metadata.get('shelved_image_id')
    _active_again(collab.driver, instance, task_states.SPAWNING)
    if shelved_image_id:
        _delete_image(context, shelved_image_id)
    LOG.info('Instance %s unshelved on %s', instance.uuid, collab.host)


def _active_again(driver, instance, expected_task_state):
    """The server runs again: no trace of the shelve left."""
    for key in SHELVED_KEYS:
        instance.system_metadata.pop(key, None)
    instance.power_state = _power_state(driver, instance)
    instance.vm_state = vm_states.ACTIVE
    instance.task_state = None
    instance.save(expected_task_state=expected_task_state)


def poll_shelved_instances(collab, context):
    """Offload the servers shelved here longer than shelved_offload_time."""
    if CONF.shelved_offload_time <= 0:
        return
    objects = compute_utils._objects()
    shelved = objects.InstanceList.get_by_filters(
        context, {'vm_state': vm_states.SHELVED, 'task_state': None,
                  'host': collab.host},
        expected_attrs=['system_metadata'])
    for instance in shelved:
        shelved_at = instance.system_metadata.get('shelved_at')
        if not shelved_at or not timeutils.is_older_than(
                timeutils.parse_isotime(shelved_at).replace(tzinfo=None),
                CONF.shelved_offload_time):
            continue
        LOG.info('Offloading %s, shelved since %s', instance.uuid,
                 shelved_at)
        instance.task_state = task_states.SHELVING_OFFLOADING
        instance.save(expected_task_state=[None])
        shelve_offload_instance(collab, context, instance)


def _delete_image(context, image_id):
    from nova_clone.image import glance
    try:
        glance.API().delete(context, image_id)
    except Exception:
        LOG.warning('Could not delete shelved image %s', image_id,
                    exc_info=True)


def _power_state(driver, instance):
    try:
        return driver.get_info(instance).state
    except Exception:
        return power_state.NOSTATE
