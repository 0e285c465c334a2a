"""/os-networks (to 2.35; 404 above): Neutron's networks seen through
nova-network's old fields, all but id and label empty.  Creating,
deleting and associating networks went with nova-network: 410."""

from nova_clone.api import auth
from nova_clone.api.controllers import neutron_proxy
from nova_clone.api import resource
from nova_clone.policies import networks as net_policies

_FIELDS = ('id', 'cidr', 'netmask', 'gateway', 'broadcast', 'dns1', 'dns2',
           'cidr_v6', 'gateway_v6', 'label', 'netmask_v6')
_ADMIN_FIELDS = ('created_at', 'updated_at', 'deleted_at', 'deleted',
                 'injected', 'bridge', 'vlan', 'vpn_public_address',
                 'vpn_public_port', 'vpn_private_address', 'dhcp_start',
                 'project_id', 'host', 'bridge_interface', 'multi_host',
                 'priority', 'rxtx_base', 'mtu', 'dhcp_server',
                 'enable_dhcp', 'share_address')


def _view(context, net):
    fields = _FIELDS + (_ADMIN_FIELDS if context.is_admin else ())
    view = dict.fromkeys(fields)
    view.update(id=net['id'], label=net['name'])
    return view


class NetworkController(object):

    @resource.api_version(None, '2.35')
    def index(self, req):
        context = auth.get_context(req)
        context.can(net_policies.NETWORKS % 'list')
        nets = neutron_proxy.Neutron(context)('GET', '/v2.0/networks')
        return {'networks': [_view(context, n) for n in nets['networks']]}

    @resource.api_version(None, '2.35')
    def show(self, req, network_id):
        context = auth.get_context(req)
        context.can(net_policies.NETWORKS % 'show')
        net = neutron_proxy.Neutron(context)(
            'GET', '/v2.0/networks/%s' % network_id,
            not_found='Network could not be found.')['network']
        return {'network': _view(context, net)}
