"""Version documents, microversion headers, routing errors, request ids,
and Nova's fault bodies for requests that cannot be served."""

import uuid

import pytest

from tests.functional.api import samples


def _version(reply):
    return reply.headers.get('OpenStack-API-Version')


def test_root_version_list(demo):
    reply = demo.get('/', prefix=False)
    assert reply.status == 200
    ids = [v['id'] for v in reply.body['versions']]
    assert ids == ['v2.0', 'v2.1']
    current = reply.body['versions'][1]
    assert current['version'] == '2.104'
    assert current['min_version'] == '2.1'
    assert current['status'] == 'CURRENT'
    if samples.available():
        samples.assert_matches('versions/versions-get-resp.json',
                               reply.body)


@pytest.mark.parametrize('path,sample', [
    ('/v2.1', 'versions/v21-version-get-resp.json'),
    ('/v2.1/', 'versions/v21-version-get-resp.json'),
    ('/v2', 'versions/v2-version-get-resp.json'),
])
def test_version_documents(demo, path, sample):
    reply = demo.get(path, prefix=False)
    assert reply.status == 200
    if samples.available():
        samples.assert_matches(sample, reply.body)


def test_version_documents_need_no_token(bed):
    import webob
    resp = webob.Request.blank('/v2.1/').get_response(bed.app)
    assert resp.status_int == 200


def test_microversion_headers_echoed(demo):
    reply = demo.get('/extensions', version='2.53')
    assert reply.status == 200
    assert _version(reply) == 'compute 2.53'
    assert reply.headers['X-OpenStack-Nova-API-Version'] == '2.53'
    assert 'OpenStack-API-Version' in reply.headers['Vary']


def test_default_microversion_is_21(demo):
    reply = demo.get('/extensions')
    assert _version(reply) == 'compute 2.1'


def test_latest(demo):
    reply = demo.get('/extensions', version='latest')
    assert _version(reply) == 'compute 2.104'


def test_legacy_header_accepted(demo):
    reply = demo.get('/extensions',
                     headers={'X-OpenStack-Nova-API-Version': '2.30'})
    assert _version(reply) == 'compute 2.30'


def test_unsupported_microversion_is_406(demo):
    reply = demo.get('/extensions', version='2.105')
    assert reply.status == 406
    assert reply.body == {'computeFault': {
        'code': 406,
        'message': 'Version 2.105 is not supported by the API. Minimum is '
                   '2.1 and maximum is 2.104.'}}


def test_malformed_microversion_is_400(demo):
    reply = demo.get('/extensions', version='2.abc')
    assert reply.status == 400
    assert 'badRequest' in reply.body


def test_unknown_route_is_json_404(demo):
    reply = demo.get('/no-such-thing')
    assert reply.status == 404
    assert reply.body == {'itemNotFound': {
        'code': 404, 'message': 'The resource could not be found.'}}


def test_unsupported_method_or_trailing_slash_is_404(demo):
    # Nova's routes match the method and the exact path (Tempest's
    # negative tests expect 404 for DELETE /images/ and GET /os-volumes/).
    for method, path in (('PATCH', '/flavors'), ('DELETE', '/images/'),
                         ('GET', '/os-simple-tenant-usage/'),
                         ('GET', '/flavors/')):
        reply = demo.request(method, path)
        assert reply.status == 404, (method, path)
        assert reply.body['itemNotFound']['code'] == 404
    assert demo.get('/flavors').status == 200


# Fixed, so that every xdist worker collects the same test ids.
FIXED_SERVER = 'a55b91ac-42a6-46dd-b7ea-c0bb499432f1'


@pytest.mark.parametrize('path', [
    '/os-agents', '/os-cells', '/os-certificates', '/os-cloudpipe',
    '/os-fixed-ips/1.2.3.4', '/os-floating-ip-dns', '/os-floating-ips-bulk',
    '/os-fping', '/os-security-group-default-rules',
    '/servers/%s/os-virtual-interfaces' % FIXED_SERVER,
    '/servers/%s/consoles' % FIXED_SERVER,
])
def test_removed_apis_are_410(demo, path):
    reply = demo.get(path, version='latest')
    assert reply.status == 410
    assert reply.body['computeFault']['code'] == 410


def test_project_in_url_must_match_token(bed):
    client = bed.client(user='demo', project='abc123')
    reply = client.request('GET', '/v2.1/abc999/flavors', prefix=False)
    assert reply.status == 400
    assert "doesn't match Context's project_id" in \
        reply.body['badRequest']['message']


def test_routes_answer_without_project_id(demo):
    reply = demo.get('/v2.1/flavors', prefix=False)
    assert reply.status == 200
    assert 'flavors' in reply.body


def test_malformed_json_body_is_400(admin):
    reply = admin.request('POST', '/flavors', raw='{"flavor": ')
    assert reply.status == 400
    assert reply.body['badRequest']['message'] == 'Malformed request body'


def test_unknown_action_is_400(admin):
    reply = admin.post('/flavors/1/action', {'bogusAction': {}})
    assert reply.status == 400
    assert reply.body['badRequest']['message'] == \
        'There is no such action: bogusAction'


def test_request_id_returned_and_global_id_honoured(demo):
    reply = demo.get('/extensions')
    rid = reply.headers['X-Openstack-Request-Id']
    assert rid.startswith('req-')
    assert reply.headers['X-Compute-Request-Id'] == rid
    global_id = 'req-%s' % uuid.uuid4()
    reply = demo.get('/extensions',
                     headers={'X-Openstack-Request-Id': global_id})
    # A new local id; the caller's id travels as the global request id.
    assert reply.headers['X-Openstack-Request-Id'] != global_id


def test_missing_token_with_noauth2(bed):
    import webob
    resp = webob.Request.blank('/v2.1/flavors').get_response(bed.app)
    assert resp.status_int == 204
    assert resp.headers['X-Auth-Token'] == 'admin:admin'


def test_extensions(demo):
    reply = demo.get('/extensions')
    assert reply.status == 200
    if samples.available():
        samples.assert_matches('extension-info/extensions-list-resp.json',
                               reply.body)
    reply = demo.get('/extensions/os-keypairs')
    assert reply.body['extension']['alias'] == 'os-keypairs'
    assert demo.get('/extensions/nope').status == 404


@pytest.mark.parametrize('path', [
    '/limits?bogus=1', '/flavors/1?bogus=1', '/extensions?bogus=1',
    '/os-quota-sets/abc?bogus=1', '/os-availability-zone?bogus=1'])
def test_unknown_query_parameters_rejected_from_2102(demo, path):
    reply = demo.get(path, version='2.102')
    assert reply.status == 400
    assert 'Additional properties are not allowed' in \
        reply.body['badRequest']['message']
    older = demo.get(path, version='2.101')
    assert older.status != 400


def test_known_query_parameters_still_accepted_at_2102(demo):
    assert demo.get('/limits?tenant_id=%s' % demo.project,
                    version='2.102').status == 200
    assert demo.get('/os-quota-sets/%s?user_id=x' % demo.project,
                    version='2.102').status == 200


@pytest.mark.parametrize('accept', ['application/json', 'text/html',
                                    'application/xml', '*/*'])
def test_any_accept_header_gets_json(demo, accept):
    reply = demo.get('/flavors', headers={'Accept': accept})
    assert reply.status == 200
    assert reply.body == {'flavors': reply.body['flavors']}
