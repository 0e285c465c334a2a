"""Policies of remote consoles and console tokens."""

from nova_clone.policies import base

REMOTE_CONSOLES = 'os_compute_api:os-remote-consoles'
CONSOLE_AUTH_TOKENS = 'os_compute_api:os-console-auth-tokens'

rules = [
    base.rule(REMOTE_CONSOLES, base.PROJECT_MEMBER_OR_ADMIN,
              'Open a remote console of a server (2.6+)',
              [('POST', '/servers/{server_id}/remote-consoles')]),
    base.rule(CONSOLE_AUTH_TOKENS, base.ADMIN,
              'Show what a console token connects to',
              [('GET', '/os-console-auth-tokens/{console_token}')]),
]


def list_rules():
    return rules
