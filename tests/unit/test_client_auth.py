"""The peers' requests session reads the proxy environment once per host
and merges settings exactly as requests does."""

import pytest
import requests

from nova_clone import client_auth


def _sessions():
    cached = requests.Session()
    cached.__class__ = client_auth._EnvProxiesOnce
    return cached, requests.Session()


@pytest.fixture(autouse=True)
def _fresh_cache(monkeypatch):
    monkeypatch.setattr(client_auth._EnvProxiesOnce, '_env_proxies', {})


@pytest.mark.parametrize('env', [
    {},
    {'HTTP_PROXY': 'http://proxy:3128', 'NO_PROXY': '127.0.0.1'},
    {'https_proxy': 'http://p:1', 'REQUESTS_CA_BUNDLE': '/ca.pem'},
])
def test_same_settings_as_requests(monkeypatch, env):
    for name in ('HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'http_proxy',
                 'https_proxy', 'no_proxy', 'REQUESTS_CA_BUNDLE',
                 'CURL_CA_BUNDLE'):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    cached, plain = _sessions()
    for url in ('http://127.0.0.1:9696/v2.0/networks', 'http://example.com/x',
                'https://example.com:8443/y', 'https://127.0.0.1/'):
        for proxies in ({}, {'no_proxy': 'example.com'}):
            for verify, cert in ((True, None), (None, None),
                                 ('/my/ca', 'c.pem'), (False, None)):
                for _ in range(2):  # the second answer comes from the cache
                    got = cached.merge_environment_settings(
                        url, dict(proxies), None, verify, cert)
                    want = plain.merge_environment_settings(
                        url, dict(proxies), None, verify, cert)
                    assert got == want


def test_environment_read_once_per_host(monkeypatch):
    calls = []
    real = client_auth.req_utils.get_environ_proxies

    def counting(url, no_proxy=None):
        calls.append(url)
        return real(url, no_proxy=no_proxy)
    monkeypatch.setattr(client_auth.req_utils, 'get_environ_proxies',
                        counting)
    cached, _plain = _sessions()
    for path in ('/a', '/b?x=1', '/c'):
        cached.merge_environment_settings('http://h:1' + path, {}, None,
                                          True, None)
    cached.merge_environment_settings('http://other:1/', {}, None, True,
                                      None)
    assert len(calls) == 2


def test_untrusted_environment_is_left_to_requests():
    cached, plain = _sessions()
    cached.trust_env = plain.trust_env = False
    assert cached.merge_environment_settings(
        'http://h/', {}, None, True, None) == \
        plain.merge_environment_settings('http://h/', {}, None, True, None)


def test_netrc_is_read_once_per_host_and_still_applies(monkeypatch,
                                                        tmp_path):
    monkeypatch.setattr(client_auth._EnvProxiesOnce, '_netrc', {})
    netrc = tmp_path / 'netrc'
    netrc.write_text('machine h login alice password secret\n')
    netrc.chmod(0o600)
    monkeypatch.setenv('NETRC', str(netrc))
    cached, plain = _sessions()
    lookups = []
    real = client_auth.req_utils.get_netrc_auth
    monkeypatch.setattr(client_auth.req_utils, 'get_netrc_auth',
                        lambda url: lookups.append(url) or real(url))
    for url in ('http://h/a', 'http://h/b', 'http://other/'):
        got = cached.prepare_request(requests.Request('GET', url))
        want = plain.prepare_request(requests.Request('GET', url))
        assert got.headers.get('Authorization') == \
            want.headers.get('Authorization')
    assert cached.prepare_request(requests.Request(
        'GET', 'http://h/')).headers['Authorization'].startswith('Basic ')
    assert 'Authorization' not in cached.prepare_request(
        requests.Request('GET', 'http://other/x')).headers
    assert lookups == ['http://h/a', 'http://other/']
