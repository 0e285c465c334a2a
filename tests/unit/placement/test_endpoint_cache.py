"""The report client looks Placement up in the catalog once per token."""

import json

from keystoneauth1 import adapter as ks_adapter
from keystoneauth1 import plugin
from keystoneauth1 import session as ks_session
import requests
from requests import adapters as rq_adapters

from nova_clone.placement import client

URL = 'http://placement.example/placement'


class _Auth(plugin.BaseAuthPlugin):
    """A token whose catalog names Placement at ``url``."""

    def __init__(self, url=URL):
        super().__init__()
        self.url = url
        self.auth_ref = None
        self.lookups = 0

    def get_token(self, session, **kwargs):
        if self.auth_ref is None:
            self.auth_ref = object()
        return 'tok'

    def get_endpoint(self, session, **kwargs):
        self.get_token(session)
        self.lookups += 1
        return self.url

    def invalidate(self):
        self.auth_ref = None
        return True


class _Transport(rq_adapters.BaseAdapter):
    """Canned answers by (method, url); records what was sent."""

    def __init__(self):
        super().__init__()
        self.answers = {}
        self.sent = []

    def send(self, request, **kwargs):
        self.sent.append(request)
        status, body = self.answers[(request.method, request.url)]
        resp = requests.Response()
        resp.status_code = status
        resp._content = json.dumps(body).encode() if body is not None \
            else b''
        resp.headers['Content-Type'] = 'application/json'
        resp.request = request
        resp.url = request.url
        return resp

    def close(self):
        pass


def _client(auth, **adapter_kwargs):
    transport = _Transport()
    http = requests.Session()
    http.mount('http://', transport)
    sess = ks_session.Session(auth=auth, session=http)
    return transport, client.SchedulerReportClient(
        adapter=ks_adapter.Adapter(sess, service_type='placement',
                                   raise_exc=False, **adapter_kwargs))


def test_one_catalog_lookup_per_token():
    auth = _Auth()
    http, rc = _client(auth)
    http.answers[('GET', URL + '/allocations/c1')] = (
        200, {'allocations': {}})
    http.answers[('DELETE', URL + '/allocations/c1')] = (204, None)
    for _ in range(3):
        assert rc.get_allocations_for_consumer(None, 'c1') == {}
    rc.delete_allocation_for_instance(None, 'c1')
    assert auth.lookups == 1
    # Requests still carry the token and the microversion.
    last = http.sent[-1]
    assert last.headers['X-Auth-Token'] == 'tok'
    assert last.headers['OpenStack-API-Version'] == 'placement 1.0'
    assert http.sent[0].headers['OpenStack-API-Version'] == \
        'placement %s' % client.CONSUMER_GENERATION_VERSION

    # A new token may come with another catalog: looked up again.
    auth.invalidate()
    auth.url = URL + '2'
    http.answers[('GET', URL + '2/allocations/c1')] = (
        200, {'allocations': {'rp': {}}})
    assert rc.get_allocations_for_consumer(None, 'c1') == {'rp': {}}
    assert auth.lookups == 2


def test_a_configured_endpoint_is_used_as_is():
    auth = _Auth()
    http, rc = _client(auth, endpoint_override='http://override/pl')
    http.answers[('GET', 'http://override/pl/allocations/c1')] = (
        200, {'allocations': {}})
    assert rc.get_allocations_for_consumer(None, 'c1') == {}
    assert auth.lookups == 0
