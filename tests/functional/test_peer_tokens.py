"""The embedded cloud's peers refuse a request without a valid token, as
the real services behind keystonemiddleware do, and its identity
stand-in checks passwords."""

import pytest
import requests

# A path of each service that needs a token (its version document does
# not).
PROTECTED = {
    'placement': '/resource_providers',
    'image': '/v2/images',
    'network': '/v2.0/networks',
    'volume_base': '/v3/6f70656e737461636b20342065766572/volumes',
    'compute': '/servers',
}


@pytest.mark.parametrize('token', [None, 'not-a-token',
                                   'gAAAAABfakefakefakefakefake'])
@pytest.mark.parametrize('service', sorted(PROTECTED))
def test_peer_refuses_without_a_valid_token(cloud, service, token):
    headers = {} if token is None else {'X-Auth-Token': token}
    url = cloud.urls[service].rstrip('/') + PROTECTED[service]
    resp = requests.get(url, headers=headers, timeout=30)
    assert resp.status_code == 401, (service, resp.text[:200])
    assert 'Traceback' not in resp.text


def test_identity_checks_the_password(cloud):
    body = {'auth': {'identity': {'methods': ['password'], 'password': {
        'user': {'name': 'admin', 'domain': {'name': 'Default'},
                 'password': 'wrong'}}}}}
    url = cloud.urls['identity'].rstrip('/')
    if not url.endswith('/v3'):
        url += '/v3'
    resp = requests.post(url + '/auth/tokens', json=body, timeout=30)
    assert resp.status_code == 401
    assert 'X-Subject-Token' not in resp.headers
