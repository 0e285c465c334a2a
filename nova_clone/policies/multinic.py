"""Policies of the addFixedIp / removeFixedIp server actions."""

from nova_clone.policies import base

MULTINIC = 'os_compute_api:os-multinic:%s'

rules = [
    base.rule(MULTINIC % 'add', base.PROJECT_MEMBER_OR_ADMIN,
              'Add a fixed IP to a server (to 2.43)',
              [('POST', '/servers/{server_id}/action (addFixedIp)')]),
    base.rule(MULTINIC % 'remove', base.PROJECT_MEMBER_OR_ADMIN,
              'Remove a fixed IP from a server (to 2.43)',
              [('POST', '/servers/{server_id}/action (removeFixedIp)')]),
]


def list_rules():
    return rules
