"""The Neutron stand-in's messages to Nova: os-server-external-events.

Port changes queue events here; a background thread sends them in
batches after ``[peers] vif_event_delay`` seconds to nova-api through a
keystoneauth1 adapter built from the stand-in's ``[nova]`` group, retrying
a few times.  A failure is logged and dropped: a port update never fails
because Nova is unreachable.
"""

import collections
import threading
import time

from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import loading as ks_loading
from oslo_log import log as logging

LOG = logging.getLogger(__name__)


class NovaNotifier:
    """Queue and send external events to Nova."""

    def __init__(self, conf, adapter=None):
        self.conf = conf
        self.delay = conf.peers.vif_event_delay
        self.retries = conf.peers.vif_event_retries
        self._adapter = adapter
        self._queue = collections.deque()
        self._cond = threading.Condition()
        self._thread = None
        self._stopped = False
        self.sent = []  # batches delivered, for diagnostics

    def _get_adapter(self):
        if self._adapter is None:
            auth = ks_loading.load_auth_from_conf_options(self.conf, 'nova')
            if auth is None:
                return None
            session = ks_loading.load_session_from_conf_options(
                self.conf, 'nova', auth=auth)
            self._adapter = ks_loading.load_adapter_from_conf_options(
                self.conf, 'nova', session=session, auth=auth)
        return self._adapter

    def notify(self, name, server_uuid, port_id, status='completed',
               before_send=None):
        """Queue an event; ``before_send()`` runs just before it goes out."""
        if not server_uuid:
            return
        event = {'name': name, 'server_uuid': server_uuid, 'tag': port_id,
                 'status': status}
        LOG.debug('Queueing event %s', event)
        with self._cond:
            self._queue.append((time.monotonic() + self.delay,
                                (event, before_send)))
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._run, name='nova-events', daemon=True)
                self._thread.start()
            self._cond.notify()

    def stop(self):
        with self._cond:
            self._stopped = True
            self._cond.notify()

    def _next_batch(self):
        with self._cond:
            while not self._stopped:
                if self._queue:
                    wait = self._queue[0][0] - time.monotonic()
                    if wait <= 0:
                        break
                    self._cond.wait(wait)
                else:
                    self._cond.wait(5)
                    if not self._queue:
                        return None
            if self._stopped:
                return None
            now = time.monotonic()
            batch = []
            while self._queue and self._queue[0][0] <= now:
                batch.append(self._queue.popleft()[1])
        events = []
        for event, before_send in batch:
            if before_send is not None:
                try:
                    before_send()
                except Exception:
                    LOG.exception('Preparing event %s failed', event)
            events.append(event)
        return events

    def _run(self):
        while True:
            batch = self._next_batch()
            if batch is None:
                return
            if batch:
                self._send(batch)

    def _send(self, events):
        try:
            adapter = self._get_adapter()
        except Exception:
            LOG.exception('Cannot build the [nova] client; dropping events '
                          '%s', events)
            return
        if adapter is None:
            LOG.warning('[nova] auth is not configured; not sending %s',
                        events)
            return
        for attempt in range(self.retries + 1):
            try:
                resp = adapter.post('/os-server-external-events',
                                    json={'events': events},
                                    raise_exc=False)
            except ks_exc.ClientException as exc:
                LOG.warning('Sending events to Nova failed (attempt %d): %s',
                            attempt + 1, exc)
            else:
                if resp.status_code in (200, 207):
                    LOG.info('Nova accepted events %s (%s)', events,
                             resp.status_code)
                    self.sent.append(events)
                    return
                if 400 <= resp.status_code < 500:
                    LOG.warning('Nova refused events %s: %s %s', events,
                                resp.status_code, resp.text[:300])
                    return
                LOG.warning('Nova answered %s to events (attempt %d)',
                            resp.status_code, attempt + 1)
            time.sleep(min(0.5 * (attempt + 1), 2))
        LOG.error('Giving up sending events %s to Nova', events)
