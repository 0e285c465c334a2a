"""External instance events (from Neutron, Cinder...) and their waiters.

A flow that needs an event (a spawn waiting for ``network-vif-plugged``)
registers a waiter *before* starting the step that triggers it, then waits
with a deadline.  ``external_instance_event`` (an RPC cast from nova-api)
hands each event to its waiter.  An event may also arrive before the waiter
exists (a fast Neutron answers while the ports are still being bound); for
instances whose build is running on this host such early events are kept
until the waiter registers, so they are not lost.
"""

import contextlib
import threading
import time

from oslo_log import log as logging

from nova_clone.compute.host import network_info
from nova_clone.conf import CONF
from nova_clone import exception

LOG = logging.getLogger(__name__)

VIF_PLUGGED = 'network-vif-plugged'
VIF_UNPLUGGED = 'network-vif-unplugged'
VIF_DELETED = 'network-vif-deleted'
NETWORK_CHANGED = 'network-changed'

# Status given to waiters woken because their instance is being deleted.
CANCELLED = 'cancelled'


class EventWaitTimeout(Exception):
    """The awaited events did not all arrive before the deadline."""

    def __init__(self, instance_uuid, missing, deadline):
        self.instance_uuid = instance_uuid
        self.missing = missing
        self.deadline = deadline
        super().__init__('Timed out after %ss waiting for %s of instance %s'
                         % (deadline, ', '.join(missing), instance_uuid))


def _get(event, field, default=None):
    if isinstance(event, dict):
        return event.get(field, default)
    try:
        return getattr(event, field)
    except Exception:
        return default


def event_key(name, tag=None):
    """Nova's key of an event: ``<name>-<tag>`` (or the name alone)."""
    return '%s-%s' % (name, tag) if tag is not None else name


class _Waiter:
    def __init__(self, name, tag):
        self.name = name
        self.tag = tag
        self._ready = threading.Event()
        self.event = None

    def send(self, event):
        self.event = event
        self._ready.set()

    def wait(self, timeout):
        return self._ready.wait(timeout)


