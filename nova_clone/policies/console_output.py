"""Policy of the console output server action."""

from nova_clone.policies import base

BASE_POLICY_NAME = 'os_compute_api:os-console-output'

rules = [
    base.rule(BASE_POLICY_NAME, base.PROJECT_MEMBER_OR_ADMIN,
              'Show the console output of a server',
              [('POST', '/servers/{server_id}/action (os-getConsoleOutput)')]),
]


def list_rules():
    return rules
