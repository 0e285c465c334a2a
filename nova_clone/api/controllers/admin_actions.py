"""Administrator's server actions: os-resetState."""

from nova_clone.api.controllers import servers
from nova_clone.api import resource
from nova_clone.api.schemas import admin_actions as schema
from nova_clone.api import validation
from nova_clone.policies import admin_actions as policies


class AdminActionsController(object):

    @resource.action('os-resetState')
    @resource.response(202)
    @validation.schema(schema.reset_state)
    def _reset_state(self, req, server_id, body):
        context, instance = servers.authorized_server(
            req, server_id, policies.POLICY_ROOT % 'reset_state')
        servers.compute_api().reset_state(
            context, instance, body['os-resetState']['state'])
