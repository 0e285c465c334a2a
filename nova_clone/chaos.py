"""``nova-clone chaos``: a storm of boots, resizes and deletes on a stack
while its processes are killed, then a count of what was lost.

Against a running ``nova-clone stack up``: N servers are booted (C at a
time) through the REST API; about one in five is resized and confirmed,
nine in ten are deleted again.  Meanwhile, at random moments of the
storm, SIGKILL hits a compute, the cell conductor, the super-conductor,
the scheduler and a nova-api worker; each is started again with the
stack's own start code (gunicorn replaces its worker itself).  Placement
is stopped for ``--placement-outage`` seconds; RabbitMQ (``rabbitmqctl
stop_app/start_app``) and MariaDB are restarted once when asked: the
broker and the database server are shared by every stack on the
machine, so those two restarts disturb whatever else runs there.

When the storm is over and every service is back, the run waits
(bounded) for no server to be in BUILD or a task state, then prints ONE
JSON line of counts, each of which must be 0, and exits 2 when one is
not: allocations whose consumer is gone (``nova-manage placement
audit``), servers on a host with no allocation, servers in BUILD or a
task state, ERROR servers without a fault, build requests and instance
mappings that point at nothing, ports bound to servers that are gone
and volumes attached to servers that are gone.

Module-level imports stay light: ``nova-clone --help`` imports this.
"""

import argparse
import glob
import json
import os
import random
import subprocess
import sys
import threading
import time
import uuid

from nova_clone import bench

POLL_SECONDS = 1.0
RESIZE_EVERY = 5
KEEP_EVERY = 10


def add_arguments(parser):
    parser.add_argument('--name', default='nova-clone',
                        help='Stack name (default nova-clone).')
    parser.add_argument('--state-dir',
                        help='State directory of the stack (default: the '
                             "name's).")
    parser.add_argument('--servers', type=bench._positive, default=200,
                        help='Servers to boot (default 200).')
    parser.add_argument('--concurrency', type=bench._positive, default=10,
                        help='Servers in flight at once (default 10).')
    parser.add_argument('--flavor', default='m1.nano')
    parser.add_argument('--resize-flavor', default='m1.micro')
    parser.add_argument('--placement-outage', type=int, default=30,
                        metavar='S', help='Seconds Placement stays stopped '
                        '(0: no outage; default 30).')
    parser.add_argument('--restart-rabbitmq', default=True,
                        action=argparse.BooleanOptionalAction,
                        help='Restart the RabbitMQ app once (shared by '
                             'every stack on the machine; default on).')
    parser.add_argument('--restart-mariadb', default=True,
                        action=argparse.BooleanOptionalAction,
                        help='Restart MariaDB once (shared; default on).')
    parser.add_argument('--mariadb-restart-command',
                        default='service mariadb restart',
                        help='How MariaDB is restarted (default: '
                             '"service mariadb restart").')
    parser.add_argument('--settle-timeout', type=bench._positive,
                        default=300, help='Seconds to wait for servers to '
                        'leave BUILD and task states (default 300).')
    parser.add_argument('--seed', type=int,
                        help='Random seed of the kill moments.')


