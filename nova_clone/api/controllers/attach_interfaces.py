"""/servers/{server_id}/os-interface: the server's ports, read from
Neutron; attach (200 with the attachment) and detach (202) through the
server's compute."""

import webob.exc

from nova_clone.api import common
from nova_clone.api.controllers import servers
from nova_clone.api import microversion
from nova_clone.api import resource
from nova_clone.api.schemas import attach_interfaces as schema
from nova_clone.api import validation
from nova_clone import exception
from nova_clone.policies import attach_interfaces as policies

def network_api():
    return servers.compute_api().network_api


def _view(req, port):
    view = {
        'net_id': port['network_id'],
        'port_id': port['id'],
        'mac_addr': port['mac_address'],
        'port_state': port['status'],
        'fixed_ips': port.get('fixed_ips'),
    }
    if microversion.is_supported(req, '2.70'):
        # Device tags are not kept for a server's ports here.
        view['tag'] = None
    return view


class InterfaceAttachmentController(object):

    def index(self, req, server_id):
        context, instance = servers.authorized_server(
            req, server_id, policies.BASE % 'list')
        ports = network_api().list_ports(context,
                                         device_id=instance.uuid)['ports']
        return {'interfaceAttachments': [_view(req, p) for p in ports]}

    def show(self, req, server_id, port_id):
        context, instance = servers.authorized_server(
            req, server_id, policies.BASE % 'show')
        return {'interfaceAttachment': _view(
            req, self._attached_port(context, instance, port_id))}

    @staticmethod
    def _attached_port(context, instance, port_id):
        try:
            port = network_api().show_port(context, port_id)['port']
        except exception.PortNotFound as exc:
            raise webob.exc.HTTPNotFound(explanation=exc.format_message())
        if port.get('device_id') != instance.uuid:
            raise webob.exc.HTTPNotFound(
                explanation='Instance %s does not have a port with id %s'
                % (instance.uuid, port_id))
        return port

    @validation.schema(schema.create_v249, '2.49')
    @validation.schema(schema.create, '2.1', '2.48')
    def create(self, req, server_id, body):
        context, instance = servers.authorized_server(
            req, server_id, policies.BASE % 'create', ['info_cache'])
        values = (body or {}).get('interfaceAttachment') or {}
        network_id = values.get('net_id')
        port_id = values.get('port_id')
        fixed_ips = values.get('fixed_ips')
        if network_id and port_id:
            raise common.bad_request('Must not input both network_id and '
                                     'port_id')
        if fixed_ips and not network_id:
            raise common.bad_request('Must input network_id when request '
                                     'IP address')
        requested_ip = fixed_ips[0]['ip_address'] if fixed_ips else None
        try:
            vif = servers.compute_api().attach_interface(
                context, instance, network_id, port_id, requested_ip,
                tag=values.get('tag'))
        except (exception.PortNotFound,
                exception.NetworkNotFound) as exc:
            raise webob.exc.HTTPNotFound(explanation=exc.format_message())
        except (exception.FixedIpAlreadyInUse,
                exception.PortInUse) as exc:
            raise webob.exc.HTTPConflict(explanation=exc.format_message())
        except (exception.InterfaceAttachFailed,
                exception.VirtualInterfaceCreateException) as exc:
            raise webob.exc.HTTPInternalServerError(
                explanation=exc.format_message())
        except (exception.Invalid, exception.NoMoreFixedIps) as exc:
            raise common.bad_request(exc.format_message())
        return self.show(req, server_id, vif['id'])

    @resource.response(202)
    def delete(self, req, server_id, port_id):
        context, instance = servers.authorized_server(
            req, server_id, policies.BASE % 'delete', ['info_cache'])
        try:
            servers.compute_api().detach_interface(context, instance,
                                                   port_id)
        except exception.PortNotFound as exc:
            raise webob.exc.HTTPNotFound(explanation=exc.format_message())
