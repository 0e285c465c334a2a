"""restore: a soft-deleted server (DELETE with [DEFAULT]
reclaim_instance_interval > 0) comes back before the compute reclaims
it.  forceDelete is the ordinary delete, never deferred (delete.py)."""

from nova_clone.compute import instance_actions
from nova_clone.compute import task_states
from nova_clone.compute import vm_states


def _objects():
    from nova_clone import objects
    return objects


def restore(compute_api, context, instance):
    _objects().InstanceAction.action_start(
        context, instance.uuid, instance_actions.RESTORE, want_result=False)
    instance.deleted_at = None
    if instance.host:
        # The compute powers the guest on again.
        instance.task_state = task_states.RESTORING
        instance.save(expected_task_state=[None])
        compute_api.compute_rpcapi.restore_instance(context, instance)
        return
    instance.vm_state = vm_states.ACTIVE
    instance.task_state = None
    instance.save(expected_task_state=[None])
