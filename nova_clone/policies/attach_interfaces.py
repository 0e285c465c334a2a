"""Policies of /servers/{server_id}/os-interface."""

from nova_clone.policies import base

BASE = 'os_compute_api:os-attach-interfaces:%s'
_PATH = '/servers/{server_id}/os-interface'

rules = [
    base.rule(BASE % 'list', base.PROJECT_READER_OR_ADMIN,
              "List a server's port interfaces", [('GET', _PATH)]),
    base.rule(BASE % 'show', base.PROJECT_READER_OR_ADMIN,
              'Show a port interface of a server',
              [('GET', _PATH + '/{port_id}')]),
    base.rule(BASE % 'create', base.PROJECT_MEMBER_OR_ADMIN,
              'Attach a port interface to a server', [('POST', _PATH)]),
    base.rule(BASE % 'delete', base.PROJECT_MEMBER_OR_ADMIN,
              'Detach a port interface from a server',
              [('DELETE', _PATH + '/{port_id}')]),
]


def list_rules():
    return rules
