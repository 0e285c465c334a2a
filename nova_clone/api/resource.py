"""What a controller method declares (status code, microversion range,
the action it handles) and the call of one method for one request."""

import inspect

from oslo_log import log as logging
from oslo_serialization import jsonutils
import webob
import webob.exc

from nova_clone.api import microversion
from nova_clone import exception

LOG = logging.getLogger(__name__)

JSON_TYPES = ('application/json', 'application/vnd.openstack.compute+json')


def response(code):
    """Default success status of a controller method."""
    def decorator(func):
        func.wsgi_code = code
        return func
    return decorator


def api_version(min_version=None, max_version=None):
    """Microversion range in which a method exists (404 outside)."""
    def decorator(func):
        func.api_min = min_version
        func.api_max = max_version
        return func
    return decorator


def removed(release):
    """A method for an API Nova removed: always 410 Gone."""
    def decorator(func):
        func.removed_in = release
        return func
    return decorator


class ResponseObject(object):
    """A body plus explicit status and headers."""

    def __init__(self, body=None, code=None, headers=None):
        self.body = body
        self.code = code
        self.headers = dict(headers or {})


def action(name):
    """The controller method answers ``POST .../action`` bodies whose
    single key is ``name`` (api_version limits it to a range)."""
    def decorator(func):
        func.wsgi_action = name
        return func
    return decorator


class Actions(object):
    """One ``POST .../action`` route: its body's single key picks the
    handler among the @action methods of the controllers given, one
    controller per action family.  A key no controller handles, or one
    outside its microversion range, is Nova's 400."""

    def __init__(self, *controllers):
        self._handlers = {}
        for controller in controllers:
            for attr, func in inspect.getmembers(type(controller),
                                                 inspect.isfunction):
                name = getattr(func, 'wsgi_action', None)
                if name is None:
                    continue
                if name in self._handlers:
                    raise ValueError('Two handlers of action %s' % name)
                self._handlers[name] = getattr(controller, attr)

    def handlers(self):
        """{action key: controller method}."""
        return dict(self._handlers)

    def __call__(self, req, body=None, **params):
        if not isinstance(body, dict) or len(body) != 1:
            raise exception.ValidationError(
                detail='Malformed request body')
        name = next(iter(body))
        handler = self._handlers.get(name)
        if handler is None or not _in_range(req, handler):
            raise webob.exc.HTTPBadRequest(
                explanation='There is no such action: %s' % name)
        code, result, headers = invoke(handler, req, params, body)
        return ResponseObject(result, code, headers)


def _in_range(req, func):
    return microversion.is_supported(req, getattr(func, 'api_min', None),
                                     getattr(func, 'api_max', None))


def parse_body(req):
    """The JSON body of a request, or None when it has none."""
    if not req.body:
        return None
    ctype = (req.content_type or '').lower()
    if ctype and ctype not in JSON_TYPES:
        raise webob.exc.HTTPUnsupportedMediaType(
            explanation='Unsupported Content-Type')
    try:
        body = jsonutils.loads(req.body)
    except (ValueError, RecursionError):
        # RecursionError: nested deeper than the interpreter's stack.
        raise webob.exc.HTTPBadRequest(
            explanation='Malformed request body')
    _check_decoded(body)
    return body


# No request of the compute API nests deeper than a few levels; a deeper
# body would only trip the recursion limit of a later step.
MAX_BODY_DEPTH = 32


def _check_decoded(body):
    """Refuse what JSON can say but nothing downstream can store or
    walk: lone UTF-16 surrogates (``"\\ud800"``, not encodable as
    UTF-8) and nesting deeper than MAX_BODY_DEPTH."""
    pending = [(body, 1)]
    while pending:
        value, depth = pending.pop()
        if isinstance(value, str):
            if not value.isascii():
                try:
                    value.encode('utf-8')
                except UnicodeEncodeError:
                    raise webob.exc.HTTPBadRequest(
                        explanation='Malformed request body: a string '
                                    'holds an unpaired surrogate')
            continue
        if not isinstance(value, (dict, list)):
            continue
        if depth > MAX_BODY_DEPTH:
            raise webob.exc.HTTPBadRequest(
                explanation='Malformed request body: nested deeper than '
                            '%d levels' % MAX_BODY_DEPTH)
        if isinstance(value, dict):
            pending.extend((key, depth) for key in value)
            pending.extend((item, depth + 1) for item in value.values())
        else:
            pending.extend((item, depth + 1) for item in value)


def invoke(func, req, params, body=None):
    """Call one controller method; returns (code, body, headers)."""
    if getattr(func, 'removed_in', None):
        raise webob.exc.HTTPGone()
    if not _in_range(req, func):
        raise webob.exc.HTTPNotFound(
            explanation='The resource could not be found.')
    _check_unknown_query(req, func)
    if req.method in ('POST', 'PUT'):
        result = func(req, body=body, **params)
    else:
        result = func(req, **params)
    code = getattr(func, 'wsgi_code', 200)
    headers = {}
    if isinstance(result, ResponseObject):
        code = result.code or code
        headers = result.headers
        result = result.body
    return code, result, headers


# From 2.102 every API rejects query parameters it does not know; methods
# with query parameters declare them with validation.query_schema.
STRICT_QUERY_VERSION = '2.102'


def _check_unknown_query(req, func):
    if getattr(func, '_query_schemas', None) or not req.GET:
        return
    if not microversion.is_supported(req, STRICT_QUERY_VERSION):
        return
    unexpected = ', '.join("'%s'" % k for k in sorted(set(req.GET.keys())))
    raise exception.ValidationError(
        detail='Additional properties are not allowed (%s %s unexpected)'
        % (unexpected, 'was' if len(set(req.GET.keys())) == 1 else 'were'))


def build_response(code, body, headers, api_version):
    resp = webob.Response(status=code)
    if body is not None:
        resp.content_type = 'application/json'
        resp.charset = 'UTF-8'
        resp.body = jsonutils.dump_as_bytes(body)
    else:
        resp.content_type = None
        resp.body = b''
    for key, value in headers.items():
        resp.headers[key] = str(value)
    if api_version is not None:
        for key, value in microversion.response_headers(api_version):
            resp.headers[key] = value
    return resp
