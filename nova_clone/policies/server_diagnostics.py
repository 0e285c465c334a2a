"""Policy of GET /servers/{server_id}/diagnostics."""

from nova_clone.policies import base

BASE_POLICY_NAME = 'os_compute_api:os-server-diagnostics'

rules = [
    base.rule(BASE_POLICY_NAME, base.ADMIN, 'Show the diagnostics of a server',
              [('GET', '/servers/{server_id}/diagnostics')]),
]


def list_rules():
    return rules
