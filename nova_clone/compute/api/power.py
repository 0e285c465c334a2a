"""The API side of the power and state actions of a server.

stop, start, reboot, pause/unpause, suspend/resume, trigger_crash_dump:
set the task_state the compute expects (the save refuses a concurrent
task), record the instance action and cast the compute.  lock/unlock and
resetState change the record only.  Console output and diagnostics are
calls to the compute.

The API class checks the preconditions (preconditions.py) and passes the
request context; the functions here work in the instance's cell.  The
compute's power state sync calls ``force_stop`` with its own context,
which is its cell's already.
"""

import contextlib

from nova_clone.compute.api import instance_list
from nova_clone.compute.api import preconditions
from nova_clone.compute import instance_actions
from nova_clone.compute import task_states
from nova_clone.compute import utils as compute_utils
from nova_clone.compute import vm_states
from nova_clone.conf import CONF
from nova_clone import context as nova_context
from nova_clone import exception

# The task_states a hard reboot may take over (a soft one needs none).
HARD_REBOOT_TAKES_OVER = preconditions.ACTIONS['reboot:HARD'].task_states

# A console or diagnostics request is refused during these tasks.
_BUSY_TASKS = (task_states.DELETING, task_states.MIGRATING)

SOFT = 'SOFT'
HARD = 'HARD'


def _objects():
    from nova_clone import objects
    return objects


@contextlib.contextmanager
def in_cell(context, instance):
    """The request context targeted at the instance's cell."""
    mapping = instance_list.get_scheduled_mapping(context, instance.uuid)
    with nova_context.target_cell(context, mapping.cell_mapping) as cctxt:
        yield cctxt


def _check_host(instance):
    # A server that never landed on a host has no guest to act on.
    if not instance.host:
        raise exception.InstanceNotReady(instance_id=instance.uuid)


def _start_task(cctxt, instance, task_state, action, expected=(None,)):
    """task_state set (refused if another task got there first) and the
    instance action recorded."""
    _check_host(instance)
    instance.task_state = task_state
    instance.save(expected_task_state=list(expected))
    _objects().InstanceAction.action_start(cctxt, instance.uuid, action,
                                           want_result=False)


def force_stop(rpcapi, cctxt, instance, clean_shutdown=True):
    """Stop without the state checks (the power state sync uses it for a
    guest the hypervisor shows in another state than the record)."""
    instance.progress = 0
    _start_task(cctxt, instance, task_states.POWERING_OFF,
                instance_actions.STOP)
    rpcapi.stop_instance(cctxt, instance, do_cast=True,
                         clean_shutdown=clean_shutdown)


def stop(compute_api, context, instance, clean_shutdown=True):
    with in_cell(context, instance) as cctxt:
        force_stop(compute_api.compute_rpcapi, cctxt, instance,
                   clean_shutdown)


def start(compute_api, context, instance):
    with in_cell(context, instance) as cctxt:
        _start_task(cctxt, instance, task_states.POWERING_ON,
                    instance_actions.START)
        compute_api.compute_rpcapi.start_instance(cctxt, instance)


def reboot(compute_api, context, instance, reboot_type):
    if reboot_type == SOFT:
        task, expected = task_states.REBOOTING, (None,)
    else:
        task, expected = task_states.REBOOTING_HARD, HARD_REBOOT_TAKES_OVER
    with in_cell(context, instance) as cctxt:
        _start_task(cctxt, instance, task, instance_actions.REBOOT,
                    expected=expected)
        compute_api.compute_rpcapi.reboot_instance(
            cctxt, instance, block_device_info=None,
            reboot_type=reboot_type)


# action -> (task_state, instance action, compute RPC method)
_SIMPLE = {
    'pause': (task_states.PAUSING, instance_actions.PAUSE,
              'pause_instance'),
    'unpause': (task_states.UNPAUSING, instance_actions.UNPAUSE,
                'unpause_instance'),
    'suspend': (task_states.SUSPENDING, instance_actions.SUSPEND,
                'suspend_instance'),
    'resume': (task_states.RESUMING, instance_actions.RESUME,
               'resume_instance'),
}


def simple_action(compute_api, context, instance, action):
    """pause, unpause, suspend or resume: one task, one cast."""
    task, action_name, method = _SIMPLE[action]
    with in_cell(context, instance) as cctxt:
        _start_task(cctxt, instance, task, action_name)
        getattr(compute_api.compute_rpcapi, method)(cctxt, instance)


def trigger_crash_dump(compute_api, context, instance):
    _check_host(instance)
    with in_cell(context, instance) as cctxt:
        _objects().InstanceAction.action_start(
            cctxt, instance.uuid, instance_actions.TRIGGER_CRASH_DUMP,
            want_result=False)
        compute_api.compute_rpcapi.trigger_crash_dump(cctxt, instance)


# -- lock -------------------------------------------------------------------

def _locker(context, instance):
    return 'owner' if instance.project_id == context.project_id else 'admin'


def is_expected_locked_by(context, instance):
    """False when the lock was set by the other party (owner vs admin)."""
    return not instance.locked_by or \
        instance.locked_by == _locker(context, instance)


def _set_lock(context, instance, locked, reason=None):
    with in_cell(context, instance) as cctxt:
        instance.locked = locked
        instance.locked_by = _locker(context, instance) if locked else None
        sysmeta = dict(instance.system_metadata or {})
        if locked and reason:
            sysmeta['locked_reason'] = reason
        else:
            sysmeta.pop('locked_reason', None)
        instance.system_metadata = sysmeta
        instance.save()
        action = instance_actions.LOCK if locked else instance_actions.UNLOCK
        _objects().InstanceAction.action_start(cctxt, instance.uuid, action,
                                               want_result=False)
        compute_utils.notify_about_instance_action(
            cctxt, instance, CONF.host, action, source='nova-api')


def lock(context, instance, reason=None):
    _set_lock(context, instance, True, reason)


def unlock(context, instance):
    _set_lock(context, instance, False)


# -- admin ------------------------------------------------------------------

RESET_STATES = {'active': vm_states.ACTIVE, 'error': vm_states.ERROR}


def reset_state(context, instance, state):
    """Force vm_state (active or error) and clear the task."""
    with in_cell(context, instance) as cctxt:
        instance.vm_state = RESET_STATES[state]
        instance.task_state = None
        instance.save(admin_state_reset=True)
        _objects().InstanceAction.action_start(
            cctxt, instance.uuid, instance_actions.RESET_STATE,
            want_result=False)


# -- calls to the compute ---------------------------------------------------

def _check_not_busy(instance, method):
    _check_host(instance)
    if instance.task_state in _BUSY_TASKS:
        raise exception.InstanceInvalidState(
            instance_uuid=instance.uuid, attr='task_state',
            state=instance.task_state, method=method)


def get_console_output(compute_api, context, instance, tail_length=None):
    _check_not_busy(instance, 'get_console_output')
    with in_cell(context, instance) as cctxt:
        return compute_api.compute_rpcapi.get_console_output(
            cctxt, instance, tail_length)


def get_diagnostics(compute_api, context, instance, structured):
    """The 2.48 structure (``structured``) or the driver's free form."""
    _check_not_busy(instance, 'get_diagnostics')
    rpcapi = compute_api.compute_rpcapi
    with in_cell(context, instance) as cctxt:
        if structured:
            return rpcapi.get_instance_diagnostics(cctxt, instance)
        return rpcapi.get_diagnostics(cctxt, instance)
