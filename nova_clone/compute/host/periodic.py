"""The periodic checks of this host's guests against the database.

Power states follow the hypervisor; a guest still running for an instance
deleted in the database is logged, powered off or reaped.
"""

from oslo_log import log as logging
from oslo_utils import timeutils

from nova_clone.compute.api import power as api_power
from nova_clone.compute.host import block_devices
from nova_clone.compute.host import collaborators
from nova_clone.compute.host import teardown
from nova_clone.compute import power_state
from nova_clone.compute import utils as compute_utils
from nova_clone.compute import vm_states
from nova_clone.conf import CONF
from nova_clone import exception
from nova_clone.volume import release

LOG = logging.getLogger(__name__)


def sync_power_states(collab, context):
    """Record the hypervisor's power state of each guest here, and stop
    the servers whose guest went down (or came up) behind the API."""
    instances = compute_utils._objects().InstanceList.get_by_host(
        context, collab.host, expected_attrs=[])
    for instance in instances:
        try:
            with collaborators.instance_lock(instance.uuid):
                sync_instance_power_state(collab, context, instance)
        except Exception:
            LOG.exception('Power state sync of %s failed', instance.uuid)


# vm_states whose guest may be in any power state.
_UNCHECKED = (vm_states.BUILDING, vm_states.RESCUED, vm_states.RESIZED,
              vm_states.SUSPENDED, vm_states.ERROR)
_DOWN = (power_state.SHUTDOWN, power_state.CRASHED)


def sync_instance_power_state(collab, context, instance):
    if instance.task_state is not None:
        # Some operation owns the instance; it sets the state itself.
        return
    try:
        vm_power = collab.driver.get_info(instance).state
    except exception.InstanceNotFound:
        vm_power = power_state.NOSTATE
    if instance.power_state != vm_power:
        instance.power_state = vm_power
        instance.save()
    vm_state = instance.vm_state
    if vm_state in _UNCHECKED:
        return
    stop = False
    if vm_state == vm_states.ACTIVE:
        if vm_power in _DOWN or vm_power == power_state.SUSPENDED:
            LOG.warning('Instance %s is ACTIVE but its guest is %s: '
                        'stopping it', instance.uuid,
                        power_state.name(vm_power))
            stop = True
        elif vm_power == power_state.PAUSED:
            LOG.warning('Instance %s is paused unexpectedly; ignoring',
                        instance.uuid)
        elif vm_power == power_state.NOSTATE:
            # Gone from the hypervisor behind our back: recorded, left to
            # the operator (as Nova does).
            LOG.warning('Guest of ACTIVE instance %s not found on the '
                        'hypervisor', instance.uuid)
    elif vm_state == vm_states.STOPPED:
        if vm_power not in _DOWN + (power_state.NOSTATE,):
            LOG.warning('Instance %s is stopped but its guest is %s: '
                        'stopping it', instance.uuid,
                        power_state.name(vm_power))
            stop = True
    elif vm_state == vm_states.PAUSED and vm_power in _DOWN:
        LOG.warning('Paused instance %s shut down by itself: stopping it',
                    instance.uuid)
        stop = True
    if stop:
        # As the API's stop: task powering-off, action stop, and the
        # cast to this host records the stopped state.
        api_power.force_stop(collab.compute_rpcapi,
                             context.elevated(), instance)


def cleanup_running_deleted_instances(collab, context):
    """Act on guests still running for instances deleted in the DB."""
    action = CONF.running_deleted_instance_action
    if action == 'noop':
        return
    ctxt = context.elevated(read_deleted='yes')
    for instance in _running_deleted_instances(collab.driver, ctxt):
        if action == 'log':
            LOG.warning('Guest %s of deleted instance %s is still on the '
                        'hypervisor', instance.name, instance.uuid)
        elif action == 'shutdown':
            LOG.info('Powering off the guest of deleted instance %s',
                     instance.uuid)
            try:
                collab.driver.power_off(instance)
            except Exception:
                LOG.exception('Power off of %s failed', instance.uuid)
        elif action == 'reap':
            LOG.info('Destroying the guest of deleted instance %s',
                     instance.uuid)
            try:
                bdms = block_devices.get_bdms(ctxt, instance)
                teardown.shutdown_instance(collab, ctxt, instance, bdms)
                release.release_volumes(collab.volume_api, ctxt, instance,
                                        bdms, raise_exc=False)
            except Exception:
                LOG.exception('Reaping the guest of %s failed',
                              instance.uuid)


def _running_deleted_instances(driver, context):
    uuids = driver.list_instance_uuids()
    if not uuids:
        return []
    instances = compute_utils._objects().InstanceList.get_by_filters(
        context, {'uuid': uuids, 'deleted': True, 'soft_deleted': False},
        expected_attrs=['info_cache'])
    timeout = CONF.running_deleted_instance_timeout
    return [inst for inst in instances
            if not inst.deleted_at or
            timeutils.is_older_than(inst.deleted_at, timeout)]
