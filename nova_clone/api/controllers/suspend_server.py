"""Server actions suspend and resume."""

from nova_clone.api.controllers import servers
from nova_clone.api import resource
from nova_clone.api.schemas import suspend_server as schema
from nova_clone.api import validation
from nova_clone.policies import suspend_server as policies


class SuspendServerController(object):

    @resource.action('suspend')
    @resource.response(202)
    @validation.schema(schema.suspend)
    def _suspend(self, req, server_id, body):
        context, instance = servers.authorized_server(
            req, server_id, policies.POLICY_ROOT % 'suspend')
        servers.compute_api().suspend(context, instance)

    @resource.action('resume')
    @resource.response(202)
    @validation.schema(schema.resume)
    def _resume(self, req, server_id, body):
        context, instance = servers.authorized_server(
            req, server_id, policies.POLICY_ROOT % 'resume')
        servers.compute_api().resume(context, instance)
