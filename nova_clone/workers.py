"""Several processes serving one RPC service (``[conductor] workers``,
``[scheduler] workers``).

The parent forks the workers before any of them has opened a connection
(``Service.start()`` runs in each child), then only supervises: a worker
that dies is replaced, SIGTERM/SIGINT stop every worker gracefully and
SIGHUP is passed on.  Each worker consumes the same topic, so RabbitMQ
spreads the calls over them, and each heartbeats the one services row.
"""

import logging as std_logging
import os
import signal
import time

from oslo_log import log as logging

from nova_clone.conf import CONF
from nova_clone import stop_signal

LOG = logging.getLogger(__name__)

# A worker that dies this soon after its start is not replaced at once:
# a broken configuration must not fork in a loop.
RESPAWN_DELAY = 1.0
# Beyond the services' own graceful shutdown, before SIGKILL.
KILL_GRACE = 5.0


class WorkerPool:
    """``count`` children each running ``serve_one()`` (which returns an
    exit status), supervised by this process."""

    def __init__(self, count, serve_one, name):
        self.count = count
        self.serve_one = serve_one
        self.name = name
        self.children = {}  # pid -> monotonic time of its start
        self._stopping = stop_signal.StopSignal()

    def run(self):
        self._install_signal_handlers()
        LOG.info('%s starting %d worker processes', self.name, self.count)
        for _ in range(self.count):
            self._spawn()
        while not self._stopping.is_set():
            self._reap(replace=True)
            self._stopping.wait(0.5)
        if self._stopping.name():
            LOG.info('Caught %s, stopping %d workers',
                     self._stopping.name(), len(self.children))
        self._stop_children()
        return 0

    # -- the children ------------------------------------------------------
    def _spawn(self):
        pid = os.fork()
        if pid == 0:
            self._become_worker()
        self.children[pid] = time.monotonic()
        LOG.info('Started %s worker %d', self.name, pid)

    def _become_worker(self):
        # The worker installs its own handlers when it starts its service.
        for signo in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(signo, signal.SIG_DFL)
        status = 1
        try:
            status = self.serve_one() or 0
        except BaseException:
            LOG.exception('%s worker %d stopped on an error', self.name,
                          os.getpid())
        finally:
            std_logging.shutdown()  # os._exit skips the flush at exit
            os._exit(status)

    def _reap(self, replace):
        while self.children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                self.children.clear()
                return
            if pid == 0:
                return
            started = self.children.pop(pid, None)
            if started is None:
                continue
            code = os.waitstatus_to_exitcode(status)
            if not replace or self._stopping.is_set():
                continue
            LOG.warning('%s worker %d exited (%s); starting another',
                        self.name, pid, code)
            left = RESPAWN_DELAY - (time.monotonic() - started)
            if left > 0 and self._stopping.wait(left):
                return
            self._spawn()

    def _stop_children(self):
        self._signal_children(signal.SIGTERM)
        deadline = (time.monotonic() + CONF.graceful_shutdown_timeout +
                    KILL_GRACE)
        while self.children and time.monotonic() < deadline:
            self._reap(replace=False)
            time.sleep(0.1)
        if self.children:
            LOG.warning('Killing %s workers %s that did not stop in time',
                        self.name, sorted(self.children))
            self._signal_children(signal.SIGKILL)
            while self.children:
                self._reap(replace=False)
                time.sleep(0.05)

    def _signal_children(self, signo):
        for pid in list(self.children):
            try:
                os.kill(pid, signo)
            except ProcessLookupError:
                self.children.pop(pid, None)

    # -- signals -----------------------------------------------------------
    def _install_signal_handlers(self):
        self._stopping.install()
        signal.signal(signal.SIGHUP, self._handle_hup)

    def _handle_hup(self, signo, frame):
        self._signal_children(signal.SIGHUP)
