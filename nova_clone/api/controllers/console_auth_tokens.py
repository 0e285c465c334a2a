"""GET /os-console-auth-tokens/{console_token} (admin): what a console
token connects to, as a console proxy asks."""

import webob.exc

from nova_clone.api import auth
from nova_clone.api.controllers import servers
from nova_clone.api import microversion
from nova_clone import exception
from nova_clone.policies import remote_consoles as policies


class ConsoleAuthTokensController(object):

    def show(self, req, console_token):
        context = auth.get_context(req)
        context.can(policies.CONSOLE_AUTH_TOKENS, target={})
        try:
            token = servers.compute_api().validate_console_token(
                context, console_token)
        except exception.InvalidToken:
            raise webob.exc.HTTPNotFound(explanation='Token not found')
        # Before 2.31 only RDP tokens could be read, and this cloud makes
        # none.
        if not microversion.is_supported(req, '2.31'):
            raise webob.exc.HTTPUnauthorized(
                explanation='The requested console type details are not '
                            'accessible')
        console = {'instance_uuid': token.instance_uuid,
                   'host': token.host, 'port': token.port,
                   'internal_access_path': token.internal_access_path}
        if microversion.is_supported(req, '2.99'):
            console['tls_port'] = token.tls_port
        return {'console': console}
