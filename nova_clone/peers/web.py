"""HTTP plumbing shared by the stand-ins: routing, caller identity, errors.

Each stand-in is a ``PeerApp`` subclass: it adds routes
(``'/v2/images/{image_id}'``) and formats its errors the way the real
service does (``format_error``).  ``wrap(app, conf)`` puts
keystonemiddleware's auth_token and oslo.middleware's request_id in front.
"""

import re

import webob
import webob.dec
from keystonemiddleware import auth_token
from oslo_log import log as logging
from oslo_middleware import request_id
from oslo_serialization import jsonutils
from oslo_utils import timeutils

LOG = logging.getLogger(__name__)


class PeerError(Exception):
    """An error answer: status, message and the service's error name."""

    def __init__(self, status, message, kind=None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.kind = kind


def bad_request(message, kind='BadRequest'):
    return PeerError(400, message, kind)


def not_found(message, kind='NotFound'):
    return PeerError(404, message, kind)


def forbidden(message, kind='Forbidden'):
    return PeerError(403, message, kind)


def conflict(message, kind='Conflict'):
    return PeerError(409, message, kind)


class Caller:
    """Who asks, from the headers keystonemiddleware sets."""

    def __init__(self, environ):
        headers = webob.Request(environ).headers
        self.user_id = headers.get('X-User-Id')
        self.project_id = headers.get('X-Project-Id')
        self.roles = [r.strip().lower() for r in
                      (headers.get('X-Roles') or '').split(',') if r.strip()]
        self.token = headers.get('X-Auth-Token')

    @property
    def is_admin(self):
        return 'admin' in self.roles


class Request(webob.Request):
    caller = None
    params_match = None

    def json_body_or_400(self):
        if not self.body:
            raise bad_request('Request body is missing.')
        try:
            return jsonutils.loads(self.body)
        except ValueError:
            raise bad_request('Malformed JSON in request body.')


_VAR = re.compile(r'\{(\w+)\}')


class PeerApp:
    """A WSGI app that routes to ``handler(req, **path_vars)`` methods."""

    name = 'peer'

    def __init__(self):
        self._routes = []

    def route(self, method, pattern, handler):
        regex = '^' + _VAR.sub(r'(?P<\1>[^/]+)', pattern.rstrip('/')) + '/?$'
        self._routes.append((method, re.compile(regex), handler))

    def format_error(self, err):
        """Body and content type of an error answer, as the service does."""
        return {'error': {'code': err.status, 'message': err.message}}

    def _error(self, err):
        body = self.format_error(err)
        resp = webob.Response(status=err.status)
        if isinstance(body, (dict, list)):
            resp.json_body = body
        else:
            resp.text = body
            resp.content_type = 'text/plain'
        return resp

    @webob.dec.wsgify(RequestClass=Request)
    def __call__(self, req):
        path = req.path_info or '/'
        if path != '/':
            path = path.rstrip('/')
        methods = []
        for method, regex, handler in self._routes:
            match = regex.match(path)
            if not match:
                continue
            methods.append(method)
            if method != req.method and not (
                    req.method == 'HEAD' and method == 'GET'):
                continue
            req.caller = Caller(req.environ)
            try:
                return handler(req, **match.groupdict())
            except PeerError as err:
                LOG.info('%s %s -> %s %s', req.method, req.path, err.status,
                         err.message)
                return self._error(err)
            except Exception:
                LOG.exception('%s %s failed', req.method, req.path)
                return self._error(PeerError(
                    500, 'The server has either erred or is incapable of '
                         'performing the requested operation.',
                    'InternalServerError'))
        if methods:
            resp = self._error(PeerError(405, 'The method is not allowed for '
                                         'the requested URL.',
                                         'HTTPMethodNotAllowed'))
            resp.headers['Allow'] = ', '.join(sorted(set(methods)))
            return resp
        return self._error(PeerError(404, 'The resource could not be found.',
                                     'HTTPNotFound'))


def json_response(body, status=200, headers=None):
    resp = webob.Response(status=status, charset='UTF-8')
    resp.content_type = 'application/json'
    resp.body = jsonutils.dump_as_bytes(body)
    for key, value in (headers or {}).items():
        resp.headers[key] = value
    return resp


def empty_response(status=204):
    resp = webob.Response(status=status)
    resp.headers.pop('Content-Type', None)
    return resp


def isotime(at=None):
    """'2026-01-02T03:04:05Z', the timestamp form the services print."""
    return (at or timeutils.utcnow()).strftime('%Y-%m-%dT%H:%M:%SZ')


def query_int(req, name, default=None, minimum=0):
    raw = req.GET.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise bad_request('%s must be an integer, got %r.' % (name, raw))
    if value < minimum:
        raise bad_request('%s must be >= %d.' % (name, minimum))
    return value


class _PublicPaths:
    """Serve version documents without a token, everything else with one."""

    def __init__(self, app, protected, public):
        self.app, self.protected, self.public = app, protected, public

    def __call__(self, environ, start_response):
        path = (environ.get('PATH_INFO') or '/').rstrip('/')
        if path in self.public:
            return self.app(environ, start_response)
        return self.protected(environ, start_response)


def wrap(app, conf, public_paths=('',)):
    """app behind auth_token (except version discovery) and request_id."""
    protected = auth_token.AuthProtocol(app, {'oslo_config_config': conf})
    return request_id.RequestId(_PublicPaths(app, protected,
                                             set(public_paths)))


def check_fields(values, spec, error):
    """Check JSON types of ``values`` against {key: (types, nullable)}.

    ``error(key, value)`` builds the PeerError of the service; ints exclude
    booleans, as JSON Schema does.
    """
    for key, (types, nullable) in spec.items():
        if key not in values:
            continue
        value = values[key]
        if value is None:
            if nullable:
                continue
            raise error(key, value)
        if isinstance(value, bool) and bool not in types:
            raise error(key, value)
        if not isinstance(value, types):
            raise error(key, value)
