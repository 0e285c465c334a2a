"""The service group API: heartbeats in the services table.

A running service bumps its row's ``report_count`` and ``last_seen_up``
every ``report_interval`` seconds; a service is *up* when its last
heartbeat is within ``service_down_time`` and an operator has not forced it
down.
"""

import threading

from oslo_log import log as logging
from oslo_utils import timeutils

from nova_clone.conf import CONF
from nova_clone import threads

LOG = logging.getLogger(__name__)


def last_heartbeat(service):
    """The time of the newest sign of life of a service record."""
    for field in ('last_seen_up', 'updated_at', 'created_at'):
        value = _get(service, field)
        if value:
            return value
    return None


def _get(service, field):
    if isinstance(service, dict):
        return service.get(field)
    if hasattr(service, 'obj_attr_is_set') and not service.obj_attr_is_set(
            field):
        return None
    return getattr(service, field, None)


def _naive(value):
    if value is not None and value.tzinfo is not None:
        value = value.replace(tzinfo=None)
    return value


class API:
    """Decides up/down and runs a service's heartbeat."""

    def __init__(self, report_interval=None, service_down_time=None):
        self._report_interval = report_interval
        self._service_down_time = service_down_time

    @property
    def report_interval(self):
        return self._report_interval or CONF.report_interval

    @property
    def service_down_time(self):
        return self._service_down_time or CONF.service_down_time

    def service_is_up(self, member):
        if _get(member, 'forced_down'):
            return False
        heartbeat = _naive(last_heartbeat(member))
        if heartbeat is None:
            return False
        elapsed = (_naive(timeutils.utcnow()) - heartbeat).total_seconds()
        # abs(): clocks of the reporting host and this one may disagree.
        return abs(elapsed) <= self.service_down_time

    def get_updated_time(self, member):
        return last_heartbeat(member)

    def join(self, member, group, service=None):
        """Start heartbeating ``service`` (a nova_clone.service.Service)."""
        if service is None:
            raise RuntimeError('join needs the running service')
        heartbeat = Heartbeat(service, self.report_interval)
        heartbeat.start()
        return heartbeat


class Heartbeat:
    """A daemon thread that writes the service row's heartbeat."""

    def __init__(self, service, interval):
        self.service = service
        self.interval = interval
        self._stop = threading.Event()
        self._thread = None
        self.model_disconnected = False

    def start(self):
        # The beat runs in the starter's context (a service's own object
        # indirection in the embedded mode follows it).
        self._thread = threads.spawn(
            self._run, name='heartbeat-%s' % self.service.binary)

    def _run(self):
        while not self._stop.wait(self.interval):
            self.report_state()

    def report_state(self):
        from nova_clone import context
        ref = self.service.service_ref
        if ref is None:
            return
        try:
            # The saving side stamps last_seen_up with its own clock.
            ref.report_count += 1
            ref._context = context.get_admin_context()
            ref.save()
            if self.model_disconnected:
                self.model_disconnected = False
                LOG.info('Recovered connection to the service store; '
                         'heartbeats resumed.')
        except Exception:
            # Keep beating: the database or conductor may come back.
            if not self.model_disconnected:
                self.model_disconnected = True
                LOG.exception('Heartbeat of %s failed; will retry every '
                              '%s seconds.', self.service.binary,
                              self.interval)

    def stop(self, timeout=None):
        # A beat in flight may wait on an unreachable conductor; the thread
        # is a daemon, so do not hold the shutdown for it.
        self._stop.set()
        if self._thread is not None:
            self._thread.join(min(timeout or 1.0, 1.0))
