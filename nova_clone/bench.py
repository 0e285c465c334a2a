"""``nova-clone bench``: boot a storm of servers and measure the cloud.

Works against any cloud of a clouds.yaml (openstacksdk): boots N servers
keeping C boots in flight, waits for each to be ACTIVE (or ERROR), then
deletes them, and prints ONE JSON line: servers/s to ACTIVE, errors,
each server's POST-to-ACTIVE latency (p50/p95), GET /servers/detail
latency (p50/p95, sampled all along), the delete time and the largest
share of servers any one host got (by host name for an admin, by hostId
for any other user).  With ``--resize`` it then resizes each ACTIVE
server (to ``--resize-flavor``, else the next larger flavor) and confirms
it, C at a time, and adds resizes/s and each resize's POST-to-confirmed
latency to the line.

Module-level imports stay light: ``nova-clone --help`` imports this.
"""

import json
import sys
import threading
import time
import uuid

# Watching for the end of builds: a cheap id-only list of the servers still
# in BUILD, often.  A slot is refilled only when the list shows its server
# done, so the interval adds half of itself to every boot the bench sees:
# 0.1 s keeps that to ~5% of a boot at 10 servers/s and concurrency 10,
# for about 5 ms of the cloud's CPU per list.  Latency samples: the full
# detail list, once a second.
POLL_SECONDS = 0.1
SAMPLE_SECONDS = 1.0
# Waiting for the deletes lists every server of the run: less often.
GONE_POLL_SECONDS = 0.25
FINAL = ('ACTIVE', 'ERROR')


def add_arguments(parser):
    parser.add_argument('--cloud', required=True,
                        help='Cloud name in clouds.yaml.')
    parser.add_argument('--os-client-config-file', metavar='FILE',
                        help='clouds.yaml to read (default: the usual '
                             'search path / OS_CLIENT_CONFIG_FILE).')
    parser.add_argument('--servers', type=_positive, default=50,
                        help='Servers to boot (default 50).')
    parser.add_argument('--concurrency', type=_positive, default=10,
                        help='Boots in flight at once (default 10).')
    parser.add_argument('--flavor', required=True, help='Flavor name or id.')
    parser.add_argument('--image', required=True, help='Image name or id.')
    parser.add_argument('--network', required=True,
                        help='Network name or id.')
    parser.add_argument('--timeout', type=_positive, default=600,
                        help='Seconds to wait for all servers (default '
                             '600).')
    parser.add_argument('--keep', action='store_true',
                        help='Do not delete the servers afterwards.')
    parser.add_argument('--resize', action='store_true',
                        help='Resize and confirm each booted server and '
                             'report the rate.')
    parser.add_argument('--resize-flavor', metavar='FLAVOR',
                        help='Flavor to resize to (default: the smallest '
                             'flavor larger than --flavor).')


def _positive(text):
    import argparse
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError('%r is not a number' % text)
    if value < 1:
        raise argparse.ArgumentTypeError('must be at least 1')
    return value


def _percentile(values, pct):
    if not values:
        return None
    ordered = sorted(values)
    index = min(len(ordered) - 1,
                max(0, int(round(pct / 100.0 * (len(ordered) - 1)))))
    return ordered[index]


def _connect(args):
    import openstack
    import openstack.connection
    from openstack import config as os_config
    if args.os_client_config_file:
        cfg = os_config.OpenStackConfig(
            config_files=[args.os_client_config_file])
        region = cfg.get_one(cloud=args.cloud)
        return openstack.connection.Connection(config=region)
    return openstack.connect(cloud=args.cloud)


