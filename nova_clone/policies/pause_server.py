"""Policies of the pause and unpause server actions."""

from nova_clone.policies import base

POLICY_ROOT = 'os_compute_api:os-pause-server:%s'

rules = [
    base.rule(POLICY_ROOT % 'pause', base.PROJECT_MEMBER_OR_ADMIN,
              'Pause a server',
              [('POST', '/servers/{server_id}/action (pause)')]),
    base.rule(POLICY_ROOT % 'unpause', base.PROJECT_MEMBER_OR_ADMIN,
              'Unpause a paused server',
              [('POST', '/servers/{server_id}/action (unpause)')]),
]


def list_rules():
    return rules
