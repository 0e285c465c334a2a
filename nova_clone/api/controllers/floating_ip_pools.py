"""/os-floating-ip-pools (to 2.35; 404 above): Neutron's external
networks, by name (their id when unnamed)."""

from nova_clone.api import auth
from nova_clone.api.controllers import floating_ips
from nova_clone.api.controllers import neutron_proxy
from nova_clone.api import resource
from nova_clone.policies import networks as net_policies


class FloatingIPPoolsController(object):

    @resource.api_version(None, '2.35')
    def index(self, req):
        context = auth.get_context(req)
        context.can(net_policies.FLOATING_IP_POOLS,
                    target={'project_id': context.project_id})
        nets = floating_ips.external_networks(
            neutron_proxy.Neutron(context))
        return {'floating_ip_pools': [{'name': n['name'] or n['id']}
                                      for n in nets]}
