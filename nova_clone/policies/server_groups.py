"""Policies of /os-server-groups: the project's members; all projects for
administrators."""

from nova_clone.policies import base

GROUPS = 'os_compute_api:os-server-groups:%s'

rules = [
    base.rule(GROUPS % 'create', base.PROJECT_MEMBER_OR_ADMIN,
              'Create a server group', [('POST', '/os-server-groups')]),
    base.rule(GROUPS % 'delete', base.PROJECT_MEMBER_OR_ADMIN,
              'Delete a server group',
              [('DELETE', '/os-server-groups/{server_group_id}')]),
    base.rule(GROUPS % 'index', base.PROJECT_READER_OR_ADMIN,
              'List the server groups of the project',
              [('GET', '/os-server-groups')]),
    base.rule(GROUPS % 'index:all_projects', base.ADMIN,
              'List the server groups of every project',
              [('GET', '/os-server-groups')]),
    base.rule(GROUPS % 'show', base.PROJECT_READER_OR_ADMIN,
              'Show a server group',
              [('GET', '/os-server-groups/{server_group_id}')]),
]


def list_rules():
    return rules
