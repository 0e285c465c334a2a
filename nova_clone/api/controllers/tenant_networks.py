"""/os-tenant-networks (to 2.35; 404 above): the Neutron networks the
project sees, as id, label and an empty cidr; creating and deleting went
with nova-network (410)."""

from nova_clone.api import auth
from nova_clone.api.controllers import neutron_proxy
from nova_clone.api import resource
from nova_clone.policies import networks as net_policies


def _view(net):
    # Nova formats the cidr it no longer knows: the string 'None'.
    return {'id': net['id'], 'label': net['name'], 'cidr': str(None)}


class TenantNetworkController(object):

    @resource.api_version(None, '2.35')
    def index(self, req):
        context = auth.get_context(req)
        context.can(net_policies.TENANT_NETWORKS % 'list',
                    target={'project_id': context.project_id})
        nets = neutron_proxy.Neutron(context)('GET',
                                              '/v2.0/networks')['networks']
        return {'networks': [_view(n) for n in nets]}

    @resource.api_version(None, '2.35')
    def show(self, req, network_id):
        context = auth.get_context(req)
        context.can(net_policies.TENANT_NETWORKS % 'show',
                    target={'project_id': context.project_id})
        net = neutron_proxy.Neutron(context)(
            'GET', '/v2.0/networks/%s' % network_id,
            not_found='Network not found')['network']
        return {'network': _view(net)}