class _Faults(object):
    """Kills and outages, each fired once when the storm reaches its
    random moment (a share of the servers posted)."""

    def __init__(self, layout, args, rng, say):
        from nova_clone.stack import services as stack_services
        from nova_clone.stack import up as stack_up
        self.layout = layout
        self.args = args
        self.say = say
        self.starter = stack_up.Up(layout)
        control = {s.name: s for s in stack_services.control_services(
            layout)}
        computes = stack_services.compute_services(layout)
        self.targets = {
            'compute': rng.choice(computes) if computes else None,
            'cell-conductor': control.get('nova-conductor-cell1'),
            'super-conductor': control['nova-conductor'],
            'scheduler': control['nova-scheduler'],
        }
        self.placement = stack_services.support_services(layout)[0]
        self.actions = {
            'compute': lambda: self._kill(self.targets['compute']),
            'cell-conductor': lambda: self._kill(
                self.targets['cell-conductor']),
            'super-conductor': lambda: self._kill(
                self.targets['super-conductor']),
            'scheduler': lambda: self._kill(self.targets['scheduler']),
            'api-worker': self._api_worker,
        }
        if args.placement_outage > 0:
            self.actions['placement'] = self._placement
        if args.restart_rabbitmq:
            self.actions['rabbitmq'] = self._rabbitmq
        if args.restart_mariadb:
            self.actions['mariadb'] = self._mariadb
        events = list(self.actions)
        self.pending = sorted((rng.uniform(0.1, 0.7), e) for e in events)
        self.done = []
        self.errors = []
        self._rng = rng
        self._lock = threading.Lock()

    def finished(self):
        return len(self.done) + len(self.errors) == len(self.actions)

    def due(self, share):
        """Fire (in a thread) every event whose moment has come."""
        with self._lock:
            ready = [e for at, e in self.pending if at <= share]
            self.pending = [(at, e) for at, e in self.pending
                            if at > share]
        for event in ready:
            from nova_clone import threads
            threads.spawn(self._fire, event)

    def _fire(self, event):
        try:
            self.actions[event]()
            self.done.append(event)
        except Exception as exc:  # reported in the JSON line
            self.errors.append('%s: %s' % (event, exc))

    def _kill(self, service):
        import psutil
        from nova_clone.stack import procs
        lay = self.layout
        pid = procs.running(lay.run_dir, service.name, lay.marker)
        if pid is None:
            raise RuntimeError('%s is not running' % service.name)
        self.say('chaos: SIGKILL %s (pid %d)' % (service.name, pid))
        psutil.Process(pid).kill()
        procs.wait_until(lambda: procs.exited(pid), 10)
        self.starter.start_services([service], 180)

    def _api_worker(self):
        import psutil
        from nova_clone.stack import procs
        lay = self.layout
        pid = procs.running(lay.run_dir, 'nova-api', lay.marker)
        workers = psutil.Process(pid).children() if pid else []
        if not workers:
            raise RuntimeError('no nova-api worker')
        worker = self._rng.choice(workers)
        self.say('chaos: SIGKILL a nova-api worker (pid %d)' % worker.pid)
        worker.kill()

    def _placement(self):
        from nova_clone.stack import procs
        lay = self.layout
        self.say('chaos: Placement stopped for %ds'
                 % self.args.placement_outage)
        procs.stop(lay.run_dir, 'placement', lay.marker)
        time.sleep(self.args.placement_outage)
        self.starter.start_services([self.placement], 120)

    def _rabbitmq(self):
        from nova_clone.stack import infra
        self.say('chaos: RabbitMQ stop_app / start_app')
        infra._rabbitmqctl('stop_app')
        time.sleep(5)
        infra._rabbitmqctl('start_app')

    def _mariadb(self):
        self.say('chaos: %s' % self.args.mariadb_restart_command)
        subprocess.run(self.args.mariadb_restart_command, shell=True,
                       check=True, timeout=300, capture_output=True)


class _Storm(object):
    """The servers of the run, each booted, maybe resized, maybe
    deleted, by one of C worker threads."""

    def __init__(self, conn, args, faults, prefix):
        self.conn = conn
        self.args = args
        self.faults = faults
        self.prefix = prefix
        self.posted = 0
        self.kept = []
        self.api_errors = []
        self.lock = threading.Lock()

    def _call(self, method, path, ok, **kwargs):
        """A REST call retried while the cloud is mid-fault (connection
        errors and 5xx); None when it never answered ``ok``."""
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                resp = getattr(self.conn.compute, method)(
                    path, microversion='2.1', raise_exc=False, **kwargs)
            except Exception as exc:
                self._note('%s %s: %s' % (method, path, exc))
            else:
                if resp.status_code in ok:
                    return resp
                self._note('%s %s: HTTP %d %s' % (
                    method, path, resp.status_code,
                    bench._api_message(resp)))
                if resp.status_code < 500 and resp.status_code != 409:
                    return None
            time.sleep(2)
        return None

    def _note(self, message):
        with self.lock:
            self.api_errors.append(message[:200])

    def _wait(self, server_id, until):
        deadline = time.monotonic() + self.args.settle_timeout
        while time.monotonic() < deadline:
            resp = self._call('get', '/servers/%s' % server_id, (200, 404))
            if resp is None or resp.status_code == 404:
                return None
            server = resp.json()['server']
            if (server['status'] in until and
                    server.get('OS-EXT-STS:task_state') is None):
                return server['status']
            time.sleep(POLL_SECONDS)
        return None

    def one(self, index, flavors):
        body = {'server': {'name': '%s-%d' % (self.prefix, index),
                           'flavorRef': flavors[0],
                           'imageRef': self.image, 'networks': [
                               {'uuid': self.network}]}}
        with self.lock:
            self.posted += 1
            share = self.posted / float(self.args.servers)
        self.faults.due(share)
        resp = self._call('post', '/servers', (202,), json=body)
        if resp is None:
            return
        server_id = resp.json()['server']['id']
        status = self._wait(server_id, ('ACTIVE', 'ERROR'))
        if status == 'ACTIVE' and index % RESIZE_EVERY == 0:
            action = '/servers/%s/action' % server_id
            if self._call('post', action, (202,), json={
                    'resize': {'flavorRef': flavors[1]}}):
                if self._wait(server_id, ('VERIFY_RESIZE', 'ACTIVE',
                                          'ERROR')) == 'VERIFY_RESIZE':
                    self._call('post', action, (204,),
                               json={'confirmResize': None})
                    self._wait(server_id, ('ACTIVE', 'ERROR'))
        if index % KEEP_EVERY == 0:
            with self.lock:
                self.kept.append(server_id)
            return
        self._call('delete', '/servers/%s' % server_id, (204, 404))

    def run(self):
        import concurrent.futures
        conn = self.conn
        flavors = [conn.compute.find_flavor(name, ignore_missing=False).id
                   for name in (self.args.flavor, self.args.resize_flavor)]
        from nova_clone.deploy import seed_data
        self.image = conn.image.find_image(seed_data.IMAGE_NAME,
                                           ignore_missing=False).id
        self.network = conn.network.find_network(seed_data.NETWORK_NAME,
                                                 ignore_missing=False).id
        with concurrent.futures.ThreadPoolExecutor(
                self.args.concurrency) as pool:
            list(pool.map(lambda i: self.one(i, flavors),
                          range(self.args.servers)))
        # A storm shorter than its last moment still gets every fault.
        self.faults.due(1.0)


