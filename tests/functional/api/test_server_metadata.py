"""Concurrent /servers/{id}/metadata calls: every key a 200 promised is
stored, and the metadata quota holds under the race too."""

import threading

import pytest

from tests.functional.api import apifixture as af
from tests.functional.api import cellrecords


@pytest.fixture(scope='module')
def wired(bed):
    af.install_compute_api(bed)
    yield
    from nova_clone.api.controllers import servers
    servers.set_compute_api(None)


def _concurrently(calls):
    """Run the calls at the same moment; their replies in call order."""
    replies = [None] * len(calls)
    start = threading.Barrier(len(calls))

    def run(index, call):
        start.wait()
        replies[index] = call()

    threads = [threading.Thread(target=run, args=(i, c))
               for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return replies


def _server(bed, client):
    inst = cellrecords.add_instance(bed, client.project, client.user)[0]
    return '/servers/%s/metadata' % inst.uuid


def test_concurrent_posts_keep_every_key(wired, bed, demo):
    path = _server(bed, demo)
    replies = _concurrently([
        lambda i=i: demo.post(path, {'metadata': {'key%d' % i: str(i)}})
        for i in range(16)])
    assert [r.status for r in replies] == [200] * 16, replies
    stored = demo.get(path).body['metadata']
    assert stored == {'key%d' % i: str(i) for i in range(16)}
    # Each answer holds the caller's key and whatever was stored before.
    for i, reply in enumerate(replies):
        assert reply.body['metadata']['key%d' % i] == str(i)


def test_concurrent_puts_and_deletes_touch_only_their_keys(wired, bed,
                                                           demo):
    path = _server(bed, demo)
    assert demo.put(path, {'metadata': {'old%d' % i: 'x'
                                        for i in range(8)}}).status == 200
    calls = [lambda i=i: demo.delete('%s/old%d' % (path, i))
             for i in range(8)]
    calls += [lambda i=i: demo.put('%s/new%d' % (path, i),
                                   {'meta': {'new%d' % i: 'y'}})
              for i in range(8)]
    replies = _concurrently(calls)
    assert [r.status for r in replies] == [204] * 8 + [200] * 8, replies
    assert demo.get(path).body['metadata'] == {'new%d' % i: 'y'
                                               for i in range(8)}


def test_concurrent_posts_stay_within_the_metadata_quota(wired, bed, admin,
                                                         demo):
    path = _server(bed, demo)
    assert admin.put('/os-quota-sets/%s' % demo.project, {
        'quota_set': {'metadata_items': 5}}).status == 200
    try:
        replies = _concurrently([
            lambda i=i: demo.post(path, {'metadata': {'k%d' % i: 'v'}})
            for i in range(10)])
    finally:
        admin.put('/os-quota-sets/%s' % demo.project, {
            'quota_set': {'metadata_items': 128}})
    statuses = sorted(r.status for r in replies)
    assert statuses == [200] * 5 + [403] * 5, replies
    assert len(demo.get(path).body['metadata']) == 5
