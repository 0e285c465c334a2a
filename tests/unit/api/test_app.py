"""The pecan application answers exactly as stock pecan would with the
same root: its short-cut dispatch only skips pecan's lookup work."""

import pecan
import pytest
import webob

from nova_clone.api import app
from nova_clone.api import resource
from nova_clone.api import root
from nova_clone.api import router


def _show(req, thing_id):
    return {'thing': {'id': thing_id, 'q': req.GET.get('q')}}


def _nothing(req):
    return None


@resource.response(200)
def _declared_empty(req):
    return None


@resource.response(202)
def _create(req, body):
    return {'created': body}


def _fails(req):
    raise ValueError('boom')


ROUTES = [
    ('/things/{thing_id}', {'GET': _show}),
    ('/nothing', {'GET': _nothing, 'POST': _nothing}),
    ('/declared', {'DELETE': _declared_empty}),
    ('/things', {'POST': _create}),
    ('/fails', {'GET': _fails}),
]


def _apps():
    table = router.Router(ROUTES)
    kw = dict(guess_content_type_from_ext=False, force_canonical=False,
              use_context_locals=True, request_cls=app._Request)
    return (pecan.Pecan(root.RootController(table), **kw),
            app._Pecan(root.RootController(table), **kw))


def _answer(application, method, path, body=None, query=None,
            headers=None):
    req = webob.Request.blank(path, method=method, headers=headers or {})
    if query is not None:
        req.environ['QUERY_STRING'] = query
    if body is not None:
        req.body = body
        req.content_type = 'application/json'
    resp = req.get_response(application)
    return (resp.status, sorted(resp.headerlist), resp.body)


@pytest.mark.parametrize('method,path,body,query,headers', [
    ('GET', '/v2.1/things/7', None, 'q=1', None),
    ('HEAD', '/v2.1/things/7', None, None, None),
    ('GET', '/v2.1/things/7/', None, None, None),
    ('GET', '/v2.1/things', None, None, None),
    ('PUT', '/v2.1/things/7', b'{}', None, None),
    ('POST', '/v2.1/things', b'{"a": 1}', None, None),
    ('POST', '/v2.1/things', b'{"a": ', None, None),
    ('GET', '/v2.1/nothing', None, None, None),
    ('POST', '/v2.1/nothing', b'', None, None),
    ('GET', '/v2.1/fails', None, None, None),
    ('GET', '/v2.1/nope', None, None, None),
    ('GET', '/nope.json', None, None, None),
    ('GET', '/', None, None, None),
    ('GET', '/v2.1', None, None, {'OpenStack-API-Version': 'compute 2.5'}),
    ('GET', '/v2.1/things/7', None, None,
     {'Accept': 'application/xml', 'OpenStack-API-Version': 'compute 9.0'}),
    ('GET', '/v2.1/things/7', None, 'q=%ff', None),
])
def test_short_cut_answers_like_pecan(method, path, body, query, headers):
    stock, short = _apps()
    assert _answer(short, method, path, body, query, headers) == _answer(
        stock, method, path, body, query, headers)


def test_an_empty_200_is_still_a_204():
    _stock, short = _apps()
    status, headers, body = _answer(short, 'GET', '/v2.1/nothing')
    assert status == '204 No Content' and body == b''
    assert 'Content-Type' not in dict(headers)


def test_a_declared_empty_200_stays_a_200():
    _stock, short = _apps()
    status, headers, body = _answer(short, 'DELETE', '/v2.1/declared')
    assert status == '200 OK' and body == b''
    assert 'Content-Type' not in dict(headers)
