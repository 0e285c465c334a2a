"""``nova-clone stack up``: bring every process of a stack up, in order.

Safe to re-run: what runs is left running and re-checked, what is
missing is (re)started, every database step is idempotent.  Waits are
bounded; a service that dies or stays silent is named with its log.
"""

import os
import threading
import time
import urllib.parse

from nova_clone.stack import clouds
from nova_clone.deploy import interpreter
from nova_clone.stack import keystone
from nova_clone.stack import placement
from nova_clone.stack import procs
from nova_clone.stack import infra as stack_infra
from nova_clone.stack import layout as stack_layout
from nova_clone.stack import libvirt as stack_libvirt
from nova_clone.stack import nova as stack_nova
from nova_clone.stack import peers as stack_peers
from nova_clone.stack import services as stack_services

HTTP_TIMEOUT = 60
RPC_TIMEOUT = 60
DISCOVER_TIMEOUT = 30


def _with_retries(fn, what, attempts=3, delay=2.0):
    """Run an idempotent start-up step again when a just-started service
    refuses it once (seen: a fresh Keystone answering 403 to its admin)."""
    from keystoneauth1 import exceptions as ks_exc
    for attempt in range(1, attempts + 1):
        try:
            return fn()
        except ks_exc.HttpError as exc:
            if attempt == attempts:
                raise
            say('  %s refused (%s); trying again' % (what, exc))
            time.sleep(delay)


class StackFailed(Exception):
    pass


_CLOCK = {'start': None}
_SAY_LOCK = threading.Lock()


def say(msg):
    """A progress line, stamped with the seconds since `up` began."""
    with _SAY_LOCK:
        if _CLOCK['start'] is None:
            print(msg, flush=True)
        else:
            print('[%5.1fs] %s' % (time.monotonic() - _CLOCK['start'], msg),
                  flush=True)


def in_parallel(*tracks):
    """Run callables in threads; re-raise the first failure.

    Keystone's, Placement's and Nova's schema work only need MariaDB,
    and most of their time is spent waiting on it: overlap them.
    """
    errors = []

    def guard(fn):
        try:
            fn()
        except BaseException as e:  # re-raised in the caller's thread
            errors.append(e)

    threads = [threading.Thread(target=guard, args=(fn,), daemon=True)
               for fn in tracks]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


