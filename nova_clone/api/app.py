"""Assembly of the nova-api WSGI application (middleware built in code).

Outermost first: request id, fault wrapper, body read timeout and size
limit, authentication (keystone or noauth2), context, then pecan with the route
table.
"""

from oslo_log import log as logging
from oslo_middleware import request_id
import pecan
import pecan.core
import pecan.util
import webob
import webob.acceptparse

from nova_clone.api import auth
from nova_clone.api import body_limit
from nova_clone.api import faults
from nova_clone.api import root
from nova_clone.api import router
from nova_clone.api import routes

LOG = logging.getLogger(__name__)


class ComputeRequestId(request_id.RequestId):
    """Also returns the request id as X-Compute-Request-Id, as Nova does."""

    compat_headers = ['X-Compute-Request-Id']


class _Request(pecan.core.Request):
    """Keeps pecan away from the body: the dispatcher parses it (and
    answers Nova's 400 for a bad one) instead of pecan's text/plain 400."""

    @property
    def json(self):
        raise ValueError('the body is parsed by the dispatcher')

    @property
    def params(self):
        return self.GET

    @property
    def accept(self):
        # Every answer is JSON; pecan must not turn an Accept header into
        # its own 406.
        return webob.acceptparse.create_accept_header('*/*')


class _Pecan(pecan.Pecan):
    """Pecan without its per-request object dispatch.

    The root's ``_route`` sends every path to its ``dispatch`` (the route
    table), so pecan's controller lookup always ends there, with no
    arguments; finding that out costs pecan two signature inspections per
    request (each building a namedtuple class).  These overrides do what
    the lookup amounts to for this root: same state, same hooks, same
    query-string read (a malformed one is still pecan's 400), same
    response.
    """

    def find_controller(self, _state):
        local = pecan.core.state
        local.request = _state.request
        local.response = _state.response
        req = _state.request
        pecan_state = req.pecan
        pecan_state['routing_path'] = req.path_info
        self.handle_hooks(self.hooks, 'on_route', _state)
        pecan_state['extension'] = None
        controller = self.root.dispatch
        _state.controller = controller
        if not pecan_state['content_type']:
            # The Accept header always reads */* (see _Request.accept).
            pecan_state['content_type'] = pecan.util._cfg(controller).get(
                'content_type', 'text/html')
        if req.method == 'GET':
            req.GET
        else:
            req.params
        _state.arguments = pecan.core.Arguments([], [], {})
        self.handle_hooks(self.determine_hooks(controller), 'before', _state)
        local.controller = controller
        local.arguments = _state.arguments
        return controller, [], {}

    def _handle_empty_response_body(self, state):
        # Pecan makes an empty 200 a 204; a method that declares 200 (the
        # DELETE of a flavor extra spec) answers 200 with no body in Nova.
        if getattr(state.response, 'empty_200', False):
            state.response.content_type = None
            return
        super()._handle_empty_response_body(state)

    def invoke_controller(self, controller, args, kwargs, state):
        result = controller(*args, **kwargs)
        if not isinstance(result, webob.Response):
            raise TypeError('the dispatcher answers webob Responses only')
        state.response = result


def make_pecan_app():
    table = router.Router(routes.ROUTES)
    return _Pecan(root.RootController(table),
                  guess_content_type_from_ext=False,
                  force_canonical=False, use_context_locals=True,
                  request_cls=_Request)


def make_app(conf):
    """Build the full application from configuration ``conf``."""
    app = make_pecan_app()
    app = auth.ContextMiddleware(app)
    if conf.api.auth_strategy == 'noauth2':
        app = auth.NoAuthMiddleware(app)
    else:
        app = auth.keystone_auth(app, conf)
    app = body_limit.RequestBodySizeLimiter(app, conf)
    app = body_limit.BodyReadTimeout(app, conf.api.request_body_timeout)
    app = faults.FaultWrapper(app)
    app = ComputeRequestId(app)
    return app

