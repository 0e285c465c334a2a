"""The power and state actions on this host's guests.

stop_instance, start_instance, reboot_instance, pause/unpause,
suspend/resume, trigger_crash_dump, console output and diagnostics.
Each action: ``instance.<action>.start`` notification, the driver call,
the power state read back from the hypervisor, the vm_state the action
leads to with the task cleared (the save expects the task_state the API
set, so a concurrent delete wins), ``instance.<action>.end``.

A driver failure is raised to the manager, whose decorators record the
fault and the event's Error and clear the task_state (reverts_task_state):
the vm_state stays what it was, as in Nova, except for a reboot that
leaves the guest not running (ERROR).
"""

from oslo_log import log as logging
from oslo_utils import excutils

from nova_clone.compute.host import block_devices
from nova_clone.compute.host import network_info as network_cache
from nova_clone.compute.host import teardown
from nova_clone.compute import power_state
from nova_clone.compute import task_states
from nova_clone.compute import utils as compute_utils
from nova_clone.compute import vm_states
from nova_clone import exception

LOG = logging.getLogger(__name__)


def get_power_state(driver, instance):
    try:
        return driver.get_info(instance).state
    except exception.InstanceNotFound:
        return power_state.NOSTATE


def _block_device_info(context, instance):
    return block_devices.block_device_info_from_bdms(
        instance, block_devices.get_bdms(context, instance))


def _finish(collab, context, instance, action, vm_state, expected_task):
    instance.power_state = get_power_state(collab.driver, instance)
    instance.vm_state = vm_state
    instance.task_state = None
    instance.save(expected_task_state=expected_task)
    compute_utils.notify_about_instance_action(
        context, instance, collab.host, action, phase='end')


def _notify_start(collab, context, instance, action):
    compute_utils.notify_about_instance_action(
        context, instance, collab.host, action, phase='start')


def stop_instance(collab, context, instance, clean_shutdown=True):
    # The power state sync stops a guest that went down by itself with
    # the same task_state as the API; either way powering-off is expected.
    _notify_start(collab, context, instance, 'power_off')
    if clean_shutdown:
        collab.driver.power_off(instance, timeout=60, retry_interval=10)
    else:
        collab.driver.power_off(instance)
    _finish(collab, context, instance, 'power_off', vm_states.STOPPED,
            [task_states.POWERING_OFF, None])


def start_instance(collab, context, instance):
    _notify_start(collab, context, instance, 'power_on')
    collab.driver.power_on(context, instance,
                           network_cache.cached(instance),
                           _block_device_info(context, instance))
    _finish(collab, context, instance, 'power_on', vm_states.ACTIVE,
            task_states.POWERING_ON)


_REBOOT_TASKS = {
    'SOFT': (task_states.REBOOT_PENDING, task_states.REBOOT_STARTED,
             (task_states.REBOOTING, task_states.REBOOT_PENDING,
              task_states.REBOOT_STARTED)),
    'HARD': (task_states.REBOOT_PENDING_HARD,
             task_states.REBOOT_STARTED_HARD,
             (task_states.REBOOTING_HARD, task_states.REBOOT_PENDING_HARD,
              task_states.REBOOT_STARTED_HARD)),
}


def reboot_instance(collab, context, instance, block_device_info,
                    reboot_type):
    """rebooting -> reboot_pending -> reboot_started (or their _hard
    versions), then ACTIVE.  A failed reboot of a guest still running is
    only a fault; one that leaves it down puts the server in ERROR."""
    pending, started, expected = _REBOOT_TASKS[reboot_type]
    instance.task_state = pending
    instance.save(expected_task_state=list(expected))
    _notify_start(collab, context, instance, 'reboot')
    instance.power_state = get_power_state(collab.driver, instance)
    instance.task_state = started
    instance.save(expected_task_state=list(expected))
    if instance.power_state != power_state.RUNNING:
        LOG.warning('Rebooting instance %s whose guest is %s',
                    instance.uuid, power_state.name(instance.power_state))
    if block_device_info is None:
        block_device_info = _block_device_info(context, instance)
    try:
        collab.driver.reboot(context, instance,
                             network_cache.cached(instance), reboot_type,
                             block_device_info=block_device_info)
    except Exception as exc:
        with excutils.save_and_reraise_exception() as ctxt:
            if get_power_state(collab.driver, instance) == \
                    power_state.RUNNING:
                LOG.warning('Reboot of %s failed but its guest runs: %s',
                            instance.uuid, exc)
                compute_utils.add_instance_fault_from_exc(
                    context, instance, exc)
                compute_utils.notify_about_instance_action(
                    context, instance, collab.host, 'reboot',
                    phase='error', exception=exc)
                ctxt.reraise = False
            else:
                LOG.error('Cannot reboot instance %s: %s', instance.uuid,
                          exc)
                teardown.set_error_state(instance)
    _finish(collab, context, instance, 'reboot', vm_states.ACTIVE, None)


def pause_instance(collab, context, instance):
    _notify_start(collab, context, instance, 'pause')
    collab.driver.pause(instance)
    _finish(collab, context, instance, 'pause', vm_states.PAUSED,
            task_states.PAUSING)


def unpause_instance(collab, context, instance):
    _notify_start(collab, context, instance, 'unpause')
    collab.driver.unpause(instance)
    _finish(collab, context, instance, 'unpause', vm_states.ACTIVE,
            task_states.UNPAUSING)


def suspend_instance(collab, context, instance):
    _notify_start(collab, context, instance, 'suspend')
    collab.driver.suspend(context, instance)
    _finish(collab, context, instance, 'suspend', vm_states.SUSPENDED,
            task_states.SUSPENDING)


def resume_instance(collab, context, instance):
    _notify_start(collab, context, instance, 'resume')
    collab.driver.resume(context, instance, network_cache.cached(instance),
                         _block_device_info(context, instance))
    _finish(collab, context, instance, 'resume', vm_states.ACTIVE,
            task_states.RESUMING)


def trigger_crash_dump(collab, context, instance):
    _notify_start(collab, context, instance, 'trigger_crash_dump')
    collab.driver.trigger_crash_dump(instance)
    compute_utils.notify_about_instance_action(
        context, instance, collab.host, 'trigger_crash_dump', phase='end')


def _tail(output, length):
    if length is None:
        return output
    length = int(length)
    if length == 0:
        return ''
    return '\n'.join(output.split('\n')[-length:])


def get_console_output(collab, instance, tail_length=None):
    output = collab.driver.get_console_output(None, instance)
    if isinstance(output, bytes):
        output = output.decode('utf-8', 'replace')
    return _tail(output, tail_length)


def _check_running(collab, instance, method):
    state = get_power_state(collab.driver, instance)
    if state != power_state.RUNNING:
        raise exception.InstanceInvalidState(
            instance_uuid=instance.uuid, attr='power state',
            state=power_state.name(state), method=method)


def get_diagnostics(collab, instance):
    _check_running(collab, instance, 'get_diagnostics')
    return collab.driver.get_diagnostics(instance)


def get_instance_diagnostics(collab, instance):
    _check_running(collab, instance, 'get_diagnostics')
    return collab.driver.get_instance_diagnostics(instance)