class Up(object):
    def __init__(self, layout):
        self.layout = layout
        self.payload = None   # setup-libvirt's output (libvirt only)

    # -- process handling ------------------------------------------------
    def _launch(self, service):
        """Start service unless it runs; return its pid."""
        lay = self.layout
        pid = procs.running(lay.run_dir, service.name, lay.marker)
        if pid:
            say('  keep   %-24s pid %d (already running)'
                % (service.name, pid))
            return pid
        if service.kind == 'http':
            # Someone else's server on our port would answer our probes.
            where = urllib.parse.urlsplit(service.url)
            if procs.port_open(where.hostname, where.port):
                raise StackFailed(
                    'port %d of %s is taken by another process (%s); free '
                    'it or use another --state-dir/--base-port'
                    % (where.port, service.name, service.url))
        pid = procs.start(lay.run_dir, service.name, service.argv,
                          lay.log_file(service.name), env=service.env,
                          cwd=lay.state_dir, marker=lay.marker)
        say('  start  %-24s pid %d' % (service.name, pid))
        return pid

    def _wait(self, services, pids, timeout):
        """Wait for all launched services; raise naming those that fail."""
        pending = {s.name: s for s in services if pids.get(s.name)}
        began = time.monotonic()
        deadline = began + timeout
        failed = []
        while pending:
            for name, service in list(pending.items()):
                pid = pids[name]
                if stack_services.ready(service, pid):
                    say('  ready  %-24s %s (%.1fs)' % (
                        name, self._where(service),
                        time.monotonic() - began))
                    del pending[name]
                elif procs.exited(pid):
                    failed.append((service, 'exited'))
                    del pending[name]
            if not pending:
                break
            if time.monotonic() >= deadline:
                failed += [(s, self._silence(s, timeout))
                           for s in pending.values()]
                break
            time.sleep(0.3)
        if failed:
            for service, why in failed:
                log = self.layout.log_file(service.name)
                say('  FAILED %-24s %s; log: %s' % (service.name, why, log))
                tail = procs.log_tail(log, 8)
                if tail:
                    say('\n'.join('         | ' + line
                                  for line in tail.splitlines()))
            raise StackFailed('%s failed to start' % ', '.join(
                s.name for s, _ in failed))

    def _silence(self, service, timeout):
        if service.kind == 'http':
            code = stack_services.answering(service)
            if code is not None:
                return 'answers HTTP %d at %s' % (code, service.url)
            return 'did not answer at %s within %ds' % (service.url,
                                                        timeout)
        return 'no heartbeat in %s.services within %ds' % (service.db,
                                                            timeout)

    def _where(self, service):
        if service.kind == 'http':
            return service.url
        return 'up in %s' % service.db

    def _phase(self, services, timeout):
        pids = {s.name: self._launch(s) for s in services}
        self._wait(services, pids, timeout)
        return pids

    def start_services(self, services, timeout):
        """Start those of services that are not running and wait until
        each is ready (also how ``nova-clone chaos`` restarts one it
        killed)."""
        return self._phase(services, timeout)

    # -- steps -------------------------------------------------------------
    def run(self):
        try:
            return self._run()
        finally:
            _CLOCK['start'] = None

    def _run(self):
        lay = self.layout
        started = _CLOCK['start'] = time.monotonic()
        say('Stack %r, state in %s' % (lay.name, lay.state_dir))
        note = interpreter.advice()
        if note:
            say(note)
        missing = stack_services.missing_dependencies()
        if missing:
            raise StackFailed(
                '%s not installed: a stack needs the stack extra (pip '
                "install -c constraints.txt 'nova-clone[stack]')"
                % ', '.join(missing))
        say('- checking MariaDB and RabbitMQ')
        stack_infra.check()

        say('- databases %s' % ', '.join(lay.db_names()))
        stack_infra.create_databases(lay.db_names())
        stack_nova.write_confs(lay)
        tracks = [self.keystone, self.support, self.nova_databases,
                  self.vhosts]
        if lay.driver == 'libvirt' and lay.computes:
            # Cold daemons probe QEMU for seconds: overlap that too.
            tracks.append(self.libvirt)
        in_parallel(*tracks)
        self.nova()

        path = clouds.write(lay.clouds_yaml, lay.auth_url,
                            lay.admin_password)
        elapsed = time.monotonic() - started
        say('Stack up in %.0fs.' % elapsed)
        _CLOCK['start'] = None  # the summary reads better unstamped
        say('Endpoints: keystone %s  nova %s/v2.1  placement %s' % (
            lay.url('keystone'), lay.url('nova-api'), lay.url('placement')))
        say('Credentials: %s (clouds admin, demo, reader)' % path)
        say('  export OS_CLIENT_CONFIG_FILE=%s' % path)
        say('  openstack --os-cloud admin compute service list')
        say('  openstack --os-cloud demo server list')
        say('Logs in %s; stop with: nova-clone stack down --state-dir %s'
            % (lay.log_dir, lay.state_dir))
        return 0

    def vhosts(self):
        lay = self.layout
        say('- RabbitMQ vhosts %s' % ', '.join(lay.vhosts()))
        stack_infra.create_vhosts(lay.vhosts())

    def _is_running(self, name):
        lay = self.layout
        return procs.running(lay.run_dir, name, lay.marker) is not None

    def keystone(self):
        lay = self.layout
        keystone.write_conf(lay)
        # A running Keystone was initialised by the run that started it.
        if not self._is_running('keystone'):
            say('- keystone: keys, db_sync, bootstrap')
            keystone.initialise(lay)
        self._phase([stack_services.keystone_service(lay)], HTTP_TIMEOUT)
        if keystone.seeded(lay):
            say('- keystone: projects, users, roles, catalog in place')
        else:
            say('- keystone: projects demo/service, users, roles, catalog')
            _with_retries(lambda: keystone.seed(lay), 'keystone seed')
        clouds.write(lay.clouds_yaml, lay.auth_url, lay.admin_password)

    def support(self):
        lay = self.layout
        placement.write_conf(lay)
        if not self._is_running('placement'):
            say('- placement: db sync')
            placement.db_sync(lay)
        for peer in stack_peers.PEERS:
            stack_peers.write_conf(lay, peer)
        say('- placement and the glance/neutron/cinder stand-ins')
        self._phase(stack_services.support_services(lay), HTTP_TIMEOUT)

    def nova_databases(self):
        say('- nova-manage api_db sync, cell_v2 map_cell0/create_cell, '
            'db sync')
        stack_nova.prepare_databases(self.layout, self._cell_names())
        say('- nova databases ready')

    def nova(self):
        lay = self.layout
        say('- nova-api, conductors, scheduler')
        control = self._phase(stack_services.control_services(lay),
                              RPC_TIMEOUT)
        if control.get('nova-api'):
            self.seed()
            if self.payload is not None:
                self.seed_libvirt()
        computes = stack_services.compute_services(lay)
        if computes:
            say('- computes %s' % ', '.join(c.host for c in computes))
        pids = self._phase(computes, RPC_TIMEOUT)
        hosts = [c.host for c in computes if pids.get(c.name)]
        if hosts:
            self.discover(hosts)
            if control.get('nova-api') and lay.driver == 'fake':
                self.check(hosts)

    def seed(self):
        """DevStack-like defaults: flavors, a public image, a shared
        network (the same set as the embedded mode), made through the
        APIs by the admin and only where missing."""
        from nova_clone.deploy import seed_data
        lay = self.layout
        say('- flavors, image %s, network %s' % (
            seed_data.IMAGE_NAME, seed_data.NETWORK_NAME))
        try:
            seed_data.seed(self._admin_session(), self._api_urls())
        except seed_data.SeedError as e:
            raise StackFailed('seeding through the APIs: %s (see %s)' % (
                e, lay.log_file('nova-api')))

    def libvirt(self):
        lay = self.layout
        say('- libvirtd for %s (setup-libvirt, state in %s)' % (
            ', '.join(lay.compute_hosts()), stack_libvirt.state_dir(lay)))
        try:
            self.payload = stack_libvirt.start(lay)
        except stack_libvirt.LibvirtSetupError as e:
            raise StackFailed('libvirt: %s' % e)
        say('  libvirtd up: %s' % ', '.join(
            v for k, v in sorted(self.payload.items())
            if k.startswith('LIBVIRT_URI_')))

    def _admin_session(self):
        from keystoneauth1 import session
        from keystoneauth1.identity import v3
        lay = self.layout
        auth = v3.Password(auth_url=lay.auth_url, username='admin',
                           password=lay.admin_password,
                           project_name='admin', user_domain_id='default',
                           project_domain_id='default')
        return session.Session(auth=auth)

    def _api_urls(self):
        lay = self.layout
        return {'compute': lay.url('nova-api') + '/v2.1',
                'image': lay.url('glance'),
                'network': lay.url('neutron')}

    def seed_libvirt(self):
        from nova_clone.deploy import seed_data
        lay = self.layout
        say('- guest images %s (ami), %s (aki), %s (ari), flavor %s' % (
            stack_libvirt.MACHINE_IMAGE, stack_libvirt.KERNEL_IMAGE,
            stack_libvirt.RAMDISK_IMAGE, stack_libvirt.FLAVOR[0]))
        try:
            stack_libvirt.seed(self._admin_session(), self._api_urls(),
                               self.payload)
        except (seed_data.SeedError,
                stack_libvirt.LibvirtSetupError) as e:
            raise StackFailed('seeding the libvirt guest: %s (see %s)' % (
                e, lay.log_file('glance')))

    def check(self, hosts):
        """Boot and delete a server per compute, as the last step."""
        from nova_clone.stack import smoke as stack_smoke
        lay = self.layout
        say('- check: boot %d servers side by side, then delete them'
            % len(hosts))
        started = time.monotonic()
        try:
            placed = stack_smoke.run(self._admin_session(), self._api_urls(),
                                     len(hosts))
        except stack_smoke.SmokeFailed as e:
            raise StackFailed('the stack is running but cannot boot: %s '
                              '(logs in %s)' % (e, lay.log_dir))
        say('  ACTIVE on %s and deleted in %.1fs' % (
            ', '.join('%s (%d)' % kv for kv in sorted(placed.items())),
            time.monotonic() - started))

    def _cell_names(self):
        try:
            rows = stack_infra.query(self.layout.db_name('nova_api'),
                                     'SELECT name FROM cell_mappings')
        except Exception:
            return set()
        return {row[0] for row in rows}

    def discover(self, hosts):
        """Map the computes into their cells (cell_v2 discover_hosts)."""
        lay = self.layout
        say('- nova-manage cell_v2 discover_hosts')
        api_db = lay.db_name('nova_api')

        def mapped():
            try:
                rows = stack_infra.query(api_db,
                                         'SELECT host FROM host_mappings')
            except Exception:
                return False
            return set(hosts) <= {row[0] for row in rows}

        def attempt():
            if mapped():
                return True
            stack_nova.nova_manage(lay, 'cell_v2', 'discover_hosts',
                                   check=False)
            return mapped()

        # Computes create their compute_nodes row shortly after their
        # service row; retry until every host is mapped.
        if not procs.wait_until(attempt, DISCOVER_TIMEOUT, interval=1.0):
            raise StackFailed('computes %s not mapped to a cell after %ds; '
                              'see %s' % (', '.join(hosts), DISCOVER_TIMEOUT,
                                          lay.log_file('nova-manage')))
        say('  mapped %s' % ', '.join(hosts))


