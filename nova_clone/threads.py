"""Starting a thread that carries the starter's context.

A new thread starts with empty context variables and no current request
context.  Work handed to one (a build, a heartbeat, a saver) must keep
both: the context variables hold a service's object indirection API in
the embedded mode, and the request context is what puts the request id
on every log line the thread writes.
"""

import contextvars
import threading

from oslo_context import context as oslo_context


def spawn(fn, *args, name=None, daemon=True, **kwargs):
    """Start ``fn(*args, **kwargs)`` in a new thread and return the thread.

    The thread runs in a copy of the caller's context variables, with the
    caller's current request context (if any) as its own.
    """
    variables = contextvars.copy_context()
    request_context = oslo_context.get_current()

    def run():
        if request_context is not None:
            request_context.update_store()
        fn(*args, **kwargs)

    thread = threading.Thread(target=variables.run, args=(run,), name=name,
                              daemon=daemon)
    thread.start()
    return thread
