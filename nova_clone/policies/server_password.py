"""Policies of /servers/{server_id}/os-server-password."""

from nova_clone.policies import base

BASE = 'os_compute_api:os-server-password:%s'
_PATH = '/servers/{server_id}/os-server-password'

rules = [
    base.rule(BASE % 'show', base.PROJECT_READER_OR_ADMIN,
              'Show the encrypted administrative password of a server',
              [('GET', _PATH)]),
    base.rule(BASE % 'clear', base.PROJECT_MEMBER_OR_ADMIN,
              'Clear the encrypted administrative password of a server',
              [('DELETE', _PATH)]),
]


def list_rules():
    return rules
