"""Policy of the ``changePassword`` server action."""

from nova_clone.policies import base

CHANGE_PASSWORD = 'os_compute_api:os-admin-password'

rules = [
    base.rule(CHANGE_PASSWORD, base.PROJECT_MEMBER_OR_ADMIN,
              'Change the administrator password of a server',
              [('POST', '/servers/{server_id}/action (changePassword)')]),
]


def list_rules():
    return rules
