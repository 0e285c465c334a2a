"""Policies of GET /servers/{server_id}/topology."""

from nova_clone.policies import base

BASE = 'compute:server:topology:%s'
_PATH = '/servers/{server_id}/topology'

rules = [
    base.rule(BASE % 'index', base.PROJECT_READER_OR_ADMIN,
              'Show the NUMA topology of a server (2.78+)', [('GET', _PATH)]),
]


def list_rules():
    return rules
