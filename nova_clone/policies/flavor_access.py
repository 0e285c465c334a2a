"""Policies of os-flavor-access and the flavor access actions."""

from nova_clone.policies import base

ACCESS = 'os_compute_api:os-flavor-access'

rules = [
    base.rule(ACCESS, base.ADMIN,
              'List flavor access; list private flavors',
              [('GET', '/flavors/{flavor_id}/os-flavor-access'),
               ('GET', '/flavors')]),
    base.rule(ACCESS + ':add_tenant_access', base.ADMIN,
              'Give a project access to a private flavor',
              [('POST', '/flavors/{flavor_id}/action (addTenantAccess)')]),
    base.rule(ACCESS + ':remove_tenant_access', base.ADMIN,
              'Remove a project from a private flavor',
              [('POST', '/flavors/{flavor_id}/action (removeTenantAccess)')]),
]


def list_rules():
    return rules
