"""POST /servers/{server_id}/remote-consoles (2.6+): a console URL with a
fresh token, from the server's compute."""

import webob.exc

from nova_clone.api import common
from nova_clone.api.controllers import servers
from nova_clone.api import resource
from nova_clone.api.schemas import remote_consoles as schema
from nova_clone.api import validation
from nova_clone import exception
from nova_clone.policies import remote_consoles as policies


class RemoteConsolesController(object):

    @resource.api_version('2.6')
    @validation.schema(schema.create_v299, '2.99')
    @validation.schema(schema.create_v28, '2.8', '2.98')
    @validation.schema(schema.create_v26, '2.6', '2.7')
    def create(self, req, server_id, body):
        context, instance = servers.get_server_for(
            req, server_id, policies.REMOTE_CONSOLES)
        protocol = body['remote_console']['protocol']
        console_type = body['remote_console']['type']
        try:
            output = servers.compute_api().get_console(
                context, instance, protocol, console_type)
        except exception.InstanceNotReady as exc:
            raise webob.exc.HTTPConflict(explanation=exc.format_message())
        except (exception.ConsoleTypeInvalid,
                exception.ConsoleTypeUnavailable) as exc:
            raise common.bad_request(exc.format_message())
        except NotImplementedError:
            raise webob.exc.HTTPNotImplemented(
                explanation='Action is not supported.')
        return {'remote_console': {'protocol': protocol,
                                   'type': console_type,
                                   'url': output['url']}}
