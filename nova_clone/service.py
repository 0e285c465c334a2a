"""The runner every daemon shares: RPC servers, heartbeat, periodic tasks.

``Service.create(binary=..., topic=..., manager=...)`` builds a service;
``start()`` records it in the services table (nova-compute does so through
the conductor, since remotable object calls travel there), serves its
manager over RPC on ``Target(topic, server=host)``, heartbeats and runs the
manager's periodic tasks.  ``serve()`` + ``wait()`` run services until
SIGTERM/SIGINT, then stop them gracefully.

A service created with ``indirection_api`` (the embedded mode's computes)
does all of its work -- start-up, RPC dispatch, periodic tasks, heartbeat,
cleanup -- with that object indirection API, whatever the process-wide one
is; the other services of the same process keep theirs.
"""

import functools
import inspect
import random
import signal
import threading

import oslo_messaging as messaging
from oslo_log import log as logging

from nova_clone.conf import CONF
from nova_clone import context as nova_context
from nova_clone import exception
from nova_clone import rpc
from nova_clone import servicegroup
from nova_clone import stop_signal
from nova_clone import threads

LOG = logging.getLogger(__name__)


def default_manager(binary):
    """The manager class a Nova daemon serves.

    Imported on demand: each manager pulls in its whole service.
    """
    if binary == 'nova-compute':
        from nova_clone.compute import manager as compute_manager
        return compute_manager.ComputeManager
    if binary == 'nova-conductor':
        from nova_clone.conductor import manager as conductor_manager
        return conductor_manager.ConductorManager
    if binary == 'nova-scheduler':
        from nova_clone.scheduler import manager as scheduler_manager
        return scheduler_manager.SchedulerManager
    raise exception.InvalidInput(
        reason='no manager known for binary %s' % binary)

# Topics a service serves besides its main one.  The compute's second
# server keeps answering peer computes while the main one drains.
SERVICE_EXTRA_TOPICS = {
    'compute': ['compute-alt'],
}

# Shortest wait of oslo.messaging's AMQP consumer loops (RPC listeners and
# the reply waiter of calls) after a message.  The library starts at 1 ms
# and doubles up to 5 s, so each message is followed by a burst of reads
# that time out only to flush queued acks, about a quarter of a millisecond
# of CPU each.  A message still wakes a loop at once; an RPC server's ack
# may now wait up to this long (no prefetch limit is set, so no delivery
# waits for it, and a graceful stop still flushes them).
AMQP_IDLE_POLL_MIN = 0.1


def _relax_amqp_idle_polling():
    try:
        from oslo_messaging._drivers import amqpdriver
    except ImportError:
        return
    # A private constant: a library without it is left as it is.
    current = getattr(amqpdriver, 'ACK_REQUEUE_EVERY_SECONDS_MIN', None)
    if current is not None and current < AMQP_IDLE_POLL_MIN:
        amqpdriver.ACK_REQUEUE_EVERY_SECONDS_MIN = AMQP_IDLE_POLL_MIN


class BaseRPCAPI:
    """The ``baseapi`` namespace every service answers (ping)."""

    target = messaging.Target(namespace='baseapi', version='1.1')

    def __init__(self, service_name, backdoor_port=None):
        self.service_name = service_name
        self.backdoor_port = backdoor_port

    def ping(self, context, arg):
        return {'service': self.service_name, 'arg': arg}

    def get_backdoor_port(self, context):
        return self.backdoor_port


def _load_manager(manager, host, binary):
    if manager is None:
        manager = default_manager(binary)
    if isinstance(manager, type):
        manager = manager(host=host)
    return manager