def _all_servers(conn):
    resp = conn.compute.get('/servers/detail', params={
        'all_tenants': 1, 'limit': 1000}, microversion='2.1')
    if resp.status_code != 200:
        raise RuntimeError('GET /servers/detail answered %s'
                           % resp.status_code)
    return resp.json()['servers']


def _unsettled(server):
    return (server['status'] == 'BUILD' or
            server.get('OS-EXT-STS:task_state') is not None)


def settle(conn, timeout):
    """Wait (bounded) until no server is in BUILD or a task state."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if not any(_unsettled(s) for s in _all_servers(conn)):
                return
        except Exception:  # the API may still be coming back
            pass
        if time.monotonic() >= deadline:
            return
        time.sleep(2)


def _orphan_allocations(layout):
    """Consumers ``nova-manage placement audit`` finds no owner for."""
    from nova_clone.stack import nova as stack_nova
    exe = os.path.join(os.path.dirname(sys.executable), 'nova-manage')
    proc = subprocess.run(
        [exe, '--config-file', stack_nova.top_conf_path(layout),
         'placement', 'audit'], capture_output=True, text=True,
        timeout=300)
    if proc.returncode not in (0, 3):
        raise RuntimeError('nova-manage placement audit failed (%d): %s'
                           % (proc.returncode, proc.stdout[-300:]))
    return sum('can be deleted' in line for line in proc.stdout.splitlines())


def _dangling_mappings(layout):
    """Build requests and instance mappings that point at nothing, and
    instances of a cell (cell0 too) that no mapping points at: each is a
    server the API lists wrongly or cannot find."""
    from nova_clone.stack import infra
    api = layout.db_name('nova_api')
    count = infra.query(api, (
        'SELECT COUNT(*) FROM build_requests b LEFT JOIN instance_mappings '
        'm ON m.instance_uuid = b.instance_uuid WHERE m.id IS NULL'))[0][0]
    count += infra.query(api, (
        'SELECT COUNT(*) FROM instance_mappings m LEFT JOIN build_requests '
        'b ON b.instance_uuid = m.instance_uuid WHERE m.cell_id IS NULL '
        'AND b.id IS NULL'))[0][0]
    cells = infra.query(api, 'SELECT id, database_connection FROM '
                             'cell_mappings')
    for cell_id, url in cells:
        database = url.rsplit('/', 1)[-1].split('?', 1)[0]
        mapped = {row[0] for row in infra.query(
            api, 'SELECT instance_uuid FROM instance_mappings WHERE '
                 'cell_id = %s', [cell_id])}
        present = {row[0]: row[1] for row in infra.query(
            database, 'SELECT uuid, deleted FROM instances')}
        count += len(mapped - set(present))
        count += sum(1 for uuid_, deleted in present.items()
                     if not deleted and uuid_ not in mapped)
    return count


def _without_allocation(conn, servers):
    """The servers on a host that Placement holds nothing for."""
    missing = []
    for server in servers:
        if not server.get('OS-EXT-SRV-ATTR:host'):
            continue
        resp = conn.placement.get('/allocations/%s' % server['id'],
                                  raise_exc=False)
        if resp.status_code != 200 or not resp.json().get('allocations'):
            missing.append(server)
    return missing


def check(layout, conn):
    """The counts of the JSON line; every one must be 0."""
    servers = _all_servers(conn)
    live = {s['id'] for s in servers}
    ports = [p for p in conn.network.ports()
             if (p.device_owner or '').startswith('compute:')]
    volumes = list(conn.block_storage.volumes(all_projects=True))
    return {
        'orphan_allocations': _orphan_allocations(layout),
        'servers_without_allocation': len(_without_allocation(conn,
                                                              servers)),
        'servers_unsettled': sum(1 for s in servers if _unsettled(s)),
        'error_without_fault': sum(
            1 for s in servers
            if s['status'] == 'ERROR' and not s.get('fault')),
        'dangling_mappings': _dangling_mappings(layout),
        'ports_of_gone_servers': sum(
            1 for p in ports if p.device_id not in live),
        'volumes_of_gone_servers': sum(
            1 for v in volumes for a in (v.attachments or [])
            if a.get('server_id') not in live),
    }


def _log_lines(layout, server_id, per_file=8):
    """The last warnings and errors of each service log naming the
    server."""
    lines = []
    for path in sorted(glob.glob(os.path.join(layout.log_dir, '*.log'))):
        try:
            with open(path, errors='replace') as log:
                found = [line.rstrip()[:300] for line in log
                         if server_id in line and
                         (' WARNING ' in line or ' ERROR ' in line)]
        except OSError:
            continue
        name = os.path.basename(path)
        lines.extend('%s: %s' % (name, line) for line in found[-per_file:])
    return lines


def _describe_lost(layout, conn):
    """Each server left in BUILD or a task state, or on a host with no
    allocation, with the events of its last actions and what the
    services logged about it: where the flow stopped, for whoever reads
    the run."""
    servers = _all_servers(conn)
    lost = [('unsettled', s) for s in servers if _unsettled(s)]
    lost += [('without allocation', s)
             for s in _without_allocation(conn, servers)]
    for what, server in lost:
        _say('chaos: %s %s status=%s task_state=%s host=%s' % (
            what, server['id'], server['status'],
            server.get('OS-EXT-STS:task_state'),
            server.get('OS-EXT-SRV-ATTR:host')))
        resp = conn.compute.get('/servers/%s/os-instance-actions'
                                % server['id'], microversion='2.51',
                                raise_exc=False)
        actions = (resp.json()['instanceActions'][:2]
                   if resp.status_code == 200 else [])
        for action in actions:
            detail = conn.compute.get(
                '/servers/%s/os-instance-actions/%s' % (
                    server['id'], action['request_id']),
                microversion='2.51', raise_exc=False)
            events = (detail.json()['instanceAction'].get('events', [])
                      if detail.status_code == 200 else [])
            _say('chaos:   %s %s %s events=%s' % (
                action['action'], action['request_id'],
                action['start_time'],
                [(e['event'], e.get('result')) for e in events]))
        for line in _log_lines(layout, server['id']):
            _say('chaos:   log %s' % line)


def _say(message):
    print(message, file=sys.stderr, flush=True)


def run(args):
    from nova_clone.stack import layout as stack_layout
    state_dir = args.state_dir or stack_layout.default_state_dir(args.name)
    layout = stack_layout.StackLayout.load(state_dir)
    if layout is None:
        _say('nova-clone chaos: no stack in %s (run: nova-clone stack up)'
             % state_dir)
        return 1
    args.cloud = 'admin'
    args.os_client_config_file = layout.clouds_yaml
    conn = bench._connect(args)
    # The storm is the admin project's: its quota must not be the fault.
    _say('chaos: lifting the instances/cores/ram quota of the admin '
         'project')
    conn.compute.put('/os-quota-sets/%s' % conn.current_project_id,
                     json={'quota_set': {'instances': -1, 'cores': -1,
                                         'ram': -1}}, microversion='2.1')
    rng = random.Random(args.seed)
    faults = _Faults(layout, args, rng, _say)
    storm = _Storm(conn, args, faults, 'chaos-%s' % uuid.uuid4().hex[:8])
    started = time.monotonic()
    storm.run()
    # Every fault has finished (its service is back) before counting.
    while not faults.finished():
        time.sleep(1)
    deadline = time.monotonic() + args.settle_timeout
    settle(conn, args.settle_timeout)
    # What a dead service left is healed by the survivors' periodic tasks
    # (a compute's resource update frees the allocations of deletes that
    # could not reach Placement): count again until clean or out of time.
    counts = check(layout, conn)
    while any(counts.values()) and time.monotonic() < deadline:
        time.sleep(10)
        counts = check(layout, conn)
    report = dict(counts, servers=args.servers, posted=storm.posted,
                  faults=sorted(faults.done), fault_errors=faults.errors,
                  api_errors=len(storm.api_errors),
                  seconds=round(time.monotonic() - started, 1))
    print(json.dumps(report, sort_keys=True), flush=True)
    if counts['servers_unsettled'] or counts['servers_without_allocation']:
        _describe_lost(layout, conn)
    for server_id in storm.kept:
        storm._call('delete', '/servers/%s' % server_id, (204, 404))
    return 2 if any(counts.values()) or faults.errors else 0
