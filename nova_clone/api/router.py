"""Request dispatch: the explicit route table behind the pecan root.

A route is a path template (``/servers/{server_id}``) and the controller
methods serving its HTTP methods.  Every route answers both at
``/v2.1/...`` and ``/v2.1/{project_id}/...``.
"""

import re

from oslo_log import log as logging
import webob.exc

from nova_clone.api import faults
from nova_clone.api import microversion
from nova_clone.api import resource
from nova_clone.api.views import versions as versions_view

LOG = logging.getLogger(__name__)

API_PREFIX = '/v2.1'
_PROJECT_RE = re.compile(r'^[0-9a-f\-]+$')
_PARAM_RE = re.compile(r'{(\w+)}')


class Route(object):

    def __init__(self, template, methods):
        self.template = template
        pattern = _PARAM_RE.sub(lambda m: '(?P<%s>[^/]+)' % m.group(1),
                                template)
        self.regex = re.compile('^%s$' % pattern)
        self.methods = methods

    def match(self, path):
        found = self.regex.match(path)
        return None if found is None else found.groupdict()


class Router(object):

    def __init__(self, routes):
        self.routes = [Route(t, m) for t, m in routes]

    def find(self, path):
        for route in self.routes:
            params = route.match(path)
            if params is not None:
                return route, params
        return None, None


def _not_found():
    return webob.exc.HTTPNotFound(
        explanation='The resource could not be found.')


def serve_versions(req):
    """The unauthenticated version documents; None for any other path."""
    path = req.path_info.rstrip('/')
    if path == '':
        return resource.build_response(200, versions_view.version_list(req),
                                       {}, None)
    if path == '/v2':
        return resource.build_response(
            200, versions_view.version_show(req, 'v2.0'), {}, None)
    if path == API_PREFIX:
        try:
            version = microversion.parse_headers(req.headers)
        except Exception as exc:
            return faults.from_exception(exc)
        return resource.build_response(
            200, versions_view.version_show(req, 'v2.1'), {}, version)
    return None


def is_version_path(path):
    return path.rstrip('/') in ('', '/v2', API_PREFIX)


def dispatch(router, req):
    """Serve one API request; always returns a webob Response."""
    version = None
    try:
        doc = serve_versions(req)
        if doc is not None:
            return doc
        path = req.path_info
        if not path.startswith(API_PREFIX + '/'):
            raise _not_found()
        version = microversion.parse_headers(req.headers)
        req.environ[microversion.ENVIRON_KEY] = version
        # No slash is stripped: /os-volumes/ is no route (404), as in Nova,
        # whose routes match paths exactly.
        rest = path[len(API_PREFIX):]
        prefix = API_PREFIX
        segments = rest.split('/')
        if len(segments) > 2 and _PROJECT_RE.match(segments[1]):
            project_id = segments[1]
            rest = '/' + '/'.join(segments[2:])
            prefix = '%s/%s' % (API_PREFIX, project_id)
            _check_project(req, project_id)
        req.environ['nova.url_prefix'] = prefix
        route, params = router.find(rest)
        if route is None:
            raise _not_found()
        func = route.methods.get(req.method)
        if func is None and req.method == 'HEAD':
            func = route.methods.get('GET')
        if func is None:
            # Nova's routes carry their method: another method matches no
            # route at all, so 404 rather than 405.
            raise _not_found()
        body = None
        if req.method in ('POST', 'PUT'):
            body = resource.parse_body(req)
        code, result, headers = resource.invoke(func, req, params, body)
        resp = resource.build_response(code, result, headers, version)
        # An action's 200 is its handler's declared code (evacuate from
        # 2.14 answers 200 with no body).
        if result is None and code == 200 and (
                getattr(func, 'wsgi_code', None) == 200 or
                isinstance(func, resource.Actions)):
            resp.empty_200 = True
        return resp
    except Exception as exc:  # noqa - every error becomes Nova's fault
        return faults.from_exception(exc, version)


def _check_project(req, project_id):
    context = req.environ.get('nova.context')
    if context is not None and context.project_id != project_id:
        raise webob.exc.HTTPBadRequest(
            explanation="Malformed request URL: URL's project_id '%s' "
                        "doesn't match Context's project_id '%s'"
                        % (project_id, context.project_id))
