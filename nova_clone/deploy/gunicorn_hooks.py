"""gunicorn configuration shared by every WSGI service a stack runs
(``-c python:nova_clone.deploy.gunicorn_hooks``)."""

from nova_clone import heap


def post_worker_init(worker):
    # The worker has imported its application: freeze what start-up built.
    heap.freeze_startup_objects()