class _Monitor(threading.Thread):
    """Follows the run's servers from outside, as a user would.

    A server is done when it leaves the list of the run's servers in
    BUILD (polled often, ids only); what it became (ACTIVE or ERROR, its
    fault and host) is read from GET /servers/detail, which a second
    thread times all along: the list-detail latency of the report.  No
    per-server GET: the cloud under test serves the measurement, not a
    poll per server.
    """

    def __init__(self, conn, prefix):
        super().__init__(daemon=True, name='bench-monitor')
        self.conn = conn
        self.prefix = prefix
        self.latencies = []
        self.seen = {}         # id -> latest body from a detail list
        self.settled = {}      # id -> monotonic time it left BUILD
        self._waiting = {}     # id -> monotonic time its POST returned
        self.changed = threading.Condition()
        self.stop_flag = threading.Event()
        self.error = None
        self._sampler = threading.Thread(target=self._sample_loop,
                                         daemon=True, name='bench-sampler')

    def start(self):
        super().start()
        self._sampler.start()

    def _get(self, path, **params):
        resp = self.conn.compute.get(path, params=params or None,
                                     microversion='2.1')
        if resp.status_code != 200:
            raise RuntimeError('GET %s answered %s: %s'
                               % (path, resp.status_code, resp.text[:200]))
        return resp.json()

    def sample(self):
        """One timed list detail of the run's servers."""
        start = time.monotonic()
        body = self._get('/servers/detail', name='^%s' % self.prefix)
        self.latencies.append(time.monotonic() - start)
        with self.changed:
            self.seen.update((s['id'], s) for s in body['servers'])

    def _sample_loop(self):
        while not self.stop_flag.wait(SAMPLE_SECONDS):
            try:
                self.sample()
            except Exception as exc:  # reported, the run goes on
                self.error = str(exc)

    def building(self):
        return {s['id'] for s in self._get(
            '/servers', name='^%s' % self.prefix, status='BUILD')['servers']}

    def watch(self, server_id):
        with self.changed:
            self._waiting[server_id] = time.monotonic()

    def _check(self):
        listed_at = time.monotonic()
        building = self.building()
        with self.changed:
            for server_id, since in list(self._waiting.items()):
                if since < listed_at and server_id not in building:
                    del self._waiting[server_id]
                    self.settled[server_id] = listed_at
            self.changed.notify_all()

    def run(self):
        while not self.stop_flag.is_set():
            try:
                self._check()
            except Exception as exc:  # reported, the run goes on
                self.error = str(exc)
            self.stop_flag.wait(POLL_SECONDS)

    def wait_settled(self, server_id, deadline):
        """True once the server left BUILD, False at the deadline."""
        with self.changed:
            while server_id not in self.settled:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.changed.wait(timeout=min(left, 1))
            return True

    def wait_gone(self, ids, deadline):
        while time.monotonic() < deadline:
            listed = {s['id'] for s in self._get(
                '/servers', name='^%s' % self.prefix)['servers']}
            if not set(ids) & listed:
                return True
            time.sleep(GONE_POLL_SECONDS)
        return False


def _boot_all(conn, monitor, args, ids, prefix):
    import concurrent.futures
    flavor = conn.compute.find_flavor(args.flavor, ignore_missing=False)
    image = conn.image.find_image(args.image, ignore_missing=False)
    network = conn.network.find_network(args.network, ignore_missing=False)
    deadline = time.monotonic() + args.timeout
    results = {'active': 0, 'errors': 0, 'timeouts': 0,
               'error_messages': []}
    lock = threading.Lock()

    posted_at = {}  # id -> monotonic time its POST was sent

    def one(index):
        body = {'server': {'name': '%s-%d' % (prefix, index),
                           'flavorRef': flavor.id, 'imageRef': image.id,
                           'networks': [{'uuid': network.id}]}}
        sent = time.monotonic()
        try:
            server_id = _create(conn, body)
        except Exception as exc:
            with lock:
                results['errors'] += 1
                results['error_messages'].append(str(exc)[:200])
            return
        with lock:
            ids.append(server_id)
            posted_at[server_id] = sent
        monitor.watch(server_id)
        # The slot frees as soon as the server is out of BUILD.
        monitor.wait_settled(server_id, deadline)

    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(args.concurrency) as pool:
        list(pool.map(one, range(args.servers)))
    # What each server became: one detail list after the last settled.
    monitor.sample()
    done_at = []
    latencies = []
    for server_id in ids:
        server = monitor.seen.get(server_id, {})
        status = server.get('status')
        if server_id not in monitor.settled or status not in FINAL:
            results['timeouts'] += 1
        elif status == 'ACTIVE':
            results['active'] += 1
            done_at.append(monitor.settled[server_id])
            latencies.append(monitor.settled[server_id] -
                             posted_at[server_id])
        else:
            results['errors'] += 1
            fault = (server.get('fault') or {}).get('message')
            if fault:
                results['error_messages'].append(fault[:200])
    elapsed = (max(done_at) if done_at else time.monotonic()) - start
    results['boot_seconds'] = round(elapsed, 3)
    results['servers_per_second'] = round(
        results['active'] / elapsed, 3) if elapsed > 0 else None
    # POST to seen ACTIVE, per server: with C in flight, servers/s is at
    # most C / mean latency, so a run whose rate sits well below that was
    # short of CPU rather than waiting on a step.
    results['boot_latency_p50_s'] = _rounded(_percentile(latencies, 50), 3)
    results['boot_latency_p95_s'] = _rounded(_percentile(latencies, 95), 3)
    return results


