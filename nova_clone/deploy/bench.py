"""``nova-clone bench``: boot a storm of servers and measure the cloud.

Works against any cloud of a clouds.yaml (openstacksdk): boots N servers
keeping C boots in flight, waits for each to be ACTIVE (or ERROR), then
deletes them, and prints ONE JSON line: servers/s to ACTIVE, errors,
GET /servers/detail latency (p50/p95, sampled all along), the delete time
and the largest share of servers any one host got (needs an admin cloud to
see OS-EXT-SRV-ATTR:host).

Module-level imports stay light: ``nova-clone --help`` imports this.
"""

import json
import sys
import threading
import time
import uuid

POLL_SECONDS = 0.5


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
    """Lists /servers/detail all along: statuses, hosts and latency."""

    def __init__(self, conn, prefix):
        super().__init__(daemon=True, name='bench-monitor')
        self.conn = conn
        self.prefix = prefix
        self.latencies = []
        self.servers = {}
        self.changed = threading.Condition()
        self.stop_flag = threading.Event()
        self.error = None

    def sample(self):
        start = time.monotonic()
        resp = self.conn.compute.get(
            '/servers/detail', params={'name': '^%s' % self.prefix},
            microversion='2.1')
        self.latencies.append(time.monotonic() - start)
        if resp.status_code != 200:
            raise RuntimeError('GET /servers/detail answered %s: %s'
                               % (resp.status_code, resp.text[:200]))
        found = {s['id']: s for s in resp.json()['servers']}
        with self.changed:
            self.servers = found
            self.changed.notify_all()
        return found

    def run(self):
        while not self.stop_flag.is_set():
            try:
                self.sample()
            except Exception as exc:  # reported, the run goes on
                self.error = str(exc)
            self.stop_flag.wait(POLL_SECONDS)

    def wait_for(self, server_id, statuses, deadline):
        with self.changed:
            while time.monotonic() < deadline:
                server = self.servers.get(server_id)
                if server is not None and server['status'] in statuses:
                    return server
                self.changed.wait(timeout=1)
        return self.servers.get(server_id)

    def wait_gone(self, ids, deadline):
        with self.changed:
            while time.monotonic() < deadline:
                if not set(ids) & set(self.servers):
                    return True
                self.changed.wait(timeout=1)
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
    done_at = []

    def one(index):
        try:
            server = conn.compute.create_server(
                name='%s-%d' % (prefix, index), flavor_id=flavor.id,
                image_id=image.id, networks=[{'uuid': network.id}])
        except Exception as exc:
            with lock:
                results['errors'] += 1
                results['error_messages'].append(str(exc)[:200])
            return
        with lock:
            ids.append(server.id)
        final = monitor.wait_for(server.id, ('ACTIVE', 'ERROR'), deadline)
        with lock:
            if final is None or final['status'] not in ('ACTIVE', 'ERROR'):
                results['timeouts'] += 1
            elif final['status'] == 'ACTIVE':
                results['active'] += 1
                done_at.append(time.monotonic())
            else:
                results['errors'] += 1
                fault = (final.get('fault') or {}).get('message')
                if fault:
                    results['error_messages'].append(fault[:200])

    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(args.concurrency) as pool:
        list(pool.map(one, range(args.servers)))
    elapsed = (max(done_at) if done_at else time.monotonic()) - start
    results['boot_seconds'] = round(elapsed, 3)
    results['servers_per_second'] = round(
        results['active'] / elapsed, 3) if elapsed > 0 else None
    return results


def _delete_all(conn, monitor, args, ids):
    import concurrent.futures
    start = time.monotonic()

    def one(server_id):
        try:
            conn.compute.delete_server(server_id, ignore_missing=True)
        except Exception:
            pass

    with concurrent.futures.ThreadPoolExecutor(args.concurrency) as pool:
        list(pool.map(one, ids))
    gone = monitor.wait_gone(ids, time.monotonic() + args.timeout)
    return round(time.monotonic() - start, 3), gone


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
        servers = monitor.sample()
        hosts = {}
        for server in servers.values():
            host = server.get('OS-EXT-SRV-ATTR:host')
            if host:
                hosts[host] = hosts.get(host, 0) + 1
        placed = sum(hosts.values())
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
        'servers_per_second': boot['servers_per_second'],
        'list_detail_p50_ms': round(_percentile(lat_ms, 50), 1)
        if lat_ms else None,
        'list_detail_p95_ms': round(_percentile(lat_ms, 95), 1)
        if lat_ms else None,
        'list_detail_samples': len(lat_ms),
        'delete_seconds': delete_seconds,
        'all_deleted': all_gone,
        'hosts': hosts,
        'max_host_share': round(max(hosts.values()) / placed, 3)
        if placed else None,
        'error_messages': boot['error_messages'][:5],
    }
    print(json.dumps(report, sort_keys=True))
    return 0 if boot['errors'] == 0 and boot['timeouts'] == 0 else 2
