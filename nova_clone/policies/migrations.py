"""Policy of GET /os-migrations."""

from nova_clone.policies import base

MIGRATIONS = 'os_compute_api:os-migrations:index'

rules = [
    base.rule(MIGRATIONS, base.ADMIN, 'List migrations',
              [('GET', '/os-migrations')]),
]


def list_rules():
    return rules
