"""Policies of /servers."""

from nova_clone.policies import base

SERVERS = 'os_compute_api:servers:%s'
EXTENDED_ATTRS = 'os_compute_api:os-extended-server-attributes'

rules = [
    base.rule(SERVERS % 'index', base.PROJECT_READER_OR_ADMIN,
              'List servers', [('GET', '/servers')]),
    base.rule(SERVERS % 'detail', base.PROJECT_READER_OR_ADMIN,
              'List servers with details', [('GET', '/servers/detail')]),
    base.rule(SERVERS % 'index:get_all_tenants', base.ADMIN,
              'List servers of every project', [('GET', '/servers')]),
    base.rule(SERVERS % 'detail:get_all_tenants', base.ADMIN,
              'List servers of every project with details',
              [('GET', '/servers/detail')]),
    base.rule(SERVERS % 'allow_all_filters', base.ADMIN,
              'Use every server list filter', [('GET', '/servers'),
                                               ('GET', '/servers/detail')]),
    base.rule(SERVERS % 'show', base.PROJECT_READER_OR_ADMIN,
              'Show a server', [('GET', '/servers/{server_id}')]),
    base.rule(SERVERS % 'show:flavor-extra-specs',
              base.PROJECT_READER_OR_ADMIN,
              'See the flavor extra specs in server views (2.47+)',
              [('GET', '/servers/{server_id}')]),
    base.rule(SERVERS % 'show:host_status', base.ADMIN,
              'See host_status in server views (2.16+)',
              [('GET', '/servers/{server_id}')]),
    base.rule(SERVERS % 'show:host_status:unknown-only', base.ADMIN,
              'See host_status only when it is UNKNOWN',
              [('GET', '/servers/{server_id}')]),
    base.rule(SERVERS % 'create', base.PROJECT_MEMBER_OR_ADMIN,
              'Create a server', [('POST', '/servers')]),
    base.rule(SERVERS % 'create:forced_host', base.ADMIN,
              'Create a server on a given host', [('POST', '/servers')]),
    base.rule(SERVERS % 'create:requested_destination', base.ADMIN,
              'Create a server with host/hypervisor_hostname (2.74+)',
              [('POST', '/servers')]),
    base.rule(SERVERS % 'create:attach_volume', base.PROJECT_MEMBER_OR_ADMIN,
              'Create a server with block devices', [('POST', '/servers')]),
    base.rule(SERVERS % 'create:attach_network',
              base.PROJECT_MEMBER_OR_ADMIN,
              'Create a server with requested networks',
              [('POST', '/servers')]),
    base.rule(SERVERS % 'create:trusted_certs', base.PROJECT_MEMBER_OR_ADMIN,
              'Create a server with trusted certificates',
              [('POST', '/servers')]),
    base.rule(SERVERS % 'create:zero_disk_flavor', base.ADMIN,
              'Boot an image-backed server on a flavor with no disk',
              [('POST', '/servers')]),
    base.rule(SERVERS % 'update', base.PROJECT_MEMBER_OR_ADMIN,
              'Update a server', [('PUT', '/servers/{server_id}')]),
    base.rule(SERVERS % 'delete', base.PROJECT_MEMBER_OR_ADMIN,
              'Delete a server', [('DELETE', '/servers/{server_id}')]),
    base.rule(EXTENDED_ATTRS, base.ADMIN,
              'See the OS-EXT-SRV-ATTR attributes of servers',
              [('GET', '/servers/{server_id}'), ('GET', '/servers/detail')]),
]


def list_rules():
    return rules
