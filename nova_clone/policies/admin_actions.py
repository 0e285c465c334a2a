"""Policies of the administrator's server actions."""

from nova_clone.policies import base

POLICY_ROOT = 'os_compute_api:os-admin-actions:%s'

rules = [
    base.rule(POLICY_ROOT % 'reset_state', base.ADMIN,
              'Reset the state of a server',
              [('POST', '/servers/{server_id}/action (os-resetState)')]),
]


def list_rules():
    return rules
