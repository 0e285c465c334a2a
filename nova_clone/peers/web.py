"""HTTP plumbing shared by the stand-ins: routing, caller identity, errors.

Each stand-in is a ``PeerApp`` subclass: it adds routes
(``'/v2/images/{image_id}'``) and formats its errors the way the real
service does (``format_error``).  ``wrap(app, conf)`` puts
keystonemiddleware's auth_token and oslo.middleware's request_id in front.
"""

import re
import threading
import time

import webob
import webob.dec
from keystonemiddleware import auth_token
from keystonemiddleware.auth_token import _request as auth_request
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
        # The headers as WSGI names them (what webob's headers read).
        self.user_id = environ.get('HTTP_X_USER_ID')
        self.project_id = environ.get('HTTP_X_PROJECT_ID')
        self.roles = [r.strip().lower() for r in
                      (environ.get('HTTP_X_ROLES') or '').split(',')
                      if r.strip()]
        self.token = environ.get('HTTP_X_AUTH_TOKEN')

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
        resp = self._dispatch(req)
        # One line per request, with the caller's request id: a request
        # id found in Nova's log finds its calls here too.
        LOG.info('%s %s status: %s global_request_id: %s request_id: %s',
                 req.method, req.path_qs, resp.status_code,
                 req.environ.get(request_id.GLOBAL_REQ_ID),
                 req.environ.get(request_id.ENV_REQUEST_ID))
        return resp

    def _dispatch(self, req):
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


def _auth_environ_keys():
    """The environ keys auth_token strips from a request or sets on it."""
    try:
        names = list(auth_request._AuthTokenRequest.blank(
            '/')._all_auth_headers())
    except Exception:
        return None   # another keystonemiddleware: never skip auth_token
    names.append(auth_request._AuthTokenRequest._SYSTEM_SCOPE_HEADER)
    return tuple('HTTP_' + n.upper().replace('-', '_') for n in names)


_AUTH_KEYS = _auth_environ_keys()
_TOKEN_KEYS = ('keystone.token_auth', 'keystone.token_info')


class _TokenMemo:
    """auth_token's answer for a token pair it accepted a moment ago.

    Validating a token from auth_token's cache costs more CPU than most
    stand-in requests, and Nova sends the same user and service tokens
    many times a second.  For ``ttl`` seconds (never past a token's
    expiry) the same X-Auth-Token/X-Service-Token pair gets the identity
    headers auth_token gave it, without auth_token: the ones a client sent
    are stripped first, as auth_token does.  Tokens whose acceptance
    depends on the request (bind, application credential access rules)
    always go through auth_token, as does anything it did not accept.
    """

    MAX_ENTRIES = 512

    def __init__(self, app, ttl):
        self.app = app
        self.protected = None
        self.ttl = ttl
        self._known = {}
        self._lock = threading.Lock()

    def __call__(self, environ, start_response):
        token = environ.get('HTTP_X_AUTH_TOKEN')
        if token:
            hit = self._known.get((token,
                                   environ.get('HTTP_X_SERVICE_TOKEN')))
            if hit is not None and hit[0] > time.time():
                for key in _AUTH_KEYS:
                    environ.pop(key, None)
                environ.update(hit[1])
                return self.app(environ, start_response)
        return self.protected(environ, start_response)

    def behind_auth_token(self, environ, start_response):
        """The app as auth_token calls it: remember what it accepted."""
        if self.ttl:
            try:
                self._remember(environ)
            except Exception:
                LOG.debug('Not remembering a token', exc_info=True)
        return self.app(environ, start_response)

    def _remember(self, environ):
        token = environ.get('HTTP_X_AUTH_TOKEN')
        service = environ.get('HTTP_X_SERVICE_TOKEN')
        if not token or environ.get('HTTP_X_IDENTITY_STATUS') != 'Confirmed':
            return
        if service is not None and \
                environ.get('HTTP_X_SERVICE_IDENTITY_STATUS') != 'Confirmed':
            return
        info = environ.get('keystone.token_info') or {}
        body = info.get('token') or info.get('access') or {}
        if body.get('bind') or (body.get('application_credential') or {}
                                ).get('access_rules') is not None:
            return
        plugin = environ['keystone.token_auth']
        until = min(time.time() + self.ttl, plugin.user.expires.timestamp())
        if service is not None:
            until = min(until, plugin.service.expires.timestamp())
        values = {k: environ[k] for k in _AUTH_KEYS + _TOKEN_KEYS
                  if k in environ}
        with self._lock:
            if len(self._known) >= self.MAX_ENTRIES:
                self._known.clear()
            self._known[(token, service)] = (until, values)


# Not longer than auth_token's own cache keeps a validation (whose time
# is [keystone_authtoken] token_cache_time), and a good deal shorter.
TOKEN_MEMO_SECONDS = 30


def _memo_ttl(conf):
    try:
        cache_time = conf.keystone_authtoken.token_cache_time
    except Exception:
        return 0
    if cache_time is None or cache_time <= 0:
        return 0   # auth_token validates every time: so must we
    return min(cache_time, TOKEN_MEMO_SECONDS)


def wrap(app, conf, public_paths=('',)):
    """app behind auth_token (except version discovery) and request_id."""
    memo = _TokenMemo(app, 0)
    protected = memo.protected = auth_token.AuthProtocol(
        memo.behind_auth_token, {'oslo_config_config': conf})
    # auth_token has registered its options by now.
    memo.ttl = _memo_ttl(conf) if _AUTH_KEYS else 0
    if memo.ttl:
        protected = memo
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
