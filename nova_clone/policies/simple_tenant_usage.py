"""Policies of /os-simple-tenant-usage: every project's usage is the
administrator's; a project may read its own."""

from nova_clone.policies import base

USAGE = 'os_compute_api:os-simple-tenant-usage:%s'

rules = [
    base.rule(USAGE % 'list', base.ADMIN,
              'List usage of all projects',
              [('GET', '/os-simple-tenant-usage')]),
    base.rule(USAGE % 'show', base.PROJECT_READER_OR_ADMIN,
              'Show usage of one project',
              [('GET', '/os-simple-tenant-usage/{tenant_id}')]),
]


def list_rules():
    return rules