class InstanceEvents:
    """Per-instance registry of event waiters (and early arrivals)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._waiters = {}     # uuid -> {key: _Waiter}
        self._early = {}       # uuid -> {key: event}
        self._expecting = set()  # uuids whose early events are kept

    def expect_events_for(self, instance_uuid):
        """Keep early events of this instance until its waiters register."""
        with self._lock:
            self._expecting.add(instance_uuid)

    def prepare_for_instance_event(self, instance, name, tag=None):
        key = event_key(name, tag)
        waiter = _Waiter(name, tag)
        with self._lock:
            early = self._early.get(instance.uuid, {}).pop(key, None)
            if early is not None:
                waiter.send(early)
            else:
                self._waiters.setdefault(instance.uuid, {})[key] = waiter
        return waiter

    def pop_instance_event(self, instance_uuid, event):
        """The waiter for ``event``, or None (the event is then kept if
        this instance expects events, else dropped)."""
        key = event_key(_get(event, 'name'), _get(event, 'tag'))
        with self._lock:
            waiter = self._waiters.get(instance_uuid, {}).pop(key, None)
            if waiter is None and instance_uuid in self._expecting:
                self._early.setdefault(instance_uuid, {})[key] = event
            return waiter

    def discard(self, instance_uuid, keys):
        with self._lock:
            waiters = self._waiters.get(instance_uuid, {})
            for key in keys:
                waiters.pop(key, None)
            if not waiters:
                self._waiters.pop(instance_uuid, None)

    def clear_events_for_instance(self, instance_uuid):
        """Forget waiters and early events; returns the waiters removed."""
        with self._lock:
            self._expecting.discard(instance_uuid)
            self._early.pop(instance_uuid, None)
            return self._waiters.pop(instance_uuid, {})

    def cancel_all_events(self):
        with self._lock:
            self._waiters.clear()
            self._early.clear()
            self._expecting.clear()


class ComputeVirtAPI:
    """What a virt driver may ask of its compute host."""

    def __init__(self, instance_events):
        self.instance_events = instance_events

    @contextlib.contextmanager
    def wait_for_instance_event(self, instance, event_names, deadline=300,
                                error_callback=None):
        """Wait, after the body runs, for every (name, tag) in event_names.

        Waiters register before the body so an event sent while the body
        runs is not missed.  A ``failed`` event calls
        ``error_callback(name, instance)``; a missing event after
        ``deadline`` seconds raises EventWaitTimeout.
        """
        waiters = {}
        for name, tag in event_names:
            waiters[event_key(name, tag)] = (
                self.instance_events.prepare_for_instance_event(
                    instance, name, tag))
        try:
            yield
            end = time.monotonic() + deadline
            missing = []
            for key, waiter in waiters.items():
                remaining = max(0.0, end - time.monotonic())
                if not waiter.wait(remaining):
                    missing.append(key)
                    continue
                status = _get(waiter.event, 'status', 'completed')
                if status == CANCELLED:
                    raise exception.UnexpectedDeletingTaskStateError(
                        expected='events', actual='deleting')
                if status != 'completed' and error_callback is not None:
                    error_callback(waiter.name, instance)
            if missing:
                raise EventWaitTimeout(instance.uuid, missing, deadline)
        finally:
            self.instance_events.discard(instance.uuid, list(waiters))


def vif_events_to_wait_for(vifs):
    """network-vif-plugged for every port Neutron has not yet activated."""
    if not CONF.vif_plugging_timeout:
        return []
    return [(VIF_PLUGGED, vif['id']) for vif in vifs or []
            if vif.get('active') is not True]


def plug_and_wait(collab, instance, network_info, plug):
    """Run ``plug()`` (a spawn, an interface attach) and wait for the
    network-vif-plugged of every port in ``network_info`` Neutron has not
    activated yet, unless the driver waits itself.

    A failed event or a timeout is VirtualInterfaceCreateException when
    [DEFAULT] vif_plugging_is_fatal, else a warning.
    """
    if collab.driver.waits_for_vif_plug_events:
        wait_for = []
    else:
        wait_for = vif_events_to_wait_for(network_info)

    def vif_failed(name, inst):
        LOG.error('Neutron reported failure on event %s for %s', name,
                  inst.uuid)
        if CONF.vif_plugging_is_fatal:
            raise exception.VirtualInterfaceCreateException()

    try:
        with collab.virtapi.wait_for_instance_event(
                instance, wait_for, deadline=CONF.vif_plugging_timeout,
                error_callback=vif_failed):
            plug()
    except EventWaitTimeout as exc:
        if CONF.vif_plugging_is_fatal:
            LOG.error('%s', exc)
            raise exception.VirtualInterfaceCreateException()
        LOG.warning('%s; continuing (vif_plugging_is_fatal=False)', exc)


def cancel_waiters(instance_events, instance):
    """Wake every waiter of ``instance`` as cancelled (a delete began)."""
    waiters = instance_events.clear_events_for_instance(instance.uuid)
    for waiter in waiters.values():
        waiter.send({'name': waiter.name, 'tag': waiter.tag,
                     'status': CANCELLED})


def external_instance_event(collab, context, instances, events):
    """Hand each event from nova-api to its waiter, or act on it.

    Boot arrow "API->>CMP: AMQP cast external_instance_event": the
    network-vif-plugged a spawn waits for arrives here.
    """
    by_uuid = {inst.uuid: inst for inst in instances}
    for event in events:
        # An InstanceExternalEvent, or the API body's dict form.
        uuid = _get(event, 'instance_uuid') or _get(event, 'server_uuid')
        instance = by_uuid.get(uuid)
        name = _get(event, 'name')
        tag = _get(event, 'tag')
        if instance is None:
            LOG.warning('Event %s for unknown instance %s ignored',
                        event_key(name, tag), uuid)
            continue
        LOG.info('Received event %s for instance %s',
                 event_key(name, tag), uuid)
        try:
            _handle_external_event(collab, context, instance, event, name,
                                   tag)
        except exception.NotFound as exc:
            # Usual for network-vif-deleted while the server is being
            # deleted: the port goes after the row.
            LOG.info('Event %s for instance %s not processed: %s',
                     event_key(name, tag), uuid, exc)
        except Exception:
            # One bad event must not stop the others of the batch.
            LOG.exception('Failed to process event %s for instance %s',
                          event_key(name, tag), uuid)


def _handle_external_event(collab, context, instance, event, name, tag):
    if name == NETWORK_CHANGED:
        _refresh_network_info(collab.network_api, context, instance, tag)
        _deliver(collab.instance_events, instance, event, name, tag)
    elif name == VIF_DELETED:
        _process_vif_deleted(collab.driver, context, instance, tag)
    else:
        # network-vif-plugged/-unplugged, volume and power events:
        # delivered to whoever waits for them.
        _deliver(collab.instance_events, instance, event, name, tag)


def _deliver(instance_events, instance, event, name, tag):
    waiter = instance_events.pop_instance_event(instance.uuid, event)
    if waiter is not None:
        waiter.send(event)
    else:
        LOG.debug('No waiter for event %s of instance %s',
                  event_key(name, tag), instance.uuid)


def _refresh_network_info(network_api, context, instance, port_id):
    try:
        network_api.get_instance_nw_info(context, instance,
                                         refresh_vif_id=port_id)
    except exception.InstanceNotFound:
        LOG.info('Instance %s gone while refreshing its network info',
                 instance.uuid)


def _process_vif_deleted(driver, context, instance, port_id):
    cached = network_info.cached(instance)
    remaining = [vif for vif in cached if vif['id'] != port_id]
    if len(remaining) == len(cached):
        return
    gone = [vif for vif in cached if vif['id'] == port_id]
    try:
        driver.detach_interface(context, instance, gone[0])
    except NotImplementedError:
        pass
    except exception.NovaException as exc:
        LOG.warning('Detach of deleted port %s from %s failed: %s',
                    port_id, instance.uuid, exc)
    network_info.save(instance, remaining)
