"""Policies of the ``rebuild`` server action."""

from nova_clone.policies import base
from nova_clone.policies import servers

REBUILD = servers.SERVERS % 'rebuild'
REBUILD_TRUSTED_CERTS = servers.SERVERS % 'rebuild:trusted_certs'

_ACTION = [('POST', '/servers/{server_id}/action (rebuild)')]

rules = [
    base.rule(REBUILD, base.PROJECT_MEMBER_OR_ADMIN, 'Rebuild a server',
              _ACTION),
    base.rule(REBUILD_TRUSTED_CERTS, base.PROJECT_MEMBER_OR_ADMIN,
              'Rebuild a server with trusted image certificates (2.63+)',
              _ACTION),
]


def list_rules():
    return rules
