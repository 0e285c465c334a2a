"""Flavor access: GET /flavors/{flavor_id}/os-flavor-access and the
addTenantAccess / removeTenantAccess actions of /flavors/{flavor_id}/action
(an action family; routes.py dispatches the actions to it)."""

import webob.exc

from nova_clone.api import auth
from nova_clone.api.controllers import flavors
from nova_clone.api import resource
from nova_clone.api.schemas import flavor_access as schema
from nova_clone.api import validation
from nova_clone import exception
from nova_clone.policies import flavor_access as policies


def access_list(flavor):
    return {'flavor_access': [
        {'flavor_id': flavor.flavorid, 'tenant_id': project}
        for project in (flavor.projects or [])]}


class FlavorAccessController(object):
    """GET /flavors/{flavor_id}/os-flavor-access."""

    def index(self, req, flavor_id):
        context = auth.get_context(req)
        context.can(policies.ACCESS, target={})
        flavor = flavors.get_flavor(context, flavor_id)
        if flavor.is_public:
            raise webob.exc.HTTPNotFound(
                explanation='Access list not available for public flavors.')
        return access_list(flavor)


class FlavorActionController(object):
    """The actions that give and take a project's access to a private
    flavor."""

    @resource.action('addTenantAccess')
    @validation.schema(schema.add_tenant_access)
    def add_tenant_access(self, req, flavor_id, body):
        context = auth.get_context(req)
        context.can(policies.ACCESS + ':add_tenant_access', target={})
        tenant = body['addTenantAccess']['tenant']
        flavor = flavors.get_flavor(context, flavor_id)
        if flavor.is_public:
            raise webob.exc.HTTPConflict(
                explanation='Can not add access to a public flavor.')
        try:
            flavor.add_access(tenant)
        except exception.FlavorAccessExists as exc:
            raise webob.exc.HTTPConflict(explanation=exc.format_message())
        return access_list(flavor)

    @resource.action('removeTenantAccess')
    @validation.schema(schema.remove_tenant_access)
    def remove_tenant_access(self, req, flavor_id, body):
        context = auth.get_context(req)
        context.can(policies.ACCESS + ':remove_tenant_access', target={})
        tenant = body['removeTenantAccess']['tenant']
        flavor = flavors.get_flavor(context, flavor_id)
        try:
            flavor.remove_access(tenant)
        except exception.FlavorAccessNotFound as exc:
            raise webob.exc.HTTPNotFound(explanation=exc.format_message())
        return access_list(flavor)
