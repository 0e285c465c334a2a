"""/os-floating-ips (a Neutron proxy, to 2.35; 404 above) and the
addFloatingIp/removeFloatingIp server actions (to 2.43).

A pool is a ``router:external`` network, named by name or id;
``[neutron] default_floating_pool`` when the body names none.  Binding a
floating IP to a server binds it to the server's port holding the fixed
address (the first IPv4 one when none is given).
"""

import netaddr
import webob.exc

from nova_clone.api import auth
from nova_clone.api import common
from nova_clone.api.controllers import neutron_proxy
from nova_clone.api.controllers import servers
from nova_clone.api import resource
from nova_clone.api.schemas import floating_ips as schema
from nova_clone.api import validation
from nova_clone.conf import CONF
from nova_clone.network import neutron as neutron_api
from nova_clone.policies import networks as net_policies

FIP = net_policies.FLOATING_IPS


def _not_found(ident):
    return 'Floating IP not found for ID %s' % ident


def external_networks(neutron):
    return neutron('GET', '/v2.0/networks',
                   params={'router:external': 'True'})['networks']


def _view(fip, networks):
    net = networks.get(fip['floating_network_id'], {})
    details = fip.get('port_details') or {}
    return {'id': fip['id'], 'ip': fip['floating_ip_address'],
            'pool': net.get('name') or fip['floating_network_id'],
            'fixed_ip': fip['fixed_ip_address'],
            'instance_id': details.get('device_id') or None}


def _by_id(networks):
    return {n['id']: n for n in networks}


class FloatingIPController(object):

    @resource.api_version(None, '2.35')
    def index(self, req):
        context = auth.get_context(req)
        context.can(FIP % 'list',
                    target={'project_id': context.project_id})
        neutron = neutron_proxy.Neutron(context)
        fips = neutron('GET', '/v2.0/floatingips', params={
            'tenant_id': context.project_id})['floatingips']
        nets = _by_id(external_networks(neutron))
        return {'floating_ips': [_view(f, nets) for f in fips]}

    @resource.api_version(None, '2.35')
    def show(self, req, floating_ip_id):
        context = auth.get_context(req)
        context.can(FIP % 'show',
                    target={'project_id': context.project_id})
        neutron = neutron_proxy.Neutron(context)
        fip = neutron('GET', '/v2.0/floatingips/%s' % floating_ip_id,
                      not_found=_not_found(floating_ip_id))['floatingip']
        return {'floating_ip': _view(fip, _by_id(external_networks(
            neutron)))}

    @resource.api_version(None, '2.35')
    @validation.schema(schema.create)
    def create(self, req, body=None):
        context = auth.get_context(req)
        context.can(FIP % 'create',
                    target={'project_id': context.project_id})
        pool = (body or {}).get('pool') or CONF.neutron.default_floating_pool
        neutron = neutron_proxy.Neutron(context)
        nets = external_networks(neutron)
        matching = [n for n in nets if n['name'] == pool] or \
            [n for n in nets if n['id'] == pool]
        if not matching:
            raise webob.exc.HTTPNotFound(
                explanation='Floating IP pool not found.')
        if len(matching) > 1:
            raise webob.exc.HTTPConflict(
                explanation='Multiple floating IP pools matches found for '
                            'name \'%s\'' % pool)
        try:
            fip = neutron.call('POST', '/v2.0/floatingips', json={
                'floatingip': {'floating_network_id': matching[0]['id']}})
        except neutron_api.NeutronClientError as exc:
            if exc.kind == 'OverQuota':
                raise webob.exc.HTTPForbidden(
                    explanation='IP allocation over quota in pool %s.'
                                % pool)
            if exc.kind == 'IpAddressGenerationFailure':
                raise webob.exc.HTTPNotFound(
                    explanation='No more floating IPs in pool %s.' % pool)
            raise neutron_proxy.http_error(exc)
        return {'floating_ip': _view(fip['floatingip'], _by_id(nets))}

    @resource.api_version(None, '2.35')
    @resource.response(202)
    def delete(self, req, floating_ip_id):
        context = auth.get_context(req)
        context.can(FIP % 'delete',
                    target={'project_id': context.project_id})
        neutron_proxy.Neutron(context)(
            'DELETE', '/v2.0/floatingips/%s' % floating_ip_id,
            not_found=_not_found(floating_ip_id))


def _floating_ip_by_address(neutron, address):
    found = neutron('GET', '/v2.0/floatingips', params={
        'floating_ip_address': address})['floatingips']
    if not found:
        raise webob.exc.HTTPNotFound(explanation='floating IP not found')
    return found[0]


class FloatingIPActionController(object):
    """addFloatingIp/removeFloatingIp of POST /servers/{id}/action."""

    @resource.api_version(None, '2.43')
    @resource.action('addFloatingIp')
    @resource.response(202)
    @validation.schema(schema.add_floating_ip)
    def add_floating_ip(self, req, server_id, body):
        context = auth.get_context(req)
        instance = servers.get_server(req, server_id)
        context.can(FIP % 'add', target={'project_id': instance.project_id})
        values = body['addFloatingIp']
        neutron = neutron_proxy.Neutron(context)
        ports = neutron('GET', '/v2.0/ports',
                        params={'device_id': server_id})['ports']
        fixed = [(p, ip['ip_address']) for p in ports
                 for ip in p['fixed_ips']]
        if not fixed:
            raise common.bad_request('No fixed IPs associated to instance')
        wanted = values.get('fixed_address')
        if wanted:
            fixed = [(p, a) for p, a in fixed if a == wanted]
            if not fixed:
                raise common.bad_request('Specified fixed address not '
                                         'assigned to instance')
        else:
            fixed = [(p, a) for p, a in fixed if netaddr.valid_ipv4(a)]
            if not fixed:
                raise common.bad_request(
                    'Unable to associate floating IP %s to any fixed IPs '
                    'for instance %s. Instance has no fixed IPv4 addresses'
                    ' to associate.' % (values['address'], server_id))
        port, address = fixed[0]
        fip = _floating_ip_by_address(neutron, values['address'])
        # One already associated moves to this server, as in Nova: Neutron
        # re-associates it and tells Nova of both servers' changes.
        try:
            neutron.call('PUT', '/v2.0/floatingips/%s' % fip['id'], json={
                'floatingip': {'port_id': port['id'],
                               'fixed_ip_address': address}})
        except neutron_api.NeutronClientError as exc:
            raise common.bad_request(
                'Unable to associate floating IP %s to fixed IP %s for '
                'instance %s. Error: %s' % (values['address'], address,
                                            server_id, exc.message))

    @resource.api_version(None, '2.43')
    @resource.action('removeFloatingIp')
    @resource.response(202)
    @validation.schema(schema.remove_floating_ip)
    def remove_floating_ip(self, req, server_id, body):
        context = auth.get_context(req)
        # The server and the policy first: neither a stranger nor a reader
        # learns anything of the project's floating IPs.
        instance = servers.get_server(req, server_id)
        context.can(FIP % 'remove',
                    target={'project_id': instance.project_id})
        address = body['removeFloatingIp']['address']
        neutron = neutron_proxy.Neutron(context)
        fip = _floating_ip_by_address(neutron, address)
        details = fip.get('port_details') or {}
        if not fip['port_id'] or details.get('device_id') != instance.uuid:
            raise webob.exc.HTTPConflict(
                explanation='Floating IP %s is not associated with instance'
                            ' %s.' % (address, server_id))
        neutron('PUT', '/v2.0/floatingips/%s' % fip['id'],
                json={'floatingip': {'port_id': None}})
