"""The live migration job's decisions, against a scripted domain: what
the Migration record receives, and how abort, force-complete and the
completion timeout end the copy (real migrations: the integration
tests)."""

import threading
import types

from nova_clone.objects import migration as migration_obj
from nova_clone.virt.libvirt import migration_job

RUNNING, PAUSED = 1, 3
ABORTED = 78


class LibvirtError(Exception):

    def __init__(self, message, code=1):
        super().__init__(message)
        self.code = code

    def get_error_code(self):
        return self.code

    def get_error_message(self):
        return str(self)


LIBVIRT = types.SimpleNamespace(
    libvirtError=LibvirtError, VIR_DOMAIN_JOB_NONE=0,
    VIR_DOMAIN_PAUSED=PAUSED, VIR_ERR_OPERATION_ABORTED=ABORTED)


class Domain:
    """A guest whose migration copies until told how it ends: it
    converges once paused (when ``converges_paused``), is cancelled by
    abortJob once the job runs, or fails with ``fail()``."""

    def __init__(self, converges_paused=True):
        self.converges_paused = converges_paused
        self.state_now = RUNNING
        self.calls = []
        self.job_started = threading.Event()
        self._end = threading.Event()
        self._error = None
        self.processed = 0

    def migrateToURI3(self, uri, params, flags):
        self.calls.append('migrate')
        self.job_started.set()
        self._end.wait(10)
        if self._error:
            raise self._error

    def jobStats(self):
        if not self.job_started.is_set():
            return {'type': 0}
        self.processed += 1024
        return {'type': 2, 'memory_total': 4096,
                'memory_processed': self.processed,
                'memory_remaining': 1024, 'disk_total': 0}

    def abortJob(self):
        self.calls.append('abortJob')
        if not self.job_started.is_set():
            raise LibvirtError('no job is active on the domain')
        self.fail(LibvirtError('canceled by client', ABORTED))

    def suspend(self):
        self.calls.append('suspend')
        self.state_now = PAUSED
        if self.converges_paused:
            self._end.set()

    def resume(self):
        self.calls.append('resume')
        self.state_now = RUNNING

    def state(self):
        return [self.state_now, 0]

    def fail(self, error):
        self._error = error
        self._end.set()


def _job(dom, **kwargs):
    instance = types.SimpleNamespace(
        uuid='b7f6a8e2-1c2d-4e5f-8a9b-0c1d2e3f4a5b')
    job = migration_job.LiveMigrationJob(LIBVIRT, dom, instance, 'uri', {},
                                         0, **kwargs)
    job.poll_interval = 0.01
    job.report_interval = 0.02
    return job


def _wait(condition, thread):
    for _ in range(500):
        if condition():
            return
        thread.join(0.01)
    raise AssertionError('timed out')


def _run(job):
    outcome = []
    thread = threading.Thread(target=lambda: outcome.append(job.run()))
    thread.start()
    return thread, outcome


def test_progress_lands_on_the_migration_and_a_failed_save_is_no_failure(
        monkeypatch):
    saved = []

    def save(migration):
        saved.append(migration.memory_processed)
        if len(saved) == 1:
            raise RuntimeError('conductor away')

    monkeypatch.setattr(migration_obj.Migration, 'save', save)
    migration = migration_obj.Migration()
    dom = Domain()
    job = _job(dom, migration=migration)
    thread, outcome = _run(job)
    dom.job_started.wait(5)
    _wait(lambda: len(saved) >= 3, thread)
    job.force_complete()
    thread.join(5)
    assert outcome == [migration_job.COMPLETED]
    assert saved == sorted(saved) and saved[0] > 0
    assert migration.memory_total == 4096
    assert migration.memory_remaining == 1024


def test_abort_before_the_job_runs_is_retried():
    dom = Domain()
    job = _job(dom)
    job.abort()
    thread, outcome = _run(job)
    thread.join(5)
    assert outcome == [migration_job.CANCELLED]
    assert dom.calls.count('abortJob') >= 2


def test_timeout_forces_completion_by_pausing():
    dom = Domain()
    thread, outcome = _run(_job(dom, timeout=0.05,
                                timeout_action='force_complete'))
    thread.join(5)
    assert outcome == [migration_job.COMPLETED]
    assert dom.calls == ['migrate', 'suspend']


def test_timeout_aborts():
    dom = Domain(converges_paused=False)
    thread, outcome = _run(_job(dom, timeout=0.05))
    thread.join(5)
    assert outcome == [migration_job.CANCELLED]
    assert 'suspend' not in dom.calls


def test_a_guest_paused_for_a_failed_migration_runs_again():
    dom = Domain(converges_paused=False)
    job = _job(dom)
    thread, outcome = _run(job)
    dom.job_started.wait(5)
    job.force_complete()
    _wait(lambda: dom.state_now == PAUSED, thread)
    dom.fail(LibvirtError('connection to the destination lost'))
    thread.join(5)
    assert outcome == [migration_job.FAILED]
    assert dom.calls[-1] == 'resume' and dom.state_now == RUNNING
