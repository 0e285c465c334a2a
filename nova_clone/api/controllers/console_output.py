"""Server action os-getConsoleOutput: the guest's console log."""

import re

import webob.exc

from nova_clone.api.controllers import servers
from nova_clone.api import resource
from nova_clone.api.schemas import console_output as schema
from nova_clone.api import validation
from nova_clone.policies import console_output as policies

# Control characters other than tab and newline do not survive JSON
# readers well; Nova drops them.
_CONTROL = re.compile('[\x00-\x08\x0b-\x1f]')


class ConsoleOutputController(object):

    @resource.action('os-getConsoleOutput')
    @validation.schema(schema.get_console_output)
    def _get_console_output(self, req, server_id, body):
        context, instance = servers.authorized_server(
            req, server_id, policies.BASE_POLICY_NAME)
        length = body['os-getConsoleOutput'].get('length')
        if length is not None and int(length) == -1:
            length = None
        try:
            output = servers.compute_api().get_console_output(
                context, instance, length)
        except NotImplementedError:
            raise webob.exc.HTTPNotImplemented(
                explanation='Unable to get console log, functionality not '
                            'implemented')
        return {'output': _CONTROL.sub('', output)}
