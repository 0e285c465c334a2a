"""Server actions pause and unpause."""

from nova_clone.api.controllers import servers
from nova_clone.api import resource
from nova_clone.api.schemas import pause_server as schema
from nova_clone.api import validation
from nova_clone.policies import pause_server as policies


class PauseServerController(object):

    @resource.action('pause')
    @resource.response(202)
    @validation.schema(schema.pause)
    def _pause(self, req, server_id, body):
        context, instance = servers.authorized_server(
            req, server_id, policies.POLICY_ROOT % 'pause')
        servers.compute_api().pause(context, instance)

    @resource.action('unpause')
    @resource.response(202)
    @validation.schema(schema.unpause)
    def _unpause(self, req, server_id, body):
        context, instance = servers.authorized_server(
            req, server_id, policies.POLICY_ROOT % 'unpause')
        servers.compute_api().unpause(context, instance)
