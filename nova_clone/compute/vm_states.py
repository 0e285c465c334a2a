"""Stable states of an instance (the ``vm_state`` column).

A vm_state says what the guest *is*; the transient ``task_state`` says what
is being done to it.  Values match Nova's so existing clients and databases
read the same strings.
"""

ACTIVE = 'active'
BUILDING = 'building'
PAUSED = 'paused'
SUSPENDED = 'suspended'
STOPPED = 'stopped'
RESCUED = 'rescued'
RESIZED = 'resized'
SOFT_DELETED = 'soft-delete'
DELETED = 'deleted'
ERROR = 'error'
SHELVED = 'shelved'
SHELVED_OFFLOADED = 'shelved_offloaded'

ALL_STATES = (
    ACTIVE, BUILDING, PAUSED, SUSPENDED, STOPPED, RESCUED, RESIZED,
    SOFT_DELETED, DELETED, ERROR, SHELVED, SHELVED_OFFLOADED,
)

# States from which a guest may be started again by the periodic power sync
# or an explicit start (it exists on a hypervisor and is not running).
ALLOW_SOFT_REBOOT = [ACTIVE]
ALLOW_HARD_REBOOT = ALLOW_SOFT_REBOOT + [STOPPED, PAUSED, SUSPENDED, ERROR]
ALLOW_TRIGGER_CRASH_DUMP = [ACTIVE, PAUSED, RESCUED, RESIZED, ERROR]
ALLOW_RESOURCE_REMOVAL = [DELETED, SHELVED_OFFLOADED]
