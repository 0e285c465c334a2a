"""POST /servers/{server_id}/action: shelve, shelveOffload, unshelve
(a zone from 2.77; a host, or a null zone that unpins, from 2.91)."""

import webob.exc

from nova_clone.api import auth
from nova_clone.api.controllers import servers
from nova_clone.api import microversion
from nova_clone.api import resource
from nova_clone.api.schemas import shelve as schema
from nova_clone.api import validation
from nova_clone.compute.api import shelve as shelve_flow
from nova_clone import exception
from nova_clone.policies import shelve as shelve_policies


def _load(req, server_id, rule):
    context = auth.get_context(req)
    instance = servers.get_server(req, server_id)
    context.can(shelve_policies.POLICY_ROOT % rule,
                target={'project_id': instance.project_id})
    return context, instance


class ShelveController(object):

    @resource.action('shelve')
    @resource.response(202)
    @validation.schema(schema.shelve)
    def shelve(self, req, server_id, body):
        context, instance = _load(req, server_id, 'shelve')
        servers.compute_api().shelve(context, instance)

    @resource.action('shelveOffload')
    @resource.response(202)
    @validation.schema(schema.shelve_offload)
    def shelve_offload(self, req, server_id, body):
        context, instance = _load(req, server_id, 'shelve_offload')
        servers.compute_api().shelve_offload(context, instance)

    @resource.action('unshelve')
    @resource.response(202)
    @validation.schema(schema.unshelve_v291, '2.91')
    @validation.schema(schema.unshelve_v277, '2.77', '2.90')
    @validation.schema(schema.unshelve, '2.1', '2.76')
    def unshelve(self, req, server_id, body):
        context, instance = _load(req, server_id, 'unshelve')
        params = body['unshelve'] or {}
        host = params.get('host')
        if host:
            context.can(shelve_policies.POLICY_ROOT % 'unshelve_to_host',
                        target={'project_id': instance.project_id})
        zone = params.get('availabilityZone', shelve_flow.UNSET)
        if zone is None and not microversion.is_supported(req, '2.91'):
            zone = shelve_flow.UNSET
        try:
            servers.compute_api().unshelve(context, instance,
                                           availability_zone=zone,
                                           host=host)
        except exception.ComputeHostNotFound as exc:
            raise webob.exc.HTTPBadRequest(explanation=exc.format_message())