def _rounded(value, digits):
    return None if value is None else round(value, digits)


def _create(conn, body):
    """POST /servers: the new server's id, or an error with the API's
    message.  Plain REST calls, as for the lists: the SDK's resource layer
    costs the client as much CPU as a boot costs a service, and the client
    shares the machine with the cloud it measures."""
    resp = conn.compute.post('/servers', json=body, microversion='2.1',
                             raise_exc=False)
    if resp.status_code != 202:
        raise RuntimeError('POST /servers answered %s: %s'
                           % (resp.status_code, _api_message(resp)))
    return resp.json()['server']['id']


def _api_message(resp):
    """The message of Nova's error body ({"badRequest": {...}} and the
    like), else the start of the text."""
    try:
        fault = next(iter(resp.json().values()))
        return fault['message']
    except Exception:
        return resp.text[:200]


def _delete_all(conn, monitor, args, ids):
    import concurrent.futures
    start = time.monotonic()

    def one(server_id):
        try:
            conn.compute.delete('/servers/%s' % server_id,
                                microversion='2.1', raise_exc=False)
        except Exception:
            pass

    with concurrent.futures.ThreadPoolExecutor(args.concurrency) as pool:
        list(pool.map(one, ids))
    gone = monitor.wait_gone(ids, time.monotonic() + args.timeout)
    return round(time.monotonic() - start, 3), gone


# Polling one resizing server: each worker has one in flight.
RESIZE_POLL_SECONDS = 0.25


def _resize_target(conn, args):
    """The flavor to resize to: --resize-flavor, else the smallest one
    (by RAM, vCPUs, disk) larger than --flavor with at least its disk."""
    if args.resize_flavor:
        return conn.compute.find_flavor(args.resize_flavor,
                                        ignore_missing=False)
    current = conn.compute.find_flavor(args.flavor, ignore_missing=False)
    larger = [f for f in conn.compute.flavors()
              if f.id != current.id and f.disk >= current.disk and
              (f.ram, f.vcpus) > (current.ram, current.vcpus)]
    if not larger:
        raise RuntimeError('no flavor larger than %s to resize to'
                           % current.name)
    return min(larger, key=lambda f: (f.ram, f.vcpus, f.disk))


def _action(conn, server_id, body):
    resp = conn.compute.post('/servers/%s/action' % server_id, json=body,
                             microversion='2.1', raise_exc=False)
    if resp.status_code not in (202, 204):
        raise RuntimeError('%s answered %s: %s' % (
            next(iter(body)), resp.status_code, _api_message(resp)))


def _wait_move(conn, server_id, deadline, leaving):
    """The server once no task runs on it and its status is not
    ``leaving``."""
    while time.monotonic() < deadline:
        resp = conn.compute.get('/servers/%s' % server_id,
                                microversion='2.1')
        server = resp.json()['server']
        if server['status'] != leaving and \
                not server.get('OS-EXT-STS:task_state'):
            return server
        time.sleep(RESIZE_POLL_SECONDS)
    raise RuntimeError('server %s still moving at the timeout' % server_id)


