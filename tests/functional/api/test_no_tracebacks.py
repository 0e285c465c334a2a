"""Every route, every method, hostile input: a Nova 4xx fault in JSON,
never a 500 and never a traceback."""

import re

import pytest

from nova_clone.api import routes
from tests.functional.api import apifixture as af

_BODIES = [None, 'null', '[]', '"text"', '{}', '{"a": {"b": null}}',
           '{"server": []}', '{"flavor": "x"}', b'\xff\xfe', '{"x": 1e999}']
_IDS = ['1', 'nope', '00000000-0000-0000-0000-000000000000', '%00', 'a b']


def _paths():
    for template, methods in routes.ROUTES:
        for ident in _IDS:
            path = re.sub(r'{\w+}', ident, template)
            for method in methods:
                yield method, path


@pytest.fixture(scope='module')
def wired(bed):
    af.install_compute_api(bed)
    yield
    from nova_clone.api.controllers import servers
    servers.set_compute_api(None)


@pytest.mark.parametrize('version', ['2.1', 'latest'])
def test_hostile_requests_get_clean_faults(wired, bed, version):
    clients = [bed.client(), bed.client(user='admin', project='ad00')]
    failures = []
    for method, path in _paths():
        for client in clients:
            bodies = _BODIES if method in ('POST', 'PUT') else [None]
            for raw in bodies:
                reply = client.request(method, path, raw=raw,
                                       version=version)
                # The bed runs no Glance, Neutron or Cinder: their proxies
                # answer Nova's fault for a peer it cannot reach.
                unavailable = reply.status in (500, 503) and \
                    'find the' in reply.text and 'endpoint' in reply.text
                if (reply.status >= 500 and not unavailable) or \
                        'Traceback' in reply.text:
                    failures.append('%s %s %r -> %s %s' % (
                        method, path, raw, reply.status, reply.text[:200]))
                elif reply.status >= 400 and not unavailable:
                    assert reply.body and len(reply.body) == 1, (
                        method, path, reply)
                    fault = next(iter(reply.body.values()))
                    assert fault['code'] == reply.status
    assert not failures, '\n'.join(failures[:20])


def test_hostile_query_strings(wired, demo, admin):
    for path in ('/servers', '/servers/detail', '/flavors', '/flavors/detail',
                 '/os-keypairs', '/os-hypervisors', '/os-services',
                 '/limits'):
        for query in ('limit=-1', 'limit=abc', 'marker=', 'sort_key=%00',
                      'changes-since=yesterday', 'all_tenants=maybe',
                      'status=', 'minRam=big', 'is_public=perhaps',
                      'with_servers=perhaps', 'locked=maybe'):
            for client in (demo, admin):
                for version in ('2.1', '2.53', '2.73', 'latest'):
                    reply = client.get('%s?%s' % (path, query),
                                       version=version)
                    assert reply.status < 500, (path, query, version, reply)


@pytest.mark.parametrize('path', [
    '/flavors/%ff', '/servers?name=%ff', '/servers/%ff%fe',
    '/os-keypairs?limit=%ff', '/v2.1/%ff', '/%ff'])
def test_undecodable_urls_are_400(wired, demo, path):
    prefix = not path.startswith(('/v2.1', '/%'))
    reply = demo.get(path, prefix=prefix)
    assert reply.status == 400
    assert reply.body['badRequest']['code'] == 400


def test_non_json_content_type_is_415(wired, admin):
    import webob
    req = webob.Request.blank('/v2.1/flavors', method='POST')
    req.headers['X-Auth-Token'] = 'admin:admin'
    req.body = b'name=x'
    req.content_type = 'text/plain'
    resp = req.get_response(admin.app)
    assert resp.status_int == 415
    assert b'badMediaType' in resp.body


@pytest.mark.parametrize('depth', [33, 1000, 50000])
def test_deeply_nested_bodies_are_400(wired, admin, depth):
    nested = '[' * depth + ']' * depth
    for path, raw in (('/flavors', nested),
                      ('/servers', '{"server": %s}' % nested),
                      ('/os-keypairs', '{"keypair": {"name": %s}}' % nested)):
        reply = admin.request('POST', path, raw=raw)
        assert reply.status == 400, (path, reply)
        assert reply.body['badRequest']['message'].startswith(
            'Malformed request body')


