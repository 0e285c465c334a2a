"""One outgoing live migration, watched while it runs.

libvirt's migrate call blocks until the guest has moved (or the copy
failed), so it runs in a thread of its own while the caller's thread
polls the domain's job statistics.  From that loop the job

* reports progress: the memory_* and disk_* byte counters go onto the
  Migration record it was given (``migration.save()``), every
  ``report_interval`` seconds;
* pauses the guest when asked to force completion (an admin's
  force_complete, or the completion timeout with action
  ``force_complete``), so no new dirty memory holds the copy back;
* aborts the libvirt job when asked to (an admin's abort, or the
  completion timeout with action ``abort``).

The outcome is one of COMPLETED, CANCELLED (the job was aborted) or
FAILED.  A guest paused for convergence is resumed where it still runs
when the migration does not complete.
"""

import threading
import time

from oslo_log import log as logging

from nova_clone import threads

LOG = logging.getLogger(__name__)

COMPLETED = 'completed'
CANCELLED = 'cancelled'
FAILED = 'failed'

PROGRESS_FIELDS = ('memory_total', 'memory_processed', 'memory_remaining',
                   'disk_total', 'disk_processed', 'disk_remaining')


class LiveMigrationJob:

    poll_interval = 0.5
    report_interval = 2.0

    def __init__(self, libvirt, dom, instance, uri, params, flags,
                 timeout=0, timeout_action='abort', migration=None):
        self._libvirt = libvirt
        self._dom = dom
        self._instance = instance
        self._uri = uri
        self._params = params
        self._flags = flags
        self._timeout = timeout
        self._timeout_action = timeout_action
        self._migration = migration
        self._done = threading.Event()
        self._lock = threading.Lock()
        self._force_requested = False
        self._abort_requested = False
        self._abort_sent = False
        self._paused = False
        self._error = None
        self._progress = {}

    # -- requests from other threads -------------------------------------

    def force_complete(self):
        """Pause the guest at the next poll (idempotent)."""
        with self._lock:
            self._force_requested = True

    def abort(self):
        """Cancel the libvirt job; run() then answers CANCELLED."""
        with self._lock:
            self._abort_requested = True
        self._send_abort()

    def _send_abort(self):
        try:
            self._dom.abortJob()
        except self._libvirt.libvirtError as exc:
            # Not started yet (the next poll tries again) or just over.
            LOG.debug('Abort of the live migration of %s: %s',
                      self._instance.uuid, exc.get_error_message())
            return
        with self._lock:
            self._abort_sent = True

    # -- the migration ---------------------------------------------------

    def _migrate(self):
        try:
            self._dom.migrateToURI3(self._uri, self._params, self._flags)
        except self._libvirt.libvirtError as exc:
            self._error = exc
        finally:
            self._done.set()

    def run(self):
        """Migrate and watch; return COMPLETED, CANCELLED or FAILED."""
        started = last_report = time.monotonic()
        threads.spawn(self._migrate,
                      name='live-migration-%s' % self._instance.uuid)
        while not self._done.wait(self.poll_interval):
            now = time.monotonic()
            if now - last_report >= self.report_interval:
                if self._read_progress():
                    self._report()
                last_report = now
            if self._timeout and now - started > self._timeout:
                self._on_timeout()
            with self._lock:
                pause = self._force_requested and not self._paused
                abort = self._abort_requested and not self._abort_sent
            if pause:
                self._pause()
            if abort:
                self._send_abort()
        return self._outcome()

    def _read_progress(self):
        """Update self._progress; True if it changed."""
        try:
            stats = self._dom.jobStats()
        except self._libvirt.libvirtError:
            # The domain left this host as the copy finished.
            return False
        if stats.get('type', 0) == self._libvirt.VIR_DOMAIN_JOB_NONE:
            return False
        progress = {name: stats.get(name, 0) for name in PROGRESS_FIELDS}
        changed = progress != self._progress
        self._progress = progress
        return changed

    def _report(self):
        LOG.debug('Live migration of %s: %s', self._instance.uuid,
                  self._progress)
        if self._migration is None:
            return
        for name, value in self._progress.items():
            setattr(self._migration, name, value)
        try:
            self._migration.save()
        except Exception:
            # Progress is informative; the copy goes on regardless.
            LOG.exception('Saving the progress of the live migration of '
                          '%s failed', self._instance.uuid)

    def _on_timeout(self):
        LOG.warning('Live migration of %s not done after %d s: %s',
                    self._instance.uuid, self._timeout,
                    self._timeout_action)
        # Taken once: the guest cannot converge faster than paused, and
        # an abort is retried by the loop until libvirt takes it.
        self._timeout = 0
        if self._timeout_action == 'force_complete':
            self.force_complete()
        else:
            self.abort()

    def _pause(self):
        try:
            self._dom.suspend()
        except self._libvirt.libvirtError as exc:
            LOG.warning('Cannot pause %s to complete its live migration: '
                        '%s', self._instance.uuid, exc.get_error_message())
        else:
            LOG.info('Paused %s so its live migration completes',
                     self._instance.uuid)
        with self._lock:
            self._paused = True

    def _outcome(self):
        if self._error is None:
            return COMPLETED
        if self._paused:
            self._resume_source()
        aborted = (self._error.get_error_code() ==
                   self._libvirt.VIR_ERR_OPERATION_ABORTED)
        with self._lock:
            cancelled = aborted or self._abort_requested
        LOG.warning('Live migration of %s %s: %s', self._instance.uuid,
                    'cancelled' if cancelled else 'failed',
                    self._error.get_error_message())
        return CANCELLED if cancelled else FAILED

    def _resume_source(self):
        try:
            if self._dom.state()[0] == self._libvirt.VIR_DOMAIN_PAUSED:
                self._dom.resume()
        except self._libvirt.libvirtError as exc:
            LOG.warning('Cannot resume %s after its failed live migration: '
                        '%s', self._instance.uuid, exc.get_error_message())
