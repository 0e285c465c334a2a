"""The composition root of the embedded mode: one process, a whole cloud.

Start order follows the dependencies: listeners (all ports bound first),
identity, Placement, the Glance/Neutron/Cinder stand-ins, nova's databases
and cell mappings, the super and cell conductors, the scheduler, the
computes, host discovery, nova-api, then the first-start seed.  Every
service is the same code the multi-service stack runs; only the wiring
differs: SQLite files, oslo.messaging's in-process ``fake://`` transport,
and one nova CONF shared by every service (per-host values are passed to
each compute explicitly).

As in the stack, computes reach the cell database only through the
conductor: each compute service runs with the conductor RPC API as its
object indirection API (set per service, see nova_clone.objects.base), so
its remotable object calls travel over RPC to a conductor while the
conductors, the scheduler and the API in the same process keep direct
database access.
"""

import contextlib
import fcntl
import os
import threading
import time

from oslo_log import log as logging

from nova_clone.deploy import clouds_yaml
from nova_clone.embedded import config as embedded_config
from nova_clone.embedded import nova as embedded_nova
from nova_clone.embedded import peers as embedded_peers
from nova_clone.embedded import ports as embedded_ports

LOG = logging.getLogger(__name__)

LISTEN_ORDER = ('api', 'identity', 'placement', 'glance', 'neutron',
                'cinder')
SUPER_CONDUCTOR_HOST = 'super-conductor'
CELL_CONDUCTOR_HOST = 'cell1-conductor'
SCHEDULER_HOST = 'scheduler'

# The fake:// transport the embedded services of this process share; it
# outlives a cloud so that a later one (tests) can reuse it.
_TRANSPORT = None


StartError = embedded_config.StartError


def clouds_entries(cloud_name, identity_url, creds):
    """The clouds.yaml entries of a cloud: NAME (admin), NAME-demo."""
    region = embedded_config.REGION
    return {
        cloud_name: clouds_yaml.entry(identity_url, 'admin',
                                      creds['admin_password'], 'admin',
                                      region),
        cloud_name + '-demo': clouds_yaml.entry(
            identity_url, 'demo', creds['demo_password'], 'demo', region),
    }


