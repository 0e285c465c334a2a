"""Policies of the lock and unlock server actions."""

from nova_clone.policies import base

POLICY_ROOT = 'os_compute_api:os-lock-server:%s'

rules = [
    base.rule(POLICY_ROOT % 'lock', base.PROJECT_MEMBER_OR_ADMIN,
              'Lock a server',
              [('POST', '/servers/{server_id}/action (lock)')]),
    base.rule(POLICY_ROOT % 'unlock', base.PROJECT_MEMBER_OR_ADMIN,
              'Unlock a server',
              [('POST', '/servers/{server_id}/action (unlock)')]),
    base.rule(POLICY_ROOT % 'unlock:unlock_override', base.ADMIN,
              'Unlock a server locked by another party (owner or admin)',
              [('POST', '/servers/{server_id}/action (unlock)')]),
]


def list_rules():
    return rules
