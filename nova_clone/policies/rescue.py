"""Policies of the ``rescue`` and ``unrescue`` server actions."""

from nova_clone.policies import base

RESCUE = 'os_compute_api:os-rescue'
UNRESCUE = 'os_compute_api:os-unrescue'

rules = [
    base.rule(RESCUE, base.PROJECT_MEMBER_OR_ADMIN, 'Rescue a server',
              [('POST', '/servers/{server_id}/action (rescue)')]),
    base.rule(UNRESCUE, base.PROJECT_MEMBER_OR_ADMIN, 'Unrescue a server',
              [('POST', '/servers/{server_id}/action (unrescue)')]),
]


def list_rules():
    return rules
