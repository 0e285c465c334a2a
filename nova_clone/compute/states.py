"""The API ``status`` of a server, derived from (vm_state, task_state).

``status_from_state`` is what the server views show; ``states_for_status``
goes the other way for the ``status`` filter of GET /servers.
"""

from nova_clone.compute import task_states
from nova_clone.compute import vm_states

UNKNOWN = 'UNKNOWN'

_RESIZE = {t: 'RESIZE' for t in task_states.RESIZE_STATES}
_REBUILD = {t: 'REBUILD' for t in task_states.REBUILD_STATES}

# vm_state -> {task_state (None = default): status}
_STATE_MAP = {
    vm_states.ACTIVE: {
        None: 'ACTIVE',
        **{t: 'REBOOT' for t in task_states.SOFT_REBOOT_STATES},
        **{t: 'HARD_REBOOT' for t in task_states.HARD_REBOOT_STATES},
        task_states.UPDATING_PASSWORD: 'PASSWORD',
        **_REBUILD,
        task_states.MIGRATING: 'MIGRATING',
        **_RESIZE,
    },
    vm_states.BUILDING: {None: 'BUILD'},
    vm_states.STOPPED: {None: 'SHUTOFF', **_RESIZE, **_REBUILD},
    vm_states.RESIZED: {
        None: 'VERIFY_RESIZE',
        task_states.RESIZE_REVERTING: 'REVERT_RESIZE',
    },
    vm_states.PAUSED: {None: 'PAUSED', task_states.MIGRATING: 'MIGRATING'},
    vm_states.SUSPENDED: {None: 'SUSPENDED'},
    vm_states.RESCUED: {None: 'RESCUE'},
    vm_states.ERROR: {None: 'ERROR', **_REBUILD},
    vm_states.DELETED: {None: 'DELETED'},
    vm_states.SOFT_DELETED: {None: 'SOFT_DELETED'},
    vm_states.SHELVED: {None: 'SHELVED'},
    vm_states.SHELVED_OFFLOADED: {None: 'SHELVED_OFFLOADED'},
}

ALL_STATUSES = sorted({s for m in _STATE_MAP.values() for s in m.values()})


def status_from_state(vm_state, task_state=None):
    """The API status of an instance (``UNKNOWN`` for an unknown vm_state)."""
    task_map = _STATE_MAP.get(vm_state)
    if task_map is None:
        return UNKNOWN
    return task_map.get(task_state, task_map[None])


def state_filter_for_status(status):
    """Exact filters producing ``status``, for the list query.

    Returns a list of dicts ``{'vm_state': X, 'task_state': [..] or None,
    'exclude_task_states': [..]}``.  ``task_state`` None means "any task
    state (NULL included) except exclude_task_states", i.e. the vm_state's
    default status.  An unknown status gives [] (nothing matches).
    """
    status = (status or '').upper()
    result = []
    for vm_state, task_map in _STATE_MAP.items():
        overrides = [t for t in task_map if t is not None]
        if task_map[None] == status:
            result.append({'vm_state': vm_state, 'task_state': None,
                           'exclude_task_states': overrides})
        matching = [t for t in overrides if task_map[t] == status]
        if matching:
            result.append({'vm_state': vm_state, 'task_state': matching,
                           'exclude_task_states': []})
    return result


def task_and_vm_state_from_status(statuses):
    """Nova's coarse reverse map: (sorted vm_states, sorted task_states).

    task_states holds DEFAULT_TASK_STATE when a vm_state's default status
    matched; then the caller must not filter on task_state at all.
    """
    wanted = {s.upper() for s in statuses}
    vms, tasks = set(), set()
    for vm_state, task_map in _STATE_MAP.items():
        for task_state, status in task_map.items():
            if status in wanted:
                vms.add(vm_state)
                tasks.add(DEFAULT_TASK_STATE if task_state is None
                          else task_state)
    return sorted(vms), sorted(tasks)


DEFAULT_TASK_STATE = 'default'
