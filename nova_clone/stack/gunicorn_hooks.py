"""gunicorn configuration shared by every WSGI service a stack runs
(``-c python:nova_clone.stack.gunicorn_hooks``)."""

import sys

from nova_clone import heap


def post_worker_init(worker):
    """The worker has imported its application: build it now when its
    module knows how (``prepare_application()``, which freezes what it
    built), else freeze what start-up built here."""
    module = sys.modules.get(getattr(worker.wsgi, '__module__', None))
    prepare = getattr(module, 'prepare_application', None)
    if prepare is not None:
        try:
            prepare()
            return
        except Exception:
            # The first request builds it again and reports the error.
            worker.log.exception('Preparing the application failed')
    heap.freeze_startup_objects()