def test_body_nested_a_few_levels_is_validated_as_usual(wired, admin):
    reply = admin.request('POST', '/flavors', raw='{"flavor": [[[[]]]]}')
    assert reply.status == 400
    assert "is not of type 'object'" in reply.body['badRequest']['message']


@pytest.mark.parametrize('version', ['2.1', '2.9'])
@pytest.mark.parametrize('path', [
    '/servers?locked=true&locked=false', '/servers/detail?locked=1&locked=2',
    '/os-keypairs?limit=1&limit=2', '/os-keypairs?user_id=a&user_id=b',
    '/servers?unknown=1&unknown=2'])
def test_repeated_query_parameters_unknown_to_the_version(
        wired, admin, demo, path, version):
    # Parameters a microversion does not know are dropped, repeated or not.
    for client in (admin, demo):
        reply = client.get(path, version=version)
        assert reply.status == 200, (path, version, reply)


def test_repeated_query_parameter_from_2_102_is_400(wired, demo):
    reply = demo.get('/servers?unknown=1&unknown=2', version='2.102')
    assert reply.status == 400
    assert "'unknown' was unexpected" in reply.body['badRequest']['message']


def test_lone_surrogates_are_400_and_pairs_are_kept(wired, bed, demo):
    from tests.functional.api import cellrecords
    inst = cellrecords.add_instance(bed, demo.project, demo.user)[0]
    base = '/servers/%s' % inst.uuid
    for method, path, raw in (
            ('POST', base + '/metadata', '{"metadata": {"a": "\\ud800"}}'),
            ('PUT', base + '/metadata', '{"metadata": {"a": "x\\udfff"}}'),
            ('PUT', base + '/metadata/a', '{"meta": {"a": "\\udc00"}}'),
            ('PUT', base, '{"server": {"description": "\\ud800"}}'),
            ('PUT', base + '/tags', '{"tags": ["\\ud800"]}')):
        reply = demo.request(method, path, raw=raw, version='2.26')
        assert reply.status == 400, (method, path, reply)
        assert 'surrogate' in reply.body['badRequest']['message']
    assert demo.get(base + '/metadata').body == {'metadata': {}}
    smile = demo.request('POST', base + '/metadata',
                         raw='{"metadata": {"a": "\\ud83d\\ude00"}}')
    assert smile.status == 200, smile
    assert demo.get(base + '/metadata').body == {
        'metadata': {'a': '\U0001f600'}}


@pytest.mark.parametrize('size', [114689, 200 * 1024, 50 * 1024 * 1024])
def test_bodies_over_the_limit_are_413(wired, admin, size):
    raw = b'{"flavor": "' + b'x' * (size - 14) + b'"}'
    reply = admin.request('POST', '/flavors', raw=raw)
    assert reply.status == 413
    assert reply.body == {'overLimit': {
        'code': 413, 'message': 'Request is too large. Larger than '
                                'max_request_body_size (114688).'}}


def test_body_at_the_limit_is_read(wired, admin):
    raw = b'{"flavor": "' + b'x' * (114688 - 14) + b'"}'
    reply = admin.request('POST', '/flavors', raw=raw)
    assert reply.status == 400
    assert "is not of type 'object'" in reply.body['badRequest']['message']


def test_chunked_body_over_the_limit_is_413(wired, admin):
    import io
    import webob
    req = webob.Request.blank('/v2.1/flavors', method='POST')
    req.headers['X-Auth-Token'] = 'admin:admin'
    req.content_type = 'application/json'
    req.body_file = io.BytesIO(b'{"flavor": "' + b'x' * 200000 + b'"}')
    req.content_length = None
    req.environ['wsgi.input_terminated'] = True
    resp = req.get_response(admin.app)
    assert resp.status_int == 413
    assert b'"overLimit"' in resp.body
    assert b'xxxx' not in resp.body


def test_invalid_json_is_not_echoed(wired, admin):
    raw = '{"flavor": "%s' % ('secret' * 1000)
    reply = admin.request('POST', '/flavors', raw=raw)
    assert reply.body == {'badRequest': {
        'code': 400, 'message': 'Malformed request body'}}
