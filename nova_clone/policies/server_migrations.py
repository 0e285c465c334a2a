"""Policies of /servers/{server_id}/migrations (live migrations)."""

from nova_clone.policies import base

MIGRATIONS = 'os_compute_api:servers:migrations:%s'

_ONE = '/servers/{server_id}/migrations/{migration_id}'

rules = [
    base.rule(MIGRATIONS % 'index', base.ADMIN,
              'List the in-progress live migrations of a server',
              [('GET', '/servers/{server_id}/migrations')]),
    base.rule(MIGRATIONS % 'show', base.ADMIN,
              'Show an in-progress live migration of a server',
              [('GET', _ONE)]),
    base.rule(MIGRATIONS % 'force_complete', base.ADMIN,
              'Force an in-progress live migration to complete',
              [('POST', _ONE + '/action (force_complete)')]),
    base.rule(MIGRATIONS % 'delete', base.ADMIN,
              'Abort an in-progress live migration',
              [('DELETE', _ONE)]),
]


def list_rules():
    return rules
