"""Policy of the ``evacuate`` server action."""

from nova_clone.policies import base

EVACUATE = 'os_compute_api:os-evacuate'

rules = [
    base.rule(EVACUATE, base.ADMIN,
              'Evacuate a server from a failed host to a new host',
              [('POST', '/servers/{server_id}/action (evacuate)')]),
]


def list_rules():
    return rules
