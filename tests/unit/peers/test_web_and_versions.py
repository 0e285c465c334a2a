"""Routing, error bodies and Cinder's microversion header."""

import webob

from nova_clone.peers import cinder
from nova_clone.peers import web


class _App(web.PeerApp):
    def __init__(self):
        super().__init__()
        self.route('GET', '/things/{thing_id}', self.show)

    def show(self, req, thing_id):
        if thing_id == 'missing':
            raise web.not_found('Thing %s could not be found.' % thing_id)
        return web.json_response({'id': thing_id})


def test_router_matches_and_reports_405_and_404():
    app = _App()
    assert webob.Request.blank('/things/a').get_response(app).json == {
        'id': 'a'}
    resp = webob.Request.blank('/things/a', method='DELETE').get_response(
        app)
    assert resp.status_int == 405 and resp.headers['Allow'] == 'GET'
    assert webob.Request.blank('/nothing').get_response(app).status_int \
        == 404
    resp = webob.Request.blank('/things/missing').get_response(app)
    assert resp.status_int == 404
    assert resp.json['error']['message'] == 'Thing missing could not be ' \
        'found.'


def test_cinder_microversion_header_parsing():
    parse = cinder.CinderApp._requested_version
    assert parse({}) == (3, 0)
    assert parse({'HTTP_OPENSTACK_API_VERSION': 'volume 3.44'}) == (3, 44)
    assert parse({'HTTP_OPENSTACK_API_VERSION': 'compute 2.9, volume 3.5'}
                 ) == (3, 5)
    assert parse({'HTTP_OPENSTACK_API_VERSION': 'volume latest'}) == (3, 70)
    assert parse({'HTTP_OPENSTACK_API_VERSION': 'volume 3.71'}).status \
        == 406
    assert parse({'HTTP_OPENSTACK_API_VERSION': 'volume x'}).status == 400


def test_cinder_error_bodies_use_cinder_keys():
    app = cinder.CinderApp.__new__(cinder.CinderApp)
    assert app.format_error(web.not_found('gone')) == {
        'itemNotFound': {'code': 404, 'message': 'gone'}}
    assert app.format_error(web.bad_request('bad')) == {
        'badRequest': {'code': 400, 'message': 'bad'}}


# -- the token memo in front of auth_token ------------------------------------

class _Identity(web.PeerApp):
    def __init__(self):
        super().__init__()
        self.route('GET', '/who', self.who)

    def who(self, req):
        caller = req.caller
        return web.json_response({
            'project': caller.project_id, 'roles': caller.roles,
            'status': req.headers.get('X-Identity-Status'),
            'service_roles': req.headers.get('X-Service-Roles'),
            'info': req.environ.get('keystone.token_info')})


class _FakeAuthToken:
    """Accepts tokens 'good-*' as auth_token would, counting its calls."""

    def __init__(self, memo, token_body=None, expires_in=3600):
        self.memo = memo
        self.calls = 0
        self.token_body = token_body or {}
        self.expires_in = expires_in

    def __call__(self, environ, start_response):
        import datetime
        import types
        self.calls += 1
        for key in web._AUTH_KEYS:
            environ.pop(key, None)
        token = environ.get('HTTP_X_AUTH_TOKEN', '')
        service = environ.get('HTTP_X_SERVICE_TOKEN')
        ok = token.startswith('good-')
        environ['HTTP_X_IDENTITY_STATUS'] = 'Confirmed' if ok else 'Invalid'
        if not ok:
            return webob.Response(status=401)(environ, start_response)
        environ['HTTP_X_PROJECT_ID'] = token[5:]
        environ['HTTP_X_ROLES'] = 'member'
        expires = datetime.datetime.now(datetime.timezone.utc) + \
            datetime.timedelta(seconds=self.expires_in)
        user = types.SimpleNamespace(expires=expires)
        plugin = types.SimpleNamespace(user=user, service=None)
        if service is not None:
            environ['HTTP_X_SERVICE_IDENTITY_STATUS'] = 'Confirmed'
            environ['HTTP_X_SERVICE_ROLES'] = 'service'
            plugin.service = types.SimpleNamespace(expires=expires)
        environ['keystone.token_auth'] = plugin
        environ['keystone.token_info'] = {'token': dict(self.token_body)}
        return self.memo.behind_auth_token(environ, start_response)


def _memo(**kwargs):
    memo = web._TokenMemo(_Identity(), 30)
    memo.protected = _FakeAuthToken(memo, **kwargs)
    return memo


def _who(memo, token, service=None, **headers):
    req = webob.Request.blank('/who')
    req.headers['X-Auth-Token'] = token
    if service:
        req.headers['X-Service-Token'] = service
    req.headers.update(headers)
    return req.get_response(memo)


def test_memo_answers_like_auth_token_and_strips_forged_headers():
    memo = _memo()
    first = _who(memo, 'good-p1', 'good-svc')
    assert memo.protected.calls == 1
    forged = {'X-Roles': 'admin', 'X-Project-Id': 'other',
              'X-Identity-Status': 'Confirmed', 'X-Service-Roles': 'admin'}
    again = _who(memo, 'good-p1', 'good-svc', **forged)
    assert memo.protected.calls == 1
    assert again.json == first.json == {
        'project': 'p1', 'roles': ['member'], 'status': 'Confirmed',
        'service_roles': 'service', 'info': {'token': {}}}
    # Another pair, or no service token, is another question.
    assert _who(memo, 'good-p1').json['service_roles'] is None
    assert _who(memo, 'good-p2', 'good-svc').json['project'] == 'p2'
    assert memo.protected.calls == 3
    # Forged headers with no token at all still meet auth_token.
    req = webob.Request.blank('/who', headers=forged)
    assert req.get_response(memo).status_int == 401
    assert memo.protected.calls == 4


def test_memo_never_keeps_refused_expired_or_request_bound_tokens():
    memo = _memo()
    for _ in range(2):
        assert _who(memo, 'bad-p1').status_int == 401
    assert memo.protected.calls == 2
    for body in ({'bind': {'kerberos': 'someone'}},
                 {'application_credential': {'id': 'a', 'access_rules': []}}):
        memo = _memo(token_body=body)
        for _ in range(2):
            assert _who(memo, 'good-p1').status_int == 200
        assert memo.protected.calls == 2
    memo = _memo(expires_in=-1)
    for _ in range(2):
        _who(memo, 'good-p1')
    assert memo.protected.calls == 2


def test_memo_entries_last_their_ttl():
    memo = _memo()
    _who(memo, 'good-p1')
    until, values = memo._known[('good-p1', None)]
    memo._known[('good-p1', None)] = (until - 31, values)
    _who(memo, 'good-p1')
    assert memo.protected.calls == 2