class Service:
    """One running nova service: a manager served over RPC."""

    def __init__(self, host, binary, topic, manager, report_interval=None,
                 periodic_enable=None, periodic_fuzzy_delay=None,
                 periodic_interval_max=None, extra_topics=None,
                 servicegroup_api=None, indirection_api=None):
        self.host = host
        # None: the process-wide indirection API applies.
        self.indirection_api = indirection_api
        self.binary = binary
        self.topic = topic
        self.manager = _load_manager(manager, host, binary)
        self.report_interval = report_interval
        self.periodic_enable = (CONF.periodic_enable
                                if periodic_enable is None
                                else periodic_enable)
        self.periodic_fuzzy_delay = (CONF.periodic_fuzzy_delay
                                     if periodic_fuzzy_delay is None
                                     else periodic_fuzzy_delay)
        self.periodic_interval_max = (periodic_interval_max or
                                      CONF.periodic_interval)
        if extra_topics is None:
            extra_topics = SERVICE_EXTRA_TOPICS.get(topic, [])
        self.extra_topics = list(extra_topics)
        self.servicegroup_api = servicegroup_api or servicegroup.API(
            report_interval=report_interval)
        self.service_ref = None
        self.service_id = None
        self.rpcserver = None
        self.alt_rpcservers = []
        self._heartbeat = None
        self._periodic_thread = None
        self._stopping = threading.Event()
        self._stopped = threading.Event()

    @classmethod
    def create(cls, host=None, binary=None, topic=None, manager=None,
               report_interval=None, periodic_enable=None,
               periodic_fuzzy_delay=None, periodic_interval_max=None,
               extra_topics=None, indirection_api=None):
        host = host or CONF.host
        if not binary:
            raise exception.InvalidInput(reason='a service needs a binary')
        if not topic:
            topic = binary.rpartition('nova-')[2]
        return cls(host, binary, topic, manager,
                   report_interval=report_interval,
                   periodic_enable=periodic_enable,
                   periodic_fuzzy_delay=periodic_fuzzy_delay,
                   periodic_interval_max=periodic_interval_max,
                   extra_topics=extra_topics,
                   indirection_api=indirection_api)

    def __repr__(self):
        return '<%s: host=%s binary=%s topic=%s>' % (
            type(self).__name__, self.host, self.binary, self.topic)

    # -- this service's object indirection ------------------------------------

    def _in_own_context(self, func):
        """``func`` wrapped to run with this service's indirection API."""
        if self.indirection_api is None:
            return func
        from nova_clone.objects import base as objects_base
        api = self.indirection_api

        @functools.wraps(func)
        def run(*args, **kwargs):
            return objects_base.run_with_indirection_api(api, func, *args,
                                                         **kwargs)
        return run

    def _endpoints(self):
        endpoints = [self.manager,
                     BaseRPCAPI(self.manager.service_name,
                                self.manager.backdoor_port)]
        endpoints.extend(self.manager.additional_endpoints)
        if self.indirection_api is None:
            return endpoints
        # The RPC executor's worker threads are shared and carry no
        # context of ours: each dispatched call sets it itself.
        return [_ContextEndpoint(endpoint, self._in_own_context)
                for endpoint in endpoints]

    # -- starting -----------------------------------------------------------

    def start(self):
        self._in_own_context(self._start)()

    def _start(self):
        from nova_clone import objects
        from nova_clone import version
        LOG.info('Starting %s node (version %s) on host %s', self.topic,
                 version.version_string(), self.host)
        _relax_amqp_idle_polling()
        ctxt = nova_context.get_admin_context()
        if objects.base.NovaObject.indirection_api is not None:
            # Data comes through the conductor: wait until one answers.
            from nova_clone import conductor
            conductor.API().wait_until_ready(ctxt)
        self.service_ref = objects.Service.get_by_host_and_binary(
            ctxt, self.host, self.binary)
        self.manager.init_host(self.service_ref)
        if self.service_ref is not None:
            self._update_service_ref()
        else:
            self.service_ref = self._create_service_ref(ctxt)
        self.service_id = self.service_ref.id
        self.manager.pre_start_hook(self.service_ref)

        endpoints = self._endpoints()
        LOG.debug('Creating RPC server for service %s', self.topic)
        self.rpcserver = rpc.get_server(
            messaging.Target(topic=self.topic, server=self.host), endpoints)
        self.rpcserver.start()
        for topic in self.extra_topics:
            server = rpc.get_server(
                messaging.Target(topic=topic, server=self.host), endpoints)
            server.start()
            self.alt_rpcservers.append(server)

        self.manager.post_start_hook()
        LOG.debug('Join ServiceGroup membership for this service %s',
                  self.topic)
        self._heartbeat = self.servicegroup_api.join(
            self.host, self.topic, self)
        if self.periodic_enable:
            self._periodic_thread = threads.spawn(
                self._run_periodic_tasks, name='periodic-%s' % self.binary)

    def _create_service_ref(self, ctxt):
        from nova_clone import objects
        service = objects.Service(ctxt)
        service.host = self.host
        service.binary = self.binary
        service.topic = self.topic
        service.report_count = 0
        try:
            service.create()
        except (exception.ServiceTopicExists,
                exception.ServiceBinaryExists):
            # A sibling worker of this service won the race.
            service = objects.Service.get_by_host_and_binary(
                ctxt, self.host, self.binary)
        return service

    def _update_service_ref(self):
        from nova_clone.objects import service as service_obj
        if self.service_ref.version != service_obj.SERVICE_VERSION:
            LOG.info('Updating service version of %s on %s from %s to %s',
                     self.binary, self.host, self.service_ref.version,
                     service_obj.SERVICE_VERSION)
            self.service_ref.version = service_obj.SERVICE_VERSION
            self.service_ref.save()

    def _run_periodic_tasks(self):
        if self.periodic_fuzzy_delay and self._stopping.wait(
                random.randint(0, self.periodic_fuzzy_delay)):
            return
        while not self._stopping.is_set():
            idle = self.periodic_interval_max
            try:
                ctxt = nova_context.get_admin_context()
                idle = self.manager.periodic_tasks(ctxt, raise_on_error=False)
            except Exception:
                LOG.exception('Error during %s periodic tasks', self.binary)
            if idle is None:
                idle = self.periodic_interval_max
            self._stopping.wait(max(0, min(idle, self.periodic_interval_max)))

    # -- stopping -----------------------------------------------------------

    def stop(self, timeout=None):
        """Stop taking work, finish in-flight work, then stop beating."""
        if self._stopped.is_set():
            return
        if timeout is None:
            timeout = CONF.graceful_shutdown_timeout
        self._stopping.set()
        LOG.info('Stopping %s on %s (waiting up to %ss for in-flight work)',
                 self.binary, self.host, timeout)
        if self.rpcserver is not None:
            _stop_server(self.rpcserver, timeout)
        if self._periodic_thread is not None:
            self._periodic_thread.join(timeout)
        try:
            self._in_own_context(self.manager.cleanup_host)()
        except Exception:
            LOG.exception('Service error occurred during cleanup_host')
        for server in self.alt_rpcservers:
            _stop_server(server, timeout)
        if self._heartbeat is not None:
            self._heartbeat.stop(timeout)
        self._stopped.set()
        LOG.info('Stopped %s on %s', self.binary, self.host)

    def wait(self):
        self._stopped.wait()

    def reset(self):
        self.manager.reset()


