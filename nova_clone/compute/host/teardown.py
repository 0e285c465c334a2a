"""Taking an instance's resources off this host.

One set of steps for every flow that undoes work here: a failed build,
a delete, the reaping of a guest whose instance was deleted, the
destination's side of a resize revert and a failed move.  What a delete
does to the volumes is in nova_clone.volume.release, shared with the
API's local delete.  Each step names what it releases; a flow picks the
steps it needs.
"""

from oslo_log import log as logging

from nova_clone.compute.host import block_devices
from nova_clone.compute.host import network_info as network_cache
from nova_clone.compute import vm_states
from nova_clone import exception
from nova_clone.volume import release

LOG = logging.getLogger(__name__)


def shutdown_instance(collab, context, instance, bdms,
                      requested_networks=None, deallocate_networks=True,
                      network_info=None, save_network_cache=True):
    """Destroy the guest, release its networks and volume connections.

    Delete arrows "CMP->>CMP: driver.destroy", "CMP->>NEU: unbind / delete
    ports" and the attachments of "CMP->>CIN: DELETE attachments".

    ``deallocate_networks=False`` (a failed build): the ports stay for the
    flow to release, and the BDMs forget their attachments so the next
    attempt makes its own.  ``save_network_cache=False``: the caller's
    next instance.save() stores the emptied network info cache.
    """
    if network_info is None:
        network_info = network_cache.cached(instance)
    block_device_info = block_devices.block_device_info_from_bdms(
        instance, bdms)
    LOG.info('Destroying guest of instance %s on %s', instance.uuid,
             collab.host)
    collab.driver.destroy(context, instance, network_info,
                          block_device_info)
    if deallocate_networks:
        release_networks(collab.network_api, context, instance,
                         requested_networks, raise_exc=True,
                         save_cache=save_network_cache)
    release.release_attachments(collab.volume_api, context, bdms,
                                forget=not deallocate_networks)


def release_networks(network_api, context, instance, requested_networks,
                     raise_exc=False, save_cache=True):
    """Unbind or delete the instance's ports; empty its network cache."""
    try:
        network_api.deallocate_for_instance(
            context, instance, requested_networks=requested_networks,
            save_cache=save_cache)
    except Exception:
        if raise_exc:
            raise
        LOG.exception('Failed to deallocate networks of %s', instance.uuid)
    if save_cache:
        network_cache.save(instance, [])
    else:
        network_cache.set_unsaved(instance, [])


def release_allocation(reportclient, context, instance):
    """Remove the instance's Placement allocations; a failure is logged."""
    try:
        reportclient.delete_allocation_for_instance(
            context, instance.uuid, force=True)
    except Exception:
        LOG.exception('Could not delete the allocations of %s',
                      instance.uuid)


def set_error_state(instance, clean_task_state=False):
    """vm_state ERROR (and no task, if asked); a vanished row is fine."""
    try:
        instance.vm_state = vm_states.ERROR
        if clean_task_state:
            instance.task_state = None
        instance.save()
    except exception.InstanceNotFound:
        LOG.debug('Instance %s gone while setting ERROR', instance.uuid)
