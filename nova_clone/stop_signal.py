"""The stop request of a long-running command (SIGTERM, SIGINT).

A Python signal handler runs in the main thread between two bytecodes,
which may be inside ``threading.Event.set()`` called by the handler of
an earlier signal.  A handler that calls ``Event.set()`` itself then
blocks for ever on the condition lock its own thread holds: two stop
signals in quick succession (``timeout`` or a supervisor forwarding a
TERM just after a direct one) hung the process.  So the handler here
only assigns an attribute, and waiting polls it.
"""

import signal
import threading
import time

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)
# How long a stop signal may wait before the waiting loop sees it.
POLL_SECONDS = 0.2


class StopSignal:
    """Set by a stop signal, or by ``request()`` from any thread."""

    def __init__(self):
        self.signal = None  # the first stop signal caught
        self._requested = threading.Event()

    def install(self):
        for signo in STOP_SIGNALS:
            signal.signal(signo, self.handle)

    def handle(self, signo, frame):
        # An assignment only: no lock may be taken in here (see above).
        if self.signal is None:
            self.signal = signo

    def request(self):
        self._requested.set()

    def is_set(self):
        return self.signal is not None or self._requested.is_set()

    def wait(self, timeout=None):
        """Whether a stop came before ``timeout`` seconds (None: ever)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self.is_set():
            step = POLL_SECONDS
            if deadline is not None:
                step = min(step, deadline - time.monotonic())
                if step <= 0:
                    return False
            self._requested.wait(step)
        return True

    def name(self):
        """The caught signal's name, or None when a thread asked."""
        return None if self.signal is None else \
            signal.Signals(self.signal).name