class _ContextEndpoint:
    """An RPC endpoint whose methods run through ``wrap``.

    The dispatcher reads ``target`` and looks methods up by name; both
    pass through, methods come back wrapped.
    """

    def __init__(self, endpoint, wrap):
        self._endpoint = endpoint
        self._wrap = wrap

    def __getattr__(self, name):
        value = getattr(self._endpoint, name)
        # Only methods: a Target is callable too and must pass as is.
        if inspect.isroutine(value):
            return self._wrap(value)
        return value


def _stop_server(server, timeout):
    try:
        server.stop()
    except Exception:
        LOG.exception('Failed to stop RPC server')
        return
    waiter = threads.spawn(server.wait)
    waiter.join(timeout)
    if waiter.is_alive():
        LOG.warning('In-flight RPC work did not finish within %s seconds; '
                    'stopping anyway.', timeout)


class ServiceLauncher:
    """Runs services in this process until a stop signal arrives."""

    def __init__(self):
        self.services = []
        self._stop = stop_signal.StopSignal()
        self._starting = False

    def launch_service(self, service):
        self.services.append(service)
        self._starting = True
        try:
            service.start()
        finally:
            self._starting = False

    def _handle_stop(self, signo, frame):
        self._stop.handle(signo, frame)
        if self._starting:
            # Still starting (e.g. waiting for the conductor): give up now.
            raise KeyboardInterrupt()

    def _handle_hup(self, signo, frame):
        for service in self.services:
            service.reset()

    def install_signal_handlers(self):
        for signo in stop_signal.STOP_SIGNALS:
            signal.signal(signo, self._handle_stop)
        if hasattr(signal, 'SIGHUP'):
            signal.signal(signal.SIGHUP, self._handle_hup)

    def request_stop(self):
        self._stop.request()

    def wait(self):
        self._stop.wait()
        if self._stop.name():
            LOG.info('Caught %s, stopping', self._stop.name())
        self.stop()

    def stop(self):
        for service in reversed(self.services):
            service.stop()


_launcher = None


def serve(server):
    """Start ``server`` in this process, stopping it on SIGTERM/SIGINT."""
    global _launcher
    if _launcher is not None:
        raise RuntimeError('serve() can only be called once')
    _launcher = ServiceLauncher()
    _launcher.install_signal_handlers()
    _launcher.launch_service(server)


def wait():
    """Block until a stop signal, then stop the served services."""
    global _launcher
    try:
        _launcher.wait()
    finally:
        _launcher = None
