"""The check that ends ``stack up``: as many servers as computes booted
side by side and deleted again, through the public APIs as a user would
(default microversion, the scheduler picks the hosts).

It proves both flows (scheduler and Placement claim, port binding,
spawn, the network-vif-plugged event, cleanup of allocations and ports)
before the stack is handed over, and names the host and the fault when
one fails.  Each service also takes its first pass through those paths
(statement compilation, schema validators, connection pools, tokens)
here rather than on a user's first request.
"""

import time
from concurrent import futures

from nova_clone.deploy import seed_data

FLAVOR_ID = dict((f[0], f[1]) for f in seed_data.FLAVORS)['m1.nano']
PREFIX = 'stack-check-'
POLL_SECONDS = 0.1
TIMEOUT = 90


class SmokeFailed(RuntimeError):
    pass


def run(session, urls, count):
    """Boot ``count`` servers at once, wait for them, delete them.

    Returns the servers per host; raises SmokeFailed with the host and
    fault of each server that did not become ACTIVE.
    """
    compute = urls['compute']
    image_id = _one_id(session, urls['image'] + '/v2/images',
                       'images', seed_data.IMAGE_NAME)
    network_id = _one_id(session, urls['network'] + '/v2.0/networks',
                         'networks', seed_data.NETWORK_NAME)
    body = {'flavorRef': FLAVOR_ID, 'imageRef': image_id,
            'networks': [{'uuid': network_id}]}
    with futures.ThreadPoolExecutor(max_workers=count) as pool:
        posts = [pool.submit(_create, session, compute,
                             dict(body, name='%s%d' % (PREFIX, i)))
                 for i in range(count)]
        results = [p.exception() or p.result() for p in posts]
    ids = [r for r in results if isinstance(r, str)]
    problems = [str(r) for r in results if not isinstance(r, str)]
    hosts = {}
    try:
        servers = _wait(session, compute, lambda listed: all(
            listed.get(i, {}).get('status') in ('ACTIVE', 'ERROR')
            for i in ids), 'to leave BUILD')
        for server_id in ids:
            server = servers[server_id]
            host = server.get('OS-EXT-SRV-ATTR:host') or 'no host'
            if server['status'] == 'ACTIVE':
                hosts[host] = hosts.get(host, 0) + 1
            else:
                problems.append('server %s on %s went to ERROR: %s' % (
                    server_id, host,
                    (server.get('fault') or {}).get('message', 'no fault')))
    finally:
        for server_id in ids:
            session.delete(compute + '/servers/' + server_id,
                           raise_exc=False)
        _wait(session, compute,
              lambda listed: not set(ids) & set(listed), 'to be deleted')
    if problems:
        raise SmokeFailed('; '.join(problems))
    return hosts


def _one_id(session, url, key, name):
    resp = session.get(url, params={'name': name}, raise_exc=False)
    found = resp.json().get(key, []) if resp.status_code == 200 else []
    if not found:
        raise SmokeFailed('%s %r not found (HTTP %s)' % (
            key[:-1], name, resp.status_code))
    return found[0]['id']


def _create(session, compute, server):
    resp = session.post(compute + '/servers', json={'server': server},
                        raise_exc=False)
    if resp.status_code != 202:
        raise SmokeFailed('POST /servers answered %s: %s' % (
            resp.status_code, resp.text[:300]))
    return resp.json()['server']['id']


def _wait(session, compute, done, what):
    """Poll the list of check servers (one request for all of them)."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        resp = session.get(compute + '/servers/detail',
                           params={'name': '^' + PREFIX}, raise_exc=False)
        if resp.status_code != 200:
            raise SmokeFailed('GET /servers/detail answered %s: %s' % (
                resp.status_code, resp.text[:300]))
        listed = {s['id']: s for s in resp.json()['servers']}
        if done(listed):
            return listed
        if time.monotonic() > deadline:
            raise SmokeFailed('servers still waiting %s after %ds: %s' % (
                what, TIMEOUT, ', '.join(
                    '%s %s' % (i, s['status']) for i, s in listed.items())))
        time.sleep(POLL_SECONDS)
