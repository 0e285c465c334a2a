"""The delete flow: terminate_instance on the instance's compute.

Delete diagram, branch "instance in a cell, compute up", from
"API->>CMP: AMQP cast terminate_instance": the guest, its ports and
volume attachments go (teardown.py), then the volumes marked
delete_on_termination, the Placement allocation, and the row.
"""

from oslo_log import log as logging
from oslo_utils import excutils
from oslo_utils import timeutils

from nova_clone.compute.host import block_devices
from nova_clone.compute.host import collaborators
from nova_clone.compute.host import events as compute_events
from nova_clone.compute.host import teardown
from nova_clone.compute import power_state
from nova_clone.compute import utils as compute_utils
from nova_clone.compute import vm_states
from nova_clone import exception
from nova_clone.volume import release

LOG = logging.getLogger(__name__)


def terminate_instance(collab, context, instance, bdms):
    """Delete the instance; a failure leaves it in ERROR and is raised."""
    # A build of this instance waiting for Neutron events gives up now
    # instead of holding the delete until vif_plugging_timeout.
    compute_events.cancel_waiters(collab.instance_events, instance)
    with collaborators.instance_lock(instance.uuid):
        try:
            delete_instance(collab, context, instance, bdms)
        except exception.InstanceNotFound:
            LOG.info('Instance %s disappeared during terminate',
                     instance.uuid)
        except Exception:
            with excutils.save_and_reraise_exception():
                LOG.exception('Delete of instance %s failed', instance.uuid)
                teardown.set_error_state(instance)


def delete_instance(collab, context, instance, bdms):
    """Every step of a delete, from the guest to the instance's row."""
    if bdms is None:
        bdms = block_devices.get_bdms(context, instance)
    compute_utils.notify_about_instance_action(
        context, instance, collab.host, 'delete', phase='start', bdms=bdms)
    # The emptied network info cache goes with the DELETED save below.
    teardown.shutdown_instance(collab, context, instance, bdms,
                               save_network_cache=False)
    release.release_volumes(collab.volume_api, context, instance, bdms,
                            raise_exc=False)
    # Delete arrow "CMP->>CELLDB: vm_state=deleted": the guest is gone,
    # the record says so whatever task_state the API left on it.
    instance.vm_state = vm_states.DELETED
    instance.task_state = None
    instance.power_state = power_state.NOSTATE
    instance.terminated_at = timeutils.utcnow()
    instance.save()
    # Delete arrow "CMP->>PL: DELETE /allocations/{instance}" (raised: a
    # retry of the delete must still find the instance).
    collab.rt.remove_instance(context, instance)
    collab.reportclient.delete_allocation_for_instance(
        context, instance.uuid, force=True)
    instance.destroy()
    compute_utils.notify_about_instance_action(
        context, instance, collab.host, 'delete', phase='end', bdms=bdms)
