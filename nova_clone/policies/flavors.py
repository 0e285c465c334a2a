"""Policies of /flavors and os-extra_specs."""

from nova_clone.policies import base

MANAGE = 'os_compute_api:os-flavor-manage:%s'
EXTRA_SPECS = 'os_compute_api:os-flavor-extra-specs:%s'

rules = [
    base.rule(MANAGE % 'create', base.ADMIN, 'Create a flavor',
              [('POST', '/flavors')]),
    base.rule(MANAGE % 'update', base.ADMIN,
              'Update a flavor description (2.55+)',
              [('PUT', '/flavors/{flavor_id}')]),
    base.rule(MANAGE % 'delete', base.ADMIN, 'Delete a flavor',
              [('DELETE', '/flavors/{flavor_id}')]),
    base.rule(EXTRA_SPECS % 'index', base.PROJECT_READER_OR_ADMIN,
              'List flavor extra specs',
              [('GET', '/flavors/{flavor_id}/os-extra_specs')]),
    base.rule(EXTRA_SPECS % 'show', base.PROJECT_READER_OR_ADMIN,
              'Show a flavor extra spec',
              [('GET', '/flavors/{flavor_id}/os-extra_specs/{key}')]),
    base.rule(EXTRA_SPECS % 'create', base.ADMIN, 'Set flavor extra specs',
              [('POST', '/flavors/{flavor_id}/os-extra_specs')]),
    base.rule(EXTRA_SPECS % 'update', base.ADMIN,
              'Update a flavor extra spec',
              [('PUT', '/flavors/{flavor_id}/os-extra_specs/{key}')]),
    base.rule(EXTRA_SPECS % 'delete', base.ADMIN,
              'Delete a flavor extra spec',
              [('DELETE', '/flavors/{flavor_id}/os-extra_specs/{key}')]),
]


def list_rules():
    return rules
