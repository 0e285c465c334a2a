"""noauth2 and the context middleware."""

import json
import uuid

from oslo_middleware import request_id
import webob
import webob.dec

from nova_clone.api import auth


class _Capture(object):
    def __init__(self):
        self.context = None

    @webob.dec.wsgify
    def __call__(self, req):
        self.context = req.environ.get(auth.CONTEXT_KEY)
        return webob.Response(status=200)


def _stack():
    capture = _Capture()
    app = request_id.RequestId(auth.NoAuthMiddleware(
        auth.ContextMiddleware(capture)))
    return app, capture


def _get(app, headers):
    req = webob.Request.blank('/v2.1/servers', headers=headers)
    return req.get_response(app)


def test_noauth_admin_user_gets_admin_role():
    app, capture = _stack()
    assert _get(app, {'X-Auth-Token': 'admin:p1'}).status_int == 200
    ctx = capture.context
    assert ctx.user_id == 'admin' and ctx.project_id == 'p1'
    assert 'admin' in ctx.roles and ctx.is_admin


def test_noauth_other_users_are_members():
    app, capture = _stack()
    _get(app, {'X-Auth-Token': 'alice:p2'})
    assert sorted(capture.context.roles) == ['member', 'reader']
    assert not capture.context.is_admin


def test_noauth_token_without_project_uses_user():
    app, capture = _stack()
    _get(app, {'X-Auth-Token': 'bob'})
    assert capture.context.project_id == 'bob'


def test_explicit_roles_header_wins():
    app, capture = _stack()
    _get(app, {'X-Auth-Token': 'svc:p', 'X-Roles': 'service'})
    assert capture.context.roles == ['service']


def test_global_request_id_and_local_id():
    app, capture = _stack()
    incoming = 'req-%s' % uuid.uuid4()
    resp = _get(app, {'X-Auth-Token': 'u:p',
                      'X-Openstack-Request-Id': incoming})
    ctx = capture.context
    assert ctx.global_request_id == incoming
    assert ctx.request_id == resp.headers['X-Openstack-Request-Id']
    assert ctx.request_id != incoming


def test_malformed_global_request_id_is_ignored():
    app, capture = _stack()
    _get(app, {'X-Auth-Token': 'u:p', 'X-Openstack-Request-Id': 'nope'})
    assert capture.context.global_request_id is None


def test_keystone_headers_build_the_context():
    capture = _Capture()
    app = auth.ContextMiddleware(capture)
    image = {'type': 'image', 'endpoints': []}
    catalog = [{'type': 'identity', 'endpoints': []}, image,
               {'type': 'compute', 'endpoints': []}]
    _get(app, {'X-User-Id': 'u1', 'X-Project-Id': 'p1',
               'X-Roles': 'reader, member', 'X-Auth-Token': 'tok',
               'X-Service-Catalog': json.dumps(catalog)})
    ctx = capture.context
    assert (ctx.user_id, ctx.project_id) == ('u1', 'p1')
    assert ctx.roles == ['reader', 'member']
    assert ctx.auth_token == 'tok'
    # As Nova: only the services called with the user's token are kept,
    # so RPC messages do not carry the whole catalog.
    assert ctx.service_catalog == [image]


def test_missing_identity_is_401_json():
    app = auth.ContextMiddleware(_Capture())
    resp = _get(app, {})
    assert resp.status_int == 401
    assert json.loads(resp.body) == {'unauthorized': {
        'code': 401, 'message': 'Unauthorized'}}


def test_bad_service_catalog_is_a_clean_error():
    app = auth.ContextMiddleware(_Capture())
    resp = _get(app, {'X-User-Id': 'u', 'X-Project-Id': 'p',
                      'X-Service-Catalog': '{not json'})
    assert resp.status_int == 500
    assert 'computeFault' in json.loads(resp.body)


def test_forwarded_for_trusted_only_when_configured():
    from nova_clone.conf import CONF
    capture = _Capture()
    app = auth.ContextMiddleware(capture)
    headers = {'X-User-Id': 'u', 'X-Project-Id': 'p',
               'X-Forwarded-For': '203.0.113.9, 10.0.0.1'}
    req = webob.Request.blank('/v2.1/servers', headers=headers,
                              remote_addr='10.0.0.1')
    req.get_response(app)
    assert capture.context.remote_address == '10.0.0.1'
    CONF.set_override('use_forwarded_for', True, group='api')
    try:
        req = webob.Request.blank('/v2.1/servers', headers=headers,
                                  remote_addr='10.0.0.1')
        req.get_response(app)
        assert capture.context.remote_address == '203.0.113.9'
    finally:
        CONF.clear_override('use_forwarded_for', group='api')
