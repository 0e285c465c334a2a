"""/flavors/{flavor_id}/os-extra_specs[/{key}]."""

import webob.exc

from nova_clone.api import auth
from nova_clone.api.controllers import flavors
from nova_clone.api import microversion
from nova_clone.api import resource
from nova_clone.api.schemas import flavors as schema
from nova_clone.api import validation
from nova_clone.api import validation_extra_specs
from nova_clone import exception
from nova_clone.policies import flavors as fl_policies


# From 2.86 extra specs Nova knows are checked when set.
VALIDATED_VERSION = '2.86'
MAX_VALUE_LENGTH = 255


def _checked_strings(req, specs):
    """The specs as stored (strings), each checked as Nova checks it."""
    validated = microversion.is_supported(req, VALIDATED_VERSION)
    out = {}
    for key, value in specs.items():
        if not isinstance(value, str):
            # The schema bounds strings only; a number can be longer.
            value = str(value)
            if len(value) > MAX_VALUE_LENGTH:
                raise webob.exc.HTTPBadRequest(
                    explanation='extra_specs value has more than %d '
                                'characters.' % MAX_VALUE_LENGTH)
        if validated:
            validation_extra_specs.validate(key, value)
        out[key] = value
    return out


class FlavorExtraSpecsController(object):

    def index(self, req, flavor_id):
        context = auth.get_context(req)
        context.can(fl_policies.EXTRA_SPECS % 'index', target={
            'project_id': context.project_id})
        flavor = flavors.get_flavor(context, flavor_id)
        return {'extra_specs': dict(flavor.extra_specs or {})}

    @validation.schema(schema.extra_specs_create)
    def create(self, req, flavor_id, body):
        context = auth.get_context(req)
        context.can(fl_policies.EXTRA_SPECS % 'create', target={})
        specs = _checked_strings(req, body['extra_specs'])
        flavor = flavors.get_flavor(context, flavor_id)
        merged = dict(flavor.extra_specs or {})
        merged.update(specs)
        flavor.extra_specs = merged
        flavor.save()
        return {'extra_specs': specs}

    @validation.schema(schema.extra_specs_update)
    def update(self, req, flavor_id, key, body):
        context = auth.get_context(req)
        context.can(fl_policies.EXTRA_SPECS % 'update', target={})
        if key not in body:
            raise webob.exc.HTTPBadRequest(
                explanation='Request body and URI mismatch')
        specs = _checked_strings(req, body)
        flavor = flavors.get_flavor(context, flavor_id)
        merged = dict(flavor.extra_specs or {})
        merged.update(specs)
        flavor.extra_specs = merged
        flavor.save()
        return specs

    def show(self, req, flavor_id, key):
        context = auth.get_context(req)
        context.can(fl_policies.EXTRA_SPECS % 'show', target={
            'project_id': context.project_id})
        flavor = flavors.get_flavor(context, flavor_id)
        specs = flavor.extra_specs or {}
        if key not in specs:
            raise webob.exc.HTTPNotFound(
                explanation=exception.FlavorExtraSpecsNotFound(
                    flavor_id=flavor_id,
                    extra_specs_key=key).format_message())
        return {key: specs[key]}

    @resource.response(200)
    def delete(self, req, flavor_id, key):
        context = auth.get_context(req)
        context.can(fl_policies.EXTRA_SPECS % 'delete', target={})
        flavor = flavors.get_flavor(context, flavor_id)
        specs = dict(flavor.extra_specs or {})
        if key not in specs:
            raise webob.exc.HTTPNotFound(
                explanation=exception.FlavorExtraSpecsNotFound(
                    flavor_id=flavor_id,
                    extra_specs_key=key).format_message())
        del specs[key]
        flavor.extra_specs = specs
        flavor.save()