def resize_all(conn, args, ids):
    """Resize and confirm each server, C at a time: the report's resize
    fields."""
    import concurrent.futures
    flavor = _resize_target(conn, args)
    deadline = time.monotonic() + args.timeout
    latencies, errors = [], []
    lock = threading.Lock()

    def one(server_id):
        sent = time.monotonic()
        try:
            _action(conn, server_id, {'resize': {'flavorRef': flavor.id}})
            server = _wait_move(conn, server_id, deadline, 'RESIZE')
            if server['status'] != 'VERIFY_RESIZE':
                raise RuntimeError('resize of %s ended %s: %s' % (
                    server_id, server['status'],
                    (server.get('fault') or {}).get('message')))
            _action(conn, server_id, {'confirmResize': None})
            # Confirming leaves the status alone until the source is
            # cleaned up.
            server = _wait_move(conn, server_id, deadline, 'VERIFY_RESIZE')
            if server['status'] != 'ACTIVE':
                raise RuntimeError('confirm of %s ended %s' % (
                    server_id, server['status']))
        except Exception as exc:
            with lock:
                errors.append(str(exc)[:200])
            return
        with lock:
            latencies.append(time.monotonic() - sent)

    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(args.concurrency) as pool:
        list(pool.map(one, ids))
    elapsed = time.monotonic() - start
    return {
        'resize_flavor': flavor.name,
        'resized': len(latencies),
        'resize_errors': len(errors),
        'resize_seconds': round(elapsed, 3),
        'resizes_per_second': round(len(latencies) / elapsed, 3)
        if elapsed > 0 else None,
        'resize_latency_p50_s': _rounded(_percentile(latencies, 50), 3),
        'resize_latency_p95_s': _rounded(_percentile(latencies, 95), 3),
        'resize_error_messages': errors[:5],
    }


def _hosts(servers):
    """Servers per host: the host's name for an admin, else hostId (the
    per-project hash of the host that every user sees)."""
    hosts = {}
    for server in servers:
        if server.get('status') != 'ACTIVE':
            continue
        host = server.get('OS-EXT-SRV-ATTR:host') or server.get('hostId')
        if host:
            hosts[host] = hosts.get(host, 0) + 1
    return hosts


def run(args):
    try:
        conn = _connect(args)
        conn.compute.get('/', microversion='2.1')
    except Exception as exc:
        print('nova-clone bench: cannot use cloud %r: %s' % (args.cloud,
                                                             exc),
              file=sys.stderr)
        return 1
    prefix = 'bench-%s' % uuid.uuid4().hex[:8]
    monitor = _Monitor(conn, prefix)
    monitor.start()
    ids = []
    try:
        try:
            boot = _boot_all(conn, monitor, args, ids, prefix)
        except Exception as exc:
            print('nova-clone bench: %s' % exc, file=sys.stderr)
            return 1
        hosts = _hosts(monitor.seen[i] for i in ids if i in monitor.seen)
        placed = sum(hosts.values())
        moves = None
        if args.resize:
            try:
                moves = resize_all(conn, args, [
                    i for i in ids
                    if monitor.seen.get(i, {}).get('status') == 'ACTIVE'])
            except Exception as exc:
                print('nova-clone bench: %s' % exc, file=sys.stderr)
                return 1
        # A few more list samples with every server present.
        for _ in range(5):
            monitor.sample()
        delete_seconds, all_gone = (None, None)
        if not args.keep:
            delete_seconds, all_gone = _delete_all(conn, monitor, args, ids)
    finally:
        monitor.stop_flag.set()
    lat_ms = [v * 1000 for v in monitor.latencies]
    report = {
        'cloud': args.cloud,
        'servers': args.servers,
        'concurrency': args.concurrency,
        'active': boot['active'],
        'errors': boot['errors'],
        'timeouts': boot['timeouts'],
        'boot_seconds': boot['boot_seconds'],
        'boot_latency_p50_s': boot['boot_latency_p50_s'],
        'boot_latency_p95_s': boot['boot_latency_p95_s'],
        'servers_per_second': boot['servers_per_second'],
        'list_detail_p50_ms': _rounded(_percentile(lat_ms, 50), 1),
        'list_detail_p95_ms': _rounded(_percentile(lat_ms, 95), 1),
        'list_detail_samples': len(lat_ms),
        'delete_seconds': delete_seconds,
        'all_deleted': all_gone,
        'hosts': hosts,
        'max_host_share': round(max(hosts.values()) / placed, 3)
        if placed else None,
        'error_messages': boot['error_messages'][:5],
    }
    ok = boot['errors'] == 0 and boot['timeouts'] == 0
    if moves is not None:
        report.update(moves)
        ok = ok and moves['resize_errors'] == 0
    print(json.dumps(report, sort_keys=True))
    return 0 if ok else 2
