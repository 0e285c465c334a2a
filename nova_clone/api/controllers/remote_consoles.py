"""POST /servers/{server_id}/remote-consoles (2.6+): a console URL with a
fresh token, from the server's compute; before 2.6 the os-getVNCConsole,
os-getSPICEConsole and os-getSerialConsole actions did the same
(os-getRDPConsole is gone: 410)."""

import webob.exc

from nova_clone.api import common
from nova_clone.api.controllers import servers
from nova_clone.api import resource
from nova_clone.api.schemas import remote_consoles as schema
from nova_clone.api import validation
from nova_clone import exception
from nova_clone.policies import remote_consoles as policies


def _console_url(req, server_id, protocol, console_type):
    context, instance = servers.authorized_server(
        req, server_id, policies.REMOTE_CONSOLES)
    try:
        return servers.compute_api().get_console(
            context, instance, protocol, console_type)['url']
    except exception.InstanceNotReady as exc:
        raise webob.exc.HTTPConflict(explanation=exc.format_message())
    except (exception.ConsoleTypeInvalid,
            exception.ConsoleTypeUnavailable) as exc:
        raise common.bad_request(exc.format_message())
    except NotImplementedError:
        raise webob.exc.HTTPNotImplemented(
            explanation='Action is not supported.')


class RemoteConsolesController(object):

    @resource.api_version('2.6')
    @validation.schema(schema.create_v299, '2.99')
    @validation.schema(schema.create_v28, '2.8', '2.98')
    @validation.schema(schema.create_v26, '2.6', '2.7')
    def create(self, req, server_id, body):
        protocol = body['remote_console']['protocol']
        console_type = body['remote_console']['type']
        url = _console_url(req, server_id, protocol, console_type)
        return {'remote_console': {'protocol': protocol,
                                   'type': console_type, 'url': url}}


def _legacy_console(req, server_id, protocol, body):
    console_type = next(iter(body.values()))['type']
    return {'console': {'type': console_type, 'url': _console_url(
        req, server_id, protocol, console_type)}}


class ConsoleActionsController(object):
    """The console actions of microversions before 2.6."""

    @resource.action('os-getVNCConsole')
    @resource.api_version('2.1', '2.5')
    @validation.schema(schema.get_vnc_console)
    def get_vnc_console(self, req, server_id, body):
        return _legacy_console(req, server_id, 'vnc', body)

    @resource.action('os-getSPICEConsole')
    @resource.api_version('2.1', '2.5')
    @validation.schema(schema.get_spice_console)
    def get_spice_console(self, req, server_id, body):
        return _legacy_console(req, server_id, 'spice', body)

    @resource.action('os-getSerialConsole')
    @resource.api_version('2.1', '2.5')
    @validation.schema(schema.get_serial_console)
    def get_serial_console(self, req, server_id, body):
        return _legacy_console(req, server_id, 'serial', body)

    @resource.action('os-getRDPConsole')
    @resource.removed('29.0.0')
    def get_rdp_console(self, req, server_id, body):
        """Gone with the Hyper-V driver."""
