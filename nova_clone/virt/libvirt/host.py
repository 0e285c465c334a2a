"""The connection to libvirtd and the thread that runs libvirt's events.

libvirt delivers domain events (and notices a dead connection) only while
someone runs its event loop; a native daemon thread does that here.  The
connection is opened lazily and re-opened when the daemon went away.
"""

import threading

from oslo_log import log as logging

from nova_clone import exception

LOG = logging.getLogger(__name__)

_EVENT_IMPL_LOCK = threading.Lock()
_EVENT_THREAD = None

_LIFECYCLE_NAMES = {0: 'defined', 1: 'undefined', 2: 'started',
                    3: 'suspended', 4: 'resumed', 5: 'stopped',
                    6: 'shutdown', 7: 'pmsuspended', 8: 'crashed'}


def import_libvirt():
    """The libvirt binding, or a clear error when it is not installed."""
    try:
        import libvirt
    except ImportError:
        raise exception.InternalError(
            err='The libvirt driver needs the libvirt Python binding: '
                'pip install "nova-clone[libvirt]" (libvirt-python, built '
                'against the libvirt-dev headers)')
    return libvirt


def _start_event_loop(libvirt):
    """Register libvirt's default event implementation once per process.

    It must be registered before the first connection is opened, and
    libvirt allows only one implementation per process.
    """
    global _EVENT_THREAD
    with _EVENT_IMPL_LOCK:
        if _EVENT_THREAD is not None:
            return
        libvirt.virEventRegisterDefaultImpl()

        def run():
            while True:
                try:
                    libvirt.virEventRunDefaultImpl()
                except Exception:
                    LOG.exception('libvirt event loop iteration failed')

        _EVENT_THREAD = threading.Thread(target=run, daemon=True,
                                         name='libvirt-events')
        _EVENT_THREAD.start()


class Host:
    """One libvirt connection, shared by the driver's threads."""

    def __init__(self, uri, lifecycle_event_handler=None):
        self.uri = uri
        self._lifecycle_event_handler = lifecycle_event_handler
        self._conn = None
        self._lock = threading.Lock()
        self.libvirt = None

    def initialize(self):
        self.libvirt = import_libvirt()
        # Errors reach us as exceptions; libvirt's own stderr printing of
        # every error (even an expected "no such domain") is only noise.
        self.libvirt.registerErrorHandler(lambda ctx, err: None, None)
        _start_event_loop(self.libvirt)
        self.get_connection()

    def _connect(self):
        libvirt = self.libvirt
        try:
            conn = libvirt.open(self.uri)
        except libvirt.libvirtError as exc:
            raise exception.HypervisorUnavailable(
                message='Connection to libvirt at %s failed: %s' %
                        (self.uri, exc.get_error_message()))
        try:
            conn.domainEventRegisterAny(
                None, libvirt.VIR_DOMAIN_EVENT_ID_LIFECYCLE,
                self._lifecycle_event, None)
            conn.registerCloseCallback(self._closed, None)
        except libvirt.libvirtError as exc:
            LOG.warning('Cannot register libvirt callbacks on %s: %s',
                        self.uri, exc)
        LOG.info('Connected to libvirt %s at %s', self.lib_version(conn),
                 self.uri)
        return conn

    def get_connection(self):
        with self._lock:
            if self._conn is None or not self._alive(self._conn):
                self._conn = self._connect()
            return self._conn

    def _alive(self, conn):
        try:
            return conn.isAlive() == 1
        except self.libvirt.libvirtError:
            return False

    def _closed(self, conn, reason, opaque):
        LOG.warning('Connection to libvirt at %s closed (reason %s)',
                    self.uri, reason)
        with self._lock:
            if self._conn is conn:
                self._conn = None

    def _lifecycle_event(self, conn, dom, event, detail, opaque):
        LOG.debug('libvirt lifecycle event: domain %s %s (detail %s)',
                  dom.UUIDString(), _LIFECYCLE_NAMES.get(event, event),
                  detail)
        if self._lifecycle_event_handler:
            try:
                self._lifecycle_event_handler(dom.UUIDString(), event)
            except Exception:
                LOG.exception('Lifecycle event handler failed')

    def close(self):
        with self._lock:
            conn, self._conn = self._conn, None
        if conn is not None:
            try:
                # A close we asked for is no broken connection.
                conn.unregisterCloseCallback()
                conn.close()
            except self.libvirt.libvirtError:
                pass

    @staticmethod
    def lib_version(conn):
        version = conn.getLibVersion()
        return '%d.%d.%d' % (version // 1000000, version // 1000 % 1000,
                             version % 1000)

    # -- domains -----------------------------------------------------------

    def get_domain(self, instance):
        """The virDomain of ``instance``; InstanceNotFound if undefined."""
        libvirt = self.libvirt
        try:
            return self.get_connection().lookupByUUIDString(instance.uuid)
        except libvirt.libvirtError as exc:
            if exc.get_error_code() == libvirt.VIR_ERR_NO_DOMAIN:
                raise exception.InstanceNotFound(instance_id=instance.uuid)
            raise

    def list_domains(self):
        return self.get_connection().listAllDomains()

    # -- host facts --------------------------------------------------------

    def get_capabilities(self):
        return self.get_connection().getCapabilities()

    def get_info(self):
        """[arch, memory MiB, cpus, MHz, nodes, sockets, cores, threads]."""
        return self.get_connection().getInfo()

    def get_hostname(self):
        return self.get_connection().getHostname()

    def get_hypervisor_version(self):
        return self.get_connection().getVersion()
