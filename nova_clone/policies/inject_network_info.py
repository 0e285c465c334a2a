"""Policy of the ``injectNetworkInfo`` admin action."""

from nova_clone.policies import base

INJECT_NETWORK_INFO = 'os_compute_api:os-admin-actions:inject_network_info'

rules = [
    base.rule(INJECT_NETWORK_INFO, base.ADMIN,
              "Inject the server's network info into its guest",
              [('POST', '/servers/{server_id}/action (injectNetworkInfo)')]),
]


def list_rules():
    return rules
