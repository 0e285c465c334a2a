"""Assembly of the nova-api WSGI application (middleware built in code).

Outermost first: request id, fault wrapper, authentication (keystone or
noauth2), context, then pecan with the route table.
"""

from oslo_log import log as logging
from oslo_middleware import request_id
import pecan
import pecan.core
import webob.acceptparse

from nova_clone.api import auth
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


def make_pecan_app():
    table = router.Router(routes.ROUTES)
    return pecan.Pecan(root.RootController(table),
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
    app = faults.FaultWrapper(app)
    app = ComputeRequestId(app)
    return app

