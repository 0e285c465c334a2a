"""libvirt domain states and how they map to Nova power states.

The numeric values are libvirt's virDomainState, spelled out here so the
mapping needs no libvirt binding.
"""

from nova_clone.compute import power_state

VIR_DOMAIN_NOSTATE = 0
VIR_DOMAIN_RUNNING = 1
VIR_DOMAIN_BLOCKED = 2
VIR_DOMAIN_PAUSED = 3
VIR_DOMAIN_SHUTDOWN = 4
VIR_DOMAIN_SHUTOFF = 5
VIR_DOMAIN_CRASHED = 6
VIR_DOMAIN_PMSUSPENDED = 7

LIBVIRT_POWER_STATE = {
    VIR_DOMAIN_NOSTATE: power_state.NOSTATE,
    VIR_DOMAIN_RUNNING: power_state.RUNNING,
    # A guest blocked on I/O is still running as far as users can tell.
    VIR_DOMAIN_BLOCKED: power_state.RUNNING,
    VIR_DOMAIN_PAUSED: power_state.PAUSED,
    # "Being shut down" is reported as already down, as Nova does: the
    # guest is on its way out and no action would bring it back.
    VIR_DOMAIN_SHUTDOWN: power_state.SHUTDOWN,
    VIR_DOMAIN_SHUTOFF: power_state.SHUTDOWN,
    VIR_DOMAIN_CRASHED: power_state.CRASHED,
    VIR_DOMAIN_PMSUSPENDED: power_state.SUSPENDED,
}


def to_power_state(libvirt_state):
    """Nova power state of a libvirt domain state (NOSTATE if unknown)."""
    return LIBVIRT_POWER_STATE.get(libvirt_state, power_state.NOSTATE)
