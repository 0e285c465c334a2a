"""Stop signals as a supervisor may send them: many, a fraction of a
millisecond apart, so that one arrives while the process is still
handling another (spacing them matters: signals sent back to back
merge into one before the handler runs)."""

import os
import random
import signal
import time


def rain(pid, count=300, sig=signal.SIGTERM, seed=0):
    spacing = random.Random(seed)
    for _ in range(count):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            return
        until = time.perf_counter() + spacing.random() * 0.0003
        while time.perf_counter() < until:  # sleep() is far too coarse
            pass
