"""Policies of the operator APIs: services, hypervisors, availability
zones, external events, instance actions, limits, quotas, extensions."""

from nova_clone.policies import base

SERVICES = 'os_compute_api:os-services:%s'
HYPERVISORS = 'os_compute_api:os-hypervisors:%s'
AZ = 'os_compute_api:os-availability-zone:%s'
EXTERNAL_EVENTS = 'os_compute_api:os-server-external-events:create'
ACTIONS = 'os_compute_api:os-instance-actions:%s'
LIMITS = 'os_compute_api:limits'
LIMITS_OTHER_PROJECT = 'os_compute_api:limits:other_project'
QUOTAS = 'os_compute_api:os-quota-sets:%s'
QUOTA_CLASSES = 'os_compute_api:os-quota-class-sets:%s'
EXTENSIONS = 'os_compute_api:extensions'

rules = [
    base.rule(SERVICES % 'list', base.ADMIN, 'List services',
              [('GET', '/os-services')]),
    base.rule(SERVICES % 'update', base.ADMIN, 'Update a service',
              [('PUT', '/os-services/{service_id}')]),
    base.rule(SERVICES % 'delete', base.ADMIN, 'Delete a service',
              [('DELETE', '/os-services/{service_id}')]),
    base.rule(HYPERVISORS % 'list', base.ADMIN, 'List hypervisors',
              [('GET', '/os-hypervisors')]),
    base.rule(HYPERVISORS % 'list-detail', base.ADMIN,
              'List hypervisors with details',
              [('GET', '/os-hypervisors/detail')]),
    base.rule(HYPERVISORS % 'statistics', base.ADMIN,
              'Hypervisor statistics (<=2.87)',
              [('GET', '/os-hypervisors/statistics')]),
    base.rule(HYPERVISORS % 'show', base.ADMIN, 'Show a hypervisor',
              [('GET', '/os-hypervisors/{hypervisor_id}')]),
    base.rule(HYPERVISORS % 'uptime', base.ADMIN, 'Hypervisor uptime',
              [('GET', '/os-hypervisors/{hypervisor_id}/uptime')]),
    base.rule(HYPERVISORS % 'search', base.ADMIN, 'Search hypervisors',
              [('GET', '/os-hypervisors/{pattern}/search')]),
    base.rule(HYPERVISORS % 'servers', base.ADMIN,
              'List servers of hypervisors',
              [('GET', '/os-hypervisors/{pattern}/servers')]),
    base.rule(AZ % 'list', base.PROJECT_READER_OR_ADMIN,
              'List availability zones', [('GET', '/os-availability-zone')]),
    base.rule(AZ % 'detail', base.ADMIN,
              'List availability zones with hosts',
              [('GET', '/os-availability-zone/detail')]),
    base.rule(EXTERNAL_EVENTS, base.SERVICE_OR_ADMIN,
              'Deliver external events to servers',
              [('POST', '/os-server-external-events')]),
    base.rule(ACTIONS % 'list', base.PROJECT_READER_OR_ADMIN,
              'List instance actions',
              [('GET', '/servers/{server_id}/os-instance-actions')]),
    base.rule(ACTIONS % 'show', base.PROJECT_READER_OR_ADMIN,
              'Show an instance action',
              [('GET', '/servers/{server_id}/os-instance-actions/{req_id}')]),
    base.rule(ACTIONS % 'events', base.ADMIN,
              'See the events of an action (before 2.51) and tracebacks',
              [('GET', '/servers/{server_id}/os-instance-actions/{req_id}')]),
    base.rule(ACTIONS % 'events:details', base.ADMIN,
              'See event details (2.84+)',
              [('GET', '/servers/{server_id}/os-instance-actions/{req_id}')]),
    base.rule(LIMITS, base.PROJECT_READER_OR_ADMIN, 'Show rate and '
              'absolute limits', [('GET', '/limits')]),
    base.rule(LIMITS_OTHER_PROJECT, base.ADMIN,
              'Show the limits of another project',
              [('GET', '/limits')]),
    base.rule(QUOTAS % 'show', base.PROJECT_READER_OR_ADMIN,
              'Show a quota set', [('GET', '/os-quota-sets/{tenant_id}')]),
    base.rule(QUOTAS % 'detail', base.PROJECT_READER_OR_ADMIN,
              'Show a quota set with usage',
              [('GET', '/os-quota-sets/{tenant_id}/detail')]),
    base.rule(QUOTAS % 'defaults', base.ANY, 'Show default quotas',
              [('GET', '/os-quota-sets/{tenant_id}/defaults')]),
    base.rule(QUOTAS % 'update', base.ADMIN, 'Update a quota set',
              [('PUT', '/os-quota-sets/{tenant_id}')]),
    base.rule(QUOTAS % 'delete', base.ADMIN, 'Revert a quota set to '
              'defaults', [('DELETE', '/os-quota-sets/{tenant_id}')]),
    base.rule(QUOTA_CLASSES % 'show', base.ADMIN, 'Show a quota class',
              [('GET', '/os-quota-class-sets/{quota_class}')]),
    base.rule(QUOTA_CLASSES % 'update', base.ADMIN, 'Update a quota class',
              [('PUT', '/os-quota-class-sets/{quota_class}')]),
    base.rule(EXTENSIONS, base.PROJECT_READER_OR_ADMIN, 'List extensions',
              [('GET', '/extensions')]),
]


def list_rules():
    return rules
