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

from nova_clone.conf import CONF
from nova_clone import exception

LOG = logging.getLogger(__name__)

VIF_PLUGGED = 'network-vif-plugged'
VIF_UNPLUGGED = 'network-vif-unplugged'
VIF_DELETED = 'network-vif-deleted'
NETWORK_CHANGED = 'network-changed'


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
    """What a virt driver may ask of the compute manager."""

    def __init__(self, compute):
        self._compute = compute

    @property
    def instance_events(self):
        return self._compute.instance_events

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


def vif_events_to_wait_for(network_info):
    """network-vif-plugged for every port Neutron has not yet activated."""
    if not CONF.vif_plugging_timeout:
        return []
    return [(VIF_PLUGGED, vif['id']) for vif in network_info or []
            if vif.get('active') is not True]


class ExternalEventsMixin:
    """external_instance_event of the compute manager."""

    def external_instance_event(self, context, instances, events):
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
                self._handle_external_event(context, instance, event, name,
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

    def _handle_external_event(self, context, instance, event, name, tag):
        if name == NETWORK_CHANGED:
            self._refresh_network_info(context, instance, tag)
            self._deliver(instance, event, name, tag)
        elif name == VIF_DELETED:
            self._process_vif_deleted(context, instance, tag)
        else:
            # network-vif-plugged/-unplugged, volume and power events:
            # delivered to whoever waits for them.
            self._deliver(instance, event, name, tag)

    def _deliver(self, instance, event, name, tag):
        waiter = self.instance_events.pop_instance_event(instance.uuid, event)
        if waiter is not None:
            waiter.send(event)
        else:
            LOG.debug('No waiter for event %s of instance %s',
                      event_key(name, tag), instance.uuid)

    def _refresh_network_info(self, context, instance, port_id):
        try:
            self.network_api.get_instance_nw_info(context, instance,
                                                  refresh_vif_id=port_id)
        except TypeError:
            self.network_api.get_instance_nw_info(context, instance)
        except exception.InstanceNotFound:
            LOG.info('Instance %s gone while refreshing its network info',
                     instance.uuid)

    def _process_vif_deleted(self, context, instance, port_id):
        network_info = _cached_network_info(instance)
        remaining = [vif for vif in network_info if vif['id'] != port_id]
        if len(remaining) == len(network_info):
            return
        gone = [vif for vif in network_info if vif['id'] == port_id]
        try:
            self.driver.detach_interface(context, instance, gone[0])
        except NotImplementedError:
            pass
        except exception.NovaException as exc:
            LOG.warning('Detach of deleted port %s from %s failed: %s',
                        port_id, instance.uuid, exc)
        _save_network_info(instance, remaining)


def _cached_network_info(instance):
    info_cache = getattr(instance, 'info_cache', None)
    network_info = getattr(info_cache, 'network_info', None) if info_cache \
        else None
    if network_info is None:
        return []
    if isinstance(network_info, str):
        from oslo_serialization import jsonutils
        return jsonutils.loads(network_info)
    return list(network_info)


def set_network_info(instance, network_info):
    """Put ``network_info`` in the instance's info cache, unsaved: the
    instance's next save() stores it."""
    info_cache = getattr(instance, 'info_cache', None)
    if info_cache is not None:
        info_cache.network_info = _as_model(network_info)


def _save_network_info(instance, network_info):
    info_cache = getattr(instance, 'info_cache', None)
    if info_cache is None:
        return
    # The Neutron client usually saved it already: skip a needless write.
    if [dict(v) for v in _cached_network_info(instance)] == \
            [dict(v) for v in network_info or []]:
        return
    try:
        info_cache.network_info = _as_model(network_info)
        info_cache.save()
    except exception.NotFound:
        # The instance is gone: the caller decides what that means.
        raise
    except Exception:
        LOG.warning('Could not save the network info cache of %s',
                    instance.uuid, exc_info=True)


def _as_model(network_info):
    try:
        from nova_clone.network import model
    except ImportError:
        return network_info
    hydrate = getattr(getattr(model, 'NetworkInfo', None), 'hydrate', None)
    return hydrate(network_info) if hydrate else network_info



# Status given to waiters woken because their instance is being deleted.
CANCELLED = 'cancelled'
