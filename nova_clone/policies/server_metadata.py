"""Policies of /servers/{id}/metadata, /ips and /tags."""

from nova_clone.policies import base

METADATA = 'os_compute_api:server-metadata:%s'
IPS = 'os_compute_api:ips:%s'
TAGS = 'os_compute_api:os-server-tags:%s'

rules = [
    base.rule(METADATA % 'index', base.PROJECT_READER_OR_ADMIN,
              'List server metadata',
              [('GET', '/servers/{server_id}/metadata')]),
    base.rule(METADATA % 'show', base.PROJECT_READER_OR_ADMIN,
              'Show a server metadata item',
              [('GET', '/servers/{server_id}/metadata/{key}')]),
    base.rule(METADATA % 'create', base.PROJECT_MEMBER_OR_ADMIN,
              'Merge server metadata',
              [('POST', '/servers/{server_id}/metadata')]),
    base.rule(METADATA % 'update_all', base.PROJECT_MEMBER_OR_ADMIN,
              'Replace server metadata',
              [('PUT', '/servers/{server_id}/metadata')]),
    base.rule(METADATA % 'update', base.PROJECT_MEMBER_OR_ADMIN,
              'Set a server metadata item',
              [('PUT', '/servers/{server_id}/metadata/{key}')]),
    base.rule(METADATA % 'delete', base.PROJECT_MEMBER_OR_ADMIN,
              'Delete a server metadata item',
              [('DELETE', '/servers/{server_id}/metadata/{key}')]),
    base.rule(IPS % 'index', base.PROJECT_READER_OR_ADMIN,
              'List server addresses', [('GET', '/servers/{server_id}/ips')]),
    base.rule(IPS % 'show', base.PROJECT_READER_OR_ADMIN,
              'Show server addresses of one network',
              [('GET', '/servers/{server_id}/ips/{network_label}')]),
    base.rule(TAGS % 'index', base.PROJECT_READER_OR_ADMIN,
              'List server tags', [('GET', '/servers/{server_id}/tags')]),
    base.rule(TAGS % 'show', base.PROJECT_READER_OR_ADMIN,
              'Check a server tag',
              [('GET', '/servers/{server_id}/tags/{tag}')]),
    base.rule(TAGS % 'update', base.PROJECT_MEMBER_OR_ADMIN,
              'Add a server tag',
              [('PUT', '/servers/{server_id}/tags/{tag}')]),
    base.rule(TAGS % 'update_all', base.PROJECT_MEMBER_OR_ADMIN,
              'Replace server tags', [('PUT', '/servers/{server_id}/tags')]),
    base.rule(TAGS % 'delete', base.PROJECT_MEMBER_OR_ADMIN,
              'Delete a server tag',
              [('DELETE', '/servers/{server_id}/tags/{tag}')]),
    base.rule(TAGS % 'delete_all', base.PROJECT_MEMBER_OR_ADMIN,
              'Delete all server tags',
              [('DELETE', '/servers/{server_id}/tags')]),
]


def list_rules():
    return rules
