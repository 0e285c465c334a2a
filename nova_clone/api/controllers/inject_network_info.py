"""Admin actions on a server's networking: ``injectNetworkInfo`` (202:
the compute hands the guest its current network info) and
``resetNetwork`` (gone: 410).  Nova keeps them in admin_actions with
os-resetState."""

from nova_clone.api.controllers import servers
from nova_clone.api import resource
from nova_clone.policies import inject_network_info as policies


class InjectNetworkInfoController(object):

    @resource.response(202)
    @resource.action('injectNetworkInfo')
    def inject_network_info(self, req, server_id, body):
        context, instance = servers.authorized_server(
            req, server_id, policies.INJECT_NETWORK_INFO, ['info_cache'])
        servers.compute_api().inject_network_info(context, instance)

    @resource.action('resetNetwork')
    @resource.removed('23.0.0')
    def reset_network(self, req, server_id, body):
        """Gone with nova-network."""
