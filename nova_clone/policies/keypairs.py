"""Policies of /os-keypairs: the owner user or an administrator."""

from nova_clone.policies import base

KEYPAIRS = 'os_compute_api:os-keypairs:%s'

rules = [
    base.rule(KEYPAIRS % 'index', base.ADMIN_OR_OWNER_USER, 'List keypairs',
              [('GET', '/os-keypairs')]),
    base.rule(KEYPAIRS % 'create', base.ADMIN_OR_OWNER_USER,
              'Create or import a keypair', [('POST', '/os-keypairs')]),
    base.rule(KEYPAIRS % 'delete', base.ADMIN_OR_OWNER_USER,
              'Delete a keypair', [('DELETE', '/os-keypairs/{keypair_name}')]),
    base.rule(KEYPAIRS % 'show', base.ADMIN_OR_OWNER_USER, 'Show a keypair',
              [('GET', '/os-keypairs/{keypair_name}')]),
]


def list_rules():
    return rules
