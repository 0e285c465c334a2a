"""The host tap devices of a guest's ports."""

import os

# Where the network stack this process runs in lists its devices.
SYS_NET = '/sys/class/net'


def tap_name(vif):
    """The tap of a port, named after the port as Nova names it."""
    return vif.get('devname') or ('tap' + vif['id'])[:14]


def names_of(tap):
    """The names one port's tap may have, given any of them: its own, and
    the one it takes on a live migration's destination that shares the
    source's network stack (see migration._destination_xml)."""
    own = tap[:14]
    return own, own + 'm'


def taps_present(network_info):
    """Which of the possible tap names of these ports exist here."""
    return [name for vif in network_info or []
            for name in names_of(tap_name(vif))
            if os.path.exists(os.path.join(SYS_NET, name))]
