"""Power states of a guest as the hypervisor reports them.

Stored as integers (``instances.power_state``); notifications use the
names.  2 and 5 are unused, as in Nova.
"""

NOSTATE = 0x00
RUNNING = 0x01
PAUSED = 0x03
SHUTDOWN = 0x04
CRASHED = 0x06
SUSPENDED = 0x07

STATE_MAP = {
    NOSTATE: 'pending',
    RUNNING: 'running',
    PAUSED: 'paused',
    SHUTDOWN: 'shutdown',
    CRASHED: 'crashed',
    SUSPENDED: 'suspended',
}

ALL_STATES = tuple(STATE_MAP)


def name(state):
    """The notification name of a power state ('pending' if unknown)."""
    return STATE_MAP.get(state, STATE_MAP[NOSTATE])