def resolve_layout(args):
    """The saved layout of the stack, or a new one from the options."""
    state_dir = args.state_dir or stack_layout.default_state_dir(args.name)
    layout = stack_layout.StackLayout.load(state_dir)
    if layout is None:
        layout = stack_layout.StackLayout.create(
            args.name, state_dir, args.host_ip, args.base_port,
            args.computes, args.cells, args.driver)
        _refuse_foreign_databases(layout)
    else:
        if args.base_port and args.base_port != min(layout.ports.values()):
            say('note: keeping the ports chosen on the first run (%s)'
                % ', '.join('%s %d' % kv for kv in layout.ports.items()))
        if args.name != layout.name:
            say('note: %s holds stack %r; using that name'
                % (state_dir, layout.name))
        if args.host_ip != layout.host_ip:
            say('note: keeping host IP %s chosen on the first run'
                % layout.host_ip)
        # Sizes and driver may change between runs; ports and names stay.
        layout.computes = args.computes
        layout.cells = max(args.cells, layout.cells)
        layout.driver = args.driver
    layout.save()
    layout.debug = getattr(args, 'debug', False)
    return layout


def _refuse_foreign_databases(layout):
    """A new state directory, yet databases of its stack name exist: a
    stack elsewhere (or a ``down`` without ``--purge``) left them, and
    their Keystone keeps passwords this directory does not know.  Stop
    before starting or dropping anything."""
    try:
        found = stack_infra.existing_databases(layout.db_names())
    except Exception:
        return  # MariaDB does not answer: the infrastructure check says so
    if not found:
        return
    raise StackFailed(
        '%s holds no stack, yet the databases %s of a stack named %r '
        'exist (left by that stack in another state directory, or by '
        '`stack down` without --purge). Start that stack with its own '
        '--state-dir, choose another --name, or, if their data is not '
        'needed, drop them first: mysql -u root -e \'%s\'' % (
            layout.state_dir, ', '.join(found), layout.name,
            ' '.join('DROP DATABASE `%s`;' % name for name in found)))


def _error(msg):
    # Unstamped, so the one line that matters is easy to spot and grep.
    print(msg if msg.startswith('details') else 'error: ' + msg, flush=True)


def run(args):
    if args.computes < 0 or args.cells < 1:
        _error('--computes must be >= 0 and --cells >= 1')
        return 2
    try:
        layout = resolve_layout(args)
        return Up(layout).run()
    except stack_layout.LayoutError as e:
        _error('%s' % e)
        return 2
    except stack_infra.InfraError as e:
        _error('%s' % e)
        return 1
    except (StackFailed, keystone.KeystoneError, placement.PlacementError,
            stack_nova.NovaManageError) as e:
        _error('%s' % e)
        return 1
    except Exception as e:  # keystoneauth/HTTP/DB surprises: no traceback
        _error('%s: %s' % (e.__class__.__name__, e))
        _error('details in the logs under %s' % os.path.join(
            args.state_dir or stack_layout.default_state_dir(args.name),
            'logs'))
        return 1

