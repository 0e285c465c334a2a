"""Which vm_state and task_state each server action accepts, and whether
a lock stops it: one table for every action of the compute API.

The keys are the action names a refusal shows (``Cannot 'resize'
instance ... while it is in vm_state building``): the body key of a
``POST /servers/{id}/action`` or Nova's wording for the other routes.
A refusal raises InstanceInvalidState or InstanceIsLocked; the API answers
both with a 409.
"""

import dataclasses
import functools

from nova_clone.compute import task_states
from nova_clone.compute import vm_states
from nova_clone import exception

# A state set that accepts every state.
ANY = None
# The default task_state set: no task in progress.
IDLE = (None,)


@dataclasses.dataclass(frozen=True)
class Precondition:
    vm_states: tuple = ANY
    task_states: tuple = IDLE
    # The action needs a server that has booted once (launched_at set).
    must_have_launched: bool = True
    # A locked server refuses the action to anyone but an admin.
    refused_when_locked: bool = True
    # The name a refusal shows, when not the table's key.
    shown_as: str = None


def _rule(vm=ANY, task=IDLE, launched=True, lock=True, shown_as=None):
    return Precondition(tuple(vm) if vm is not ANY else ANY,
                        tuple(task) if task is not ANY else ANY,
                        launched, lock, shown_as)


_A = vm_states.ACTIVE
_STOPPED = vm_states.STOPPED
_PAUSED = vm_states.PAUSED
_SUSPENDED = vm_states.SUSPENDED
_ERROR = vm_states.ERROR
_RESIZED = vm_states.RESIZED
_SHELVED = (vm_states.SHELVED, vm_states.SHELVED_OFFLOADED)
# Volumes may be attached to and detached from these servers.
_VOLUME_STATES = (_A, _PAUSED, _STOPPED, _RESIZED, vm_states.SOFT_DELETED
                  ) + _SHELVED
# Metadata of these servers may change, whatever task is running.
_METADATA_STATES = (_A, _PAUSED, _SUSPENDED, _STOPPED)
# Tags of these servers may change.
_TAG_STATES = _METADATA_STATES + _SHELVED
# A hard reboot may interrupt these tasks.
_REBOOT_TASKS = (None, task_states.REBOOTING, task_states.REBOOT_PENDING,
                 task_states.REBOOT_STARTED, task_states.REBOOTING_HARD,
                 task_states.RESUMING, task_states.UNPAUSING,
                 task_states.PAUSING, task_states.SUSPENDING)

ACTIONS = {
    # Server resource and sub-resources.
    'delete': _rule(task=ANY, launched=False),
    'update metadata': _rule(_METADATA_STATES, task=ANY),
    'delete metadata': _rule(_METADATA_STATES, task=ANY),
    'update tag': _rule(_TAG_STATES, task=ANY, launched=False, lock=False),
    'update tags': _rule(_TAG_STATES, task=ANY, launched=False, lock=False),
    'delete tag': _rule(_TAG_STATES, task=ANY, launched=False, lock=False),
    'delete tags': _rule(_TAG_STATES, task=ANY, launched=False, lock=False),
    'attach_volume': _rule(_VOLUME_STATES),
    'detach_volume': _rule(_VOLUME_STATES),
    'swap_volume': _rule((_A, _PAUSED, _RESIZED)),
    'attach_interface': _rule((_A, _PAUSED, _STOPPED)),
    'detach_interface': _rule((_A, _PAUSED, _STOPPED)),
    # POST /servers/{id}/action, by body key.
    'resize': _rule((_A, _STOPPED)),
    'migrate': _rule((_A, _STOPPED)),
    # Confirming only releases the source: a lock does not stop it.
    'confirmResize': _rule((_RESIZED,), lock=False),
    'revertResize': _rule((_RESIZED,)),
    'os-migrateLive': _rule((_A, _PAUSED)),
    'force_complete': _rule((_A,), task=(task_states.MIGRATING,)),
    'abort live migration': _rule(task=(task_states.MIGRATING,)),
    'evacuate': _rule((_A, _STOPPED, _ERROR), lock=False),
    'os-start': _rule((_STOPPED,), shown_as='start'),
    'os-stop': _rule((_A, _ERROR), shown_as='stop'),
    'reboot': _rule(vm_states.ALLOW_SOFT_REBOOT),
    'reboot:HARD': _rule(vm_states.ALLOW_HARD_REBOOT, task=_REBOOT_TASKS,
                         shown_as='reboot'),
    'pause': _rule((_A,)),
    'unpause': _rule((_PAUSED,)),
    'suspend': _rule((_A,)),
    'resume': _rule((_SUSPENDED,)),
    'rescue': _rule((_A, _STOPPED, _ERROR)),
    'unrescue': _rule((vm_states.RESCUED,)),
    'rebuild': _rule((_A, _STOPPED, _ERROR)),
    'shelve': _rule((_A, _STOPPED, _PAUSED, _SUSPENDED)),
    'shelveOffload': _rule((vm_states.SHELVED,)),
    'unshelve': _rule(_SHELVED),
    # Snapshots and backups do not change the server: a lock allows them.
    'createImage': _rule((_A, _STOPPED, _PAUSED, _SUSPENDED), lock=False),
    'createBackup': _rule((_A, _STOPPED, _PAUSED, _SUSPENDED), lock=False),
    'changePassword': _rule((_A,)),
    'trigger_crash_dump': _rule(vm_states.ALLOW_TRIGGER_CRASH_DUMP),
    'restore': _rule((vm_states.SOFT_DELETED,)),
    'forceDelete': _rule(launched=False),
    'addFixedIp': _rule(task=ANY, launched=False),
    'volume_snapshot': _rule(lock=False),
    'removeFixedIp': _rule(task=ANY, launched=False),
    'injectNetworkInfo': _rule(task=ANY, launched=False),
    'lock': _rule(task=ANY, launched=False, lock=False),
    'unlock': _rule(task=ANY, launched=False, lock=False),
}


def check_lock(context, instance):
    """InstanceIsLocked when a non-admin acts on a locked server."""
    if getattr(instance, 'locked', False) and not context.is_admin:
        raise exception.InstanceIsLocked(instance_uuid=instance.uuid)


def _refuse(instance, action, attr, state):
    raise exception.InstanceInvalidState(
        instance_uuid=instance.uuid, attr=attr, state=state,
        method=ACTIONS[action].shown_as or action)


def check_state(instance, action):
    """InstanceInvalidState when ``action`` does not accept the server's
    vm_state, task_state or (never launched) launched_at."""
    rule = ACTIONS[action]
    if rule.vm_states is not ANY and instance.vm_state not in rule.vm_states:
        _refuse(instance, action, 'vm_state', instance.vm_state)
    if rule.task_states is not ANY and \
            instance.task_state not in rule.task_states:
        _refuse(instance, action, 'task_state', instance.task_state)
    if rule.must_have_launched and not instance.launched_at:
        _refuse(instance, action, 'launched_at', instance.launched_at)


def check(context, instance, action):
    """Everything the table says about ``action``: the lock, then the
    states."""
    if ACTIONS[action].refused_when_locked:
        check_lock(context, instance)
    check_state(instance, action)


def checked(action):
    """Decorate a compute API method ``(self, context, instance, ...)``
    that runs ``action``: the method runs only if ``check`` passes."""
    if action not in ACTIONS:
        raise KeyError('No precondition for action %r' % action)

    def decorator(func):
        @functools.wraps(func)
        def wrapper(self, context, instance, *args, **kwargs):
            check(context, instance, action)
            return func(self, context, instance, *args, **kwargs)
        return wrapper
    return decorator
