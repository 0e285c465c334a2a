"""Policies of the power actions of /servers/{id}/action (Nova keeps them
under os_compute_api:servers)."""

from nova_clone.policies import base
from nova_clone.policies.servers import SERVERS


def _action(name, key, description):
    return base.rule(SERVERS % name, base.PROJECT_MEMBER_OR_ADMIN,
                     description,
                     [('POST', '/servers/{server_id}/action (%s)' % key)])


rules = [
    _action('start', 'os-start', 'Start a server'),
    _action('stop', 'os-stop', 'Stop a server'),
    _action('reboot', 'reboot', 'Reboot a server'),
    _action('trigger_crash_dump', 'trigger_crash_dump',
            'Trigger a crash dump in a server'),
]


def list_rules():
    return rules
