"""Nova's JSON error bodies, and the middleware that guarantees them.

Every error leaves the API as ``{"<faultName>": {"code": N, "message":
"..."}}``; no traceback and no HTML ever reaches a client.
"""

from oslo_log import log as logging
from oslo_serialization import jsonutils
import webob
import webob.dec
import webob.exc

from nova_clone.api import microversion
from nova_clone import exception

LOG = logging.getLogger(__name__)

FAULT_NAMES = {
    400: 'badRequest',
    401: 'unauthorized',
    403: 'forbidden',
    404: 'itemNotFound',
    405: 'badMethod',
    409: 'conflictingRequest',
    413: 'overLimit',
    415: 'badMediaType',
    429: 'overLimit',
    501: 'notImplemented',
    503: 'serviceUnavailable',
}

UNEXPECTED_ERROR = ('Unexpected API Error. Please report this at '
                    'http://bugs.launchpad.net/nova/ and attach the Nova API '
                    'log if possible.\n%s')


def fault_response(code, message, api_version=None, headers=None):
    """A webob Response holding Nova's fault body for ``code``."""
    name = FAULT_NAMES.get(code, 'computeFault')
    body = {name: {'code': code, 'message': message}}
    if code in (413, 429) and headers:
        retry = dict(headers).get('Retry-After')
        if retry:
            body[name]['retryAfter'] = retry
    resp = webob.Response(status=code, content_type='application/json')
    resp.charset = 'UTF-8'
    resp.body = jsonutils.dump_as_bytes(body)
    for key, value in (headers or {}).items():
        resp.headers[key] = str(value)
    if api_version is not None and not api_version.is_null():
        for key, value in microversion.response_headers(api_version):
            resp.headers[key] = value
    return resp


# How the API words an action refused by the server's state.
INVALID_STATE = ("Cannot '%(method)s' instance %(instance_uuid)s while it is "
                 "in %(attr)s %(state)s")


def _message(exc):
    if isinstance(exc, exception.InstanceInvalidState):
        try:
            return INVALID_STATE % exc.kwargs
        except KeyError:
            pass
    return exc.format_message()


def from_exception(exc, api_version=None):
    """Turn a NovaException or webob HTTP error into a fault response."""
    if isinstance(exc, exception.NovaException):
        code = int(exc.code)
        if code >= 500:
            LOG.error('Request failed: %s', exc.format_message())
        return fault_response(code, _message(exc), api_version,
                              headers=getattr(exc, 'headers', None))
    if isinstance(exc, webob.exc.HTTPException):
        message = getattr(exc, 'explanation', None) or exc.title
        return fault_response(exc.code, message, api_version)
    LOG.exception('Unexpected error handling an API request')
    return fault_response(500, UNEXPECTED_ERROR % type(exc), api_version)


class FaultWrapper(object):
    """Outermost safety net: any exception becomes Nova's computeFault."""

    def __init__(self, application):
        self.application = application

    @webob.dec.wsgify
    def __call__(self, req):
        try:
            # webob decodes the path and query lazily; undecodable bytes
            # are the client's mistake, so refuse them before anything
            # downstream trips over them.
            req.path_info  # noqa: B018
            req.GET  # noqa: B018
        except UnicodeDecodeError:
            return fault_response(400, 'Malformed request URL: not UTF-8')
        try:
            return req.get_response(self.application)
        except Exception as exc:  # noqa - everything must become JSON
            return from_exception(exc)
