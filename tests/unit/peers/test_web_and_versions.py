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
