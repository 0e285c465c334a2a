"""Policies of the suspend and resume server actions."""

from nova_clone.policies import base

POLICY_ROOT = 'os_compute_api:os-suspend-server:%s'

rules = [
    base.rule(POLICY_ROOT % 'suspend', base.PROJECT_MEMBER_OR_ADMIN,
              'Suspend a server',
              [('POST', '/servers/{server_id}/action (suspend)')]),
    base.rule(POLICY_ROOT % 'resume', base.PROJECT_MEMBER_OR_ADMIN,
              'Resume a suspended server',
              [('POST', '/servers/{server_id}/action (resume)')]),
]


def list_rules():
    return rules
