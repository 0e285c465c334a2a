"""How the compute API's Neutron client sizes a boot by the port quota.

A scripted Neutron answers the client's calls, so each test shows which
calls a boot makes: with the ``quota_details`` extension one call reads
limit and usage; without it the client falls back to the quota and a
listing of the project's ports.
"""

import types

import pytest

from nova_clone import exception
from nova_clone.network import neutron

NET = 'b5a1c7e2-0000-4000-8000-000000000001'
PROJECT = 'p1'


class ScriptedNeutron:
    """A NeutronCall stand-in: answers from a table, records each call."""

    def __init__(self, extensions=('quota_details',), limit=10, used=0,
                 reserved=0):
        self.extensions = list(extensions)
        self.limit, self.used, self.reserved = limit, used, reserved
        self.calls = []

    def __call__(self, method, url, expected=None, params=None, **kw):
        self.calls.append((method, url))
        if url == '/v2.0/extensions':
            return {'extensions': [{'alias': a} for a in self.extensions]}
        if url == '/v2.0/networks':
            return {'networks': [{'id': NET, 'subnets': ['s1']}]}
        if url == '/v2.0/quotas/%s/details' % PROJECT:
            return {'quota': {'port': {'limit': self.limit,
                                       'used': self.used,
                                       'reserved': self.reserved}}}
        if url == '/v2.0/quotas/%s' % PROJECT:
            return {'quota': {'port': self.limit}}
        if url == '/v2.0/ports':
            assert params == {'tenant_id': PROJECT, 'fields': 'id'}
            return {'ports': [{'id': str(n)} for n in range(self.used)]}
        raise AssertionError('unexpected call %s %s' % (method, url))


def _api(fake):
    api = neutron.API()
    api._client = lambda context, admin=False: fake
    return api


def _validate(api, count=1):
    ctx = types.SimpleNamespace(project_id=PROJECT, is_admin=False)
    return api.validate_networks(ctx, [{'uuid': NET}], count)


def test_details_extension_reads_usage_in_one_call_and_is_remembered():
    fake = ScriptedNeutron(limit=10, used=4)
    api = _api(fake)
    assert _validate(api, 3) == 3
    assert _validate(api, 3) == 3
    quota_and_ports = [c for c in fake.calls if c[1] != '/v2.0/networks']
    assert quota_and_ports == [
        ('GET', '/v2.0/extensions'),
        ('GET', '/v2.0/quotas/p1/details'),
        ('GET', '/v2.0/quotas/p1/details')]


def test_without_details_extension_falls_back_to_listing_ports():
    fake = ScriptedNeutron(extensions=('binding',), limit=10, used=9)
    api = _api(fake)
    assert _validate(api, 3) == 1
    assert [c[1] for c in fake.calls if c[1] != '/v2.0/networks'] == [
        '/v2.0/extensions', '/v2.0/quotas/p1', '/v2.0/ports']


@pytest.mark.parametrize('extensions', [('quota_details',), ()])
def test_exhausted_ports_raise_port_limit_exceeded(extensions):
    api = _api(ScriptedNeutron(extensions=extensions, limit=5, used=5))
    with pytest.raises(exception.PortLimitExceeded):
        _validate(api)


def test_reserved_ports_count_as_used():
    api = _api(ScriptedNeutron(limit=5, used=3, reserved=2))
    with pytest.raises(exception.PortLimitExceeded):
        _validate(api)


@pytest.mark.parametrize('extensions', [('quota_details',), ()])
def test_unlimited_ports_allow_every_server(extensions):
    fake = ScriptedNeutron(extensions=extensions, limit=-1, used=1000)
    assert _validate(_api(fake), 7) == 7
    assert ('GET', '/v2.0/ports') not in fake.calls


def test_extensions_are_read_again_after_their_ttl(monkeypatch):
    fake = ScriptedNeutron()
    api = _api(fake)
    clock = [1000.0]
    monkeypatch.setattr(neutron.time, 'monotonic', lambda: clock[0])
    _validate(api)
    clock[0] += neutron.EXTENSIONS_TTL - 1
    _validate(api)
    clock[0] += 2
    _validate(api)
    assert fake.calls.count(('GET', '/v2.0/extensions')) == 2


def test_quota_errors_let_the_boot_through():
    fake = ScriptedNeutron()

    def failing(method, url, **kw):
        if '/quotas/' in url:
            raise neutron.NeutronClientError(500, 'Internal', 'boom')
        return fake(method, url, **kw)
    api = neutron.API()
    api._client = lambda context, admin=False: failing
    assert _validate(api, 2) == 2