class EmbeddedCloud(embedded_peers.PeersMixin, embedded_nova.NovaMixin):
    """Every service of a cloud, in this process.

    ``ports`` maps api/identity/placement/glance/neutron/cinder to a port
    (0 = any free one).  ``conf_overrides`` is {group: {option: value}}
    applied to nova's CONF after the embedded wiring (tests use it for
    [fake_driver], vif_plugging_timeout, ...); ``neutron_overrides`` goes
    to the Neutron stand-in's [peers] options (send_vif_plugged, ...).
    """

    def __init__(self, state_dir, host='127.0.0.1', ports=None, computes=2,
                 log_file=None, debug=False, config_files=(),
                 auth_strategy='keystone', conf_overrides=None,
                 neutron_overrides=None, setup_logging=True, seed=True):
        self.state_dir = os.path.abspath(state_dir)
        self.host = host
        self.ports = dict.fromkeys(LISTEN_ORDER, 0)
        self.ports.update(ports or {})
        self.num_computes = computes
        self.log_file = log_file or os.path.join(self.state_dir,
                                                 'nova-clone.log')
        self.debug = debug
        self.config_files = list(config_files or ())
        self.auth_strategy = auth_strategy
        self.conf_overrides = conf_overrides or {}
        self.neutron_overrides = neutron_overrides or {}
        self.setup_logging = setup_logging
        self.do_seed = seed
        self.layout = embedded_config.Layout(self.state_dir)
        from nova_clone.conf import CONF
        self._overrides = embedded_config.Overrides(CONF)
        self.creds = None
        self.urls = {}
        self.listeners = {}
        self.slots = {}
        self.peer_confs = {}
        self.peer_stores = []
        self.neutron_app = None
        self.neutron_notifier = None
        self.services = []
        self.computes = {}
        self.seed_names = {}
        self.cell_mappings = {}
        self.timings = []
        self._lock_file = None
        self._started = False
        self._stop_lock = threading.Lock()

    # -- public helpers -------------------------------------------------

    @property
    def compute_hosts(self):
        return list(self.computes)

    def endpoints(self):
        """(label, url) of every HTTP service, for the banner."""
        return [
            ('compute API', self.urls.get('compute')),
            ('identity', self.urls.get('identity')),
            ('placement', self.urls.get('placement')),
            ('image', self.urls.get('image')),
            ('network', self.urls.get('network')),
            ('volume', self.urls.get('volume_base')),
        ]

    def admin_session(self, user='admin', project='admin'):
        """A keystoneauth1 session for a bootstrap user of this cloud."""
        from keystoneauth1 import session as ks_session
        from keystoneauth1.identity import v3
        auth = v3.Password(
            auth_url=self.urls['identity'], username=user,
            password=self.creds['admin_password'], project_name=project,
            user_domain_name=embedded_config.DOMAIN,
            project_domain_name=embedded_config.DOMAIN)
        return ks_session.Session(auth=auth)

    def write_clouds_yaml(self, path=None):
        """Write the clouds.yaml entries; returns the paths written."""
        from nova_clone.embedded.cli import CLOUD_NAME
        clouds = clouds_entries(CLOUD_NAME, self.urls['identity'],
                                self.creds)
        written = []
        local = os.path.join(self.state_dir, 'clouds.yaml')
        if clouds_yaml.merge(local, clouds):
            written.append(local)
        target = os.path.abspath(os.path.expanduser(
            path or clouds_yaml.USER_CLOUDS_YAML))
        if target != local and clouds_yaml.merge(target, clouds):
            written.append(target)
        return written

    # -- start ----------------------------------------------------------

    def start(self):
        os.makedirs(self.state_dir, exist_ok=True)
        os.makedirs(self.layout.instances_path, exist_ok=True)
        self._take_lock()
        self._started = True
        self._step('listen', self._listen)
        self._step('config', self._configure)
        # Sessions cached in this process were made for another
        # configuration (an earlier cloud, a test's own peers).
        self._step('sessions', _forget_sessions)
        self._step('identity', self._start_identity)
        self._step('placement', self._start_placement)
        self._step('peers', self._start_peers)
        self._step('databases', self._prepare_databases)
        self._step('conductors+scheduler', self._start_control_services)
        self._step('computes', self._start_computes)
        self._step('discover hosts', self._discover_hosts)
        self._step('nova-api', self._start_api)
        if self.do_seed:
            self._step('seed', self._seed)
        LOG.info('Embedded cloud ready: %s', ', '.join(
            '%s %.2fs' % t for t in self.timings))
        return self

    def _step(self, name, fn):
        """Run one start-up step and time it."""
        started = time.monotonic()
        try:
            fn()
        except ImportError as exc:  # a dependency not installed
            raise StartError('%s cannot start: %s' % (name, exc))
        self.timings.append((name, time.monotonic() - started))

    def _take_lock(self):
        path = os.path.join(self.state_dir, 'lock')
        f = open(path, 'a+')
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            f.seek(0)
            owner = f.read().strip() or 'another process'
            f.close()
            raise StartError('state directory %s is in use by a running '
                             'nova-clone up (pid %s); choose another with '
                             '--state-dir' % (self.state_dir, owner))
        f.seek(0)
        f.truncate()
        f.write(str(os.getpid()))
        f.flush()
        self._lock_file = f

    def _listen(self):
        from nova_clone.embedded.cli import port_option
        from nova_clone import wsgi_server
        for name in LISTEN_ORDER:
            slot = embedded_ports.LateApp(name)
            try:
                handle = wsgi_server.serve(slot, self.host, self.ports[name],
                                           name=name)
            except wsgi_server.PortInUse as exc:
                raise StartError(
                    'port %d on %s is already in use (%s); choose another '
                    'with %s' % (exc.port, self.host, name,
                                 port_option(name)))
            except OSError as exc:
                raise StartError('cannot listen on %s:%s for %s: %s' % (
                    self.host, self.ports[name], name, exc.strerror or exc))
            self.slots[name] = slot
            self.listeners[name] = handle
            self.ports[name] = handle.port
        url = {name: handle.url for name, handle in self.listeners.items()}
        self.urls = {
            'identity': url['identity'],
            'identity_v3': url['identity'] + '/v3',
            'compute': url['api'] + '/v2.1',
            'placement': url['placement'],
            'image': url['glance'],
            'network': url['neutron'],
            'volumev3': url['cinder'] + '/v3/%(project_id)s',
            'volume_base': url['cinder'],
        }

    def _configure(self):
        from nova_clone.conf import CONF
        self.creds = embedded_config.load_credentials(self.layout)
        # Overrides first: parsing checks required options (the service
        # users' auth_url) have a value.
        self._apply_conf()
        if self.setup_logging:
            embedded_config.parse(CONF, self.config_files,
                                  log_file=self.log_file, debug=self.debug)
        elif CONF._namespace is None:
            CONF([], project='nova', default_config_files=[],
                 default_config_dirs=[])

    def _apply_conf(self):
        conf = self._overrides
        embedded_config.apply(conf, self.layout, self.urls, self.creds,
                              host=self.host, api_port=self.ports['api'],
                              auth_strategy=self.auth_strategy)
        for group, values in self.conf_overrides.items():
            for key, value in values.items():
                conf.set_override(key, value,
                                  group=None if group == 'DEFAULT' else group)

    def reassert_config(self):
        """Put the embedded wiring back if other code changed CONF.

        Tests sharing the process may override nova's CONF; the running
        cloud needs its own connections back before it is used again.
        """
        from nova_clone.conf import CONF
        if (CONF.api_database.connection == self.layout.api_db and
                CONF.database.connection == self.layout.cell1_db and
                CONF.api.auth_strategy == self.auth_strategy):
            return False
        LOG.warning('nova CONF was changed under the running cloud; '
                    're-applying the embedded configuration')
        self._apply_conf()
        from nova_clone.db.api import api as api_db
        from nova_clone.db.main import api as main_db
        api_db.reset()
        main_db.reset()
        return True

    def _start_control_services(self):
        from nova_clone.conf import CONF
        from nova_clone import rpc
        from nova_clone import service
        global _TRANSPORT
        if rpc.TRANSPORT is not None and rpc.TRANSPORT is not _TRANSPORT:
            # Made by other code with another transport_url: not ours.
            rpc.cleanup()
        rpc.init(CONF)
        _TRANSPORT = rpc.TRANSPORT
        from nova_clone.conductor import manager as conductor_manager
        # One process, one configuration: say which conductor settles
        # what a stopped conductor left (both see [api_database]).
        for host, binary, manager in (
                (SUPER_CONDUCTOR_HOST, 'nova-conductor',
                 conductor_manager.ConductorManager(
                     host=SUPER_CONDUCTOR_HOST, super_conductor=True)),
                (CELL_CONDUCTOR_HOST, 'nova-conductor',
                 conductor_manager.ConductorManager(
                     host=CELL_CONDUCTOR_HOST, super_conductor=False)),
                (SCHEDULER_HOST, 'nova-scheduler', None)):
            svc = service.Service.create(host=host, binary=binary,
                                         manager=manager)
            svc.start()
            self.services.append(svc)

    def _seed(self):
        from nova_clone.deploy import seed_data
        urls = dict(self.urls)
        self.seed_names = seed_data.seed(self.admin_session(), urls)

    # -- stop -----------------------------------------------------------

    def stop(self):
        with self._stop_lock:
            if not self._started:
                return
            self._started = False
            self._stop()

    def _stop(self):
        api = self.listeners.pop('api', None)
        if api is not None:
            _quietly(api.stop)
        hosts = list(self.computes)
        for host in hosts:
            _quietly(self.stop_compute, host)
        if hosts:
            from nova_clone.embedded import guests as embedded_guests
            from nova_clone.virt import fake
            _quietly(embedded_guests.save, self.state_dir, hosts)
            fake.reset_hypervisors()
        for svc in reversed(self.services):
            _quietly(svc.stop, timeout=embedded_nova.STOP_TIMEOUT)
        self.services = []
        for handle in self.listeners.values():
            _quietly(handle.stop)
        self.listeners = {}
        _quietly(self._release_process_state)
        if self.neutron_notifier is not None:
            _quietly(self.neutron_notifier.stop)
            self.neutron_notifier = None
        for store in self.peer_stores:
            _quietly(store.dispose)
        self.peer_stores = []
        if self._lock_file is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(self._lock_file, fcntl.LOCK_UN)
            self._lock_file.close()
            self._lock_file = None

    def _release_process_state(self):
        """Forget engines and sessions, so a later cloud starts afresh.

        The fake:// transport stays: RPC clients built at import time (the
        API's) hold it, and a later cloud in this process reuses it.
        """
        from nova_clone import context as nova_context
        from nova_clone.db.api import api as api_db
        from nova_clone.db.main import api as main_db
        from nova_clone.api.controllers import servers
        from nova_clone import client_auth
        nova_context.forget_cells()
        api_db.reset()
        main_db.reset()
        # Service-user sessions hold tokens of this cloud's identity, the
        # process-wide compute API clients bound to this cloud's peers, and
        # CONF this cloud's endpoints.
        client_auth.reset()
        servers.set_compute_api(None)
        self._overrides.clear()


def _forget_sessions():
    from nova_clone import client_auth
    client_auth.reset()


def _quietly(fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except Exception:
        LOG.exception('Error while stopping %s', getattr(fn, '__name__', fn))
