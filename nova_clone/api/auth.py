"""Authentication middleware: noauth2 for tests and the embedded mode,
keystonemiddleware's auth_token for real deployments, and the context
middleware that turns the identity headers into a RequestContext."""

import time

from oslo_log import log as logging
from oslo_serialization import jsonutils
import webob.dec
import webob.exc

from nova_clone.api import faults
from nova_clone.api import router
from nova_clone.conf import CONF
from nova_clone import context

LOG = logging.getLogger(__name__)

CONTEXT_KEY = 'nova.context'


class NoAuthMiddleware(object):
    """Trusts a token of the form ``user:project`` (Nova's noauth2).

    The user named ``admin`` gets the admin role; X-Roles, when sent,
    overrides the roles.  Never expose this to a real network.
    """

    def __init__(self, application):
        self.application = application

    @webob.dec.wsgify
    def __call__(self, req):
        if router.is_version_path(req.path_info):
            return req.get_response(self.application)
        token = req.headers.get('X-Auth-Token')
        if not token:
            user_id = req.headers.get('X-Auth-User', 'admin')
            project_id = req.headers.get('X-Auth-Project-Id', 'admin')
            resp = webob.Response(status=204, content_type='text/plain')
            resp.headers['X-Auth-Token'] = '%s:%s' % (user_id, project_id)
            resp.headers['X-Server-Management-Url'] = (
                '%s/v2.1/%s' % (req.host_url, project_id))
            return resp
        user_id, _sep, project_id = token.partition(':')
        project_id = project_id or user_id
        roles = req.headers.get('X-Roles')
        if roles:
            roles = [r.strip() for r in roles.split(',') if r.strip()]
        elif user_id == 'admin':
            roles = ['admin', 'member', 'reader']
        else:
            roles = ['member', 'reader']
        req.environ['HTTP_X_USER_ID'] = user_id
        req.environ['HTTP_X_PROJECT_ID'] = project_id
        req.environ['HTTP_X_ROLES'] = ','.join(roles)
        return req.get_response(self.application)


class ContextMiddleware(object):
    """Builds nova_clone.context.RequestContext from the auth headers."""

    def __init__(self, application):
        self.application = application

    @webob.dec.wsgify
    def __call__(self, req):
        if router.is_version_path(req.path_info):
            return req.get_response(self.application)
        user_id = req.headers.get('X-User-Id') or req.headers.get('X-User')
        if not user_id:
            LOG.debug('Neither X-User-Id nor X-User found in request')
            return faults.fault_response(401, 'Unauthorized')
        roles = [r.strip() for r in
                 req.headers.get('X-Roles', '').split(',') if r.strip()]
        catalog = []
        raw_catalog = req.headers.get('X-Service-Catalog')
        if raw_catalog:
            try:
                catalog = jsonutils.loads(raw_catalog)
            except ValueError:
                return faults.fault_response(
                    500, 'Invalid service catalog json.')
        remote = req.remote_addr
        forwarded = req.headers.get('X-Forwarded-For')
        if forwarded and CONF.api.use_forwarded_for:
            remote = forwarded.split(',')[0].strip()
        ctx = context.RequestContext(
            user_id=user_id,
            project_id=req.headers.get('X-Project-Id') or
            req.headers.get('X-Tenant-Id'),
            user_name=req.headers.get('X-User-Name'),
            project_name=req.headers.get('X-Project-Name'),
            roles=roles,
            auth_token=req.headers.get('X-Auth-Token'),
            remote_address=remote,
            service_catalog=catalog,
            request_id=req.environ.get('openstack.request_id'),
            global_request_id=req.environ.get(
                'openstack.global_request_id'),
            user_auth_plugin=req.environ.get('keystone.token_auth'),
            system_scope=req.headers.get('Openstack-System-Scope'),
        )
        # Put the context in oslo.log's thread-local store so every log
        # line of this request carries its request id.
        ctx.update_store()
        req.environ[CONTEXT_KEY] = ctx
        start = time.monotonic()
        resp = req.get_response(self.application)
        _log_request(req, resp, ctx, time.monotonic() - start)
        return resp


def _log_request(req, resp, ctx, elapsed):
    """One INFO line per request, carrying the request's ids (Nova's
    request_log)."""
    version = resp.headers.get('X-OpenStack-Nova-API-Version', '-')
    url = req.path_qs
    LOG.info('%(remote)s "%(method)s %(url)s" status: %(status)s len: '
             '%(len)s microversion: %(version)s time: %(time).6f',
             {'remote': req.remote_addr, 'method': req.method, 'url': url,
              'status': resp.status_int, 'len': resp.content_length or 0,
              'version': version, 'time': elapsed}, context=ctx)


def keystone_auth(application, conf):
    """Wrap ``application`` with keystonemiddleware's auth_token."""
    from keystonemiddleware import auth_token

    def pass_versions(app):
        protected = auth_token.AuthProtocol(app, {'oslo_config_config': conf})

        @webob.dec.wsgify
        def middleware(req):
            if router.is_version_path(req.path_info):
                return req.get_response(app)
            return req.get_response(protected)
        return middleware
    return pass_versions(application)


def get_context(req):
    ctx = req.environ.get(CONTEXT_KEY)
    if ctx is None:
        raise webob.exc.HTTPUnauthorized()
    return ctx
