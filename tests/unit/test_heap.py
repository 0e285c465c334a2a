"""Start-up objects are frozen out of the collector's walks."""

import gc
import importlib
import types

from nova_clone.stack import procs
from nova_clone import heap


def test_freezing_takes_startup_objects_out_of_collections():
    gc.unfreeze()
    try:
        heap.freeze_startup_objects()
        assert gc.get_freeze_count() > 1000
        # Objects made afterwards are still the collector's.
        made_later = [[]]
        assert gc.is_tracked(made_later)
        assert any(obj is made_later for obj in gc.get_objects())
    finally:
        gc.unfreeze()


def test_stack_gunicorn_workers_build_their_app_then_freeze():
    argv = procs.gunicorn_argv('x', '127.0.0.1', 8000, 'app:application')
    config = argv[argv.index('--config') + 1]
    assert config.startswith('python:')
    hooks = importlib.import_module(config[len('python:'):])
    worker = types.SimpleNamespace(wsgi=application, log=None)
    gc.unfreeze()
    try:
        hooks.post_worker_init(worker)
        assert prepared == [True]  # built before any request
        assert gc.get_freeze_count() > 1000
    finally:
        gc.unfreeze()


# What the hook finds in the module of a worker's application.
prepared = []


def prepare_application():
    # As nova-api's does: build, then freeze what was built.
    prepared.append(True)
    heap.freeze_startup_objects()


def test_apps_without_a_prepare_step_are_frozen_by_the_hook():
    from nova_clone.stack import gunicorn_hooks
    # Placement's and Keystone's modules have no prepare_application.
    worker = types.SimpleNamespace(wsgi=types.SimpleNamespace(
        __module__='placement.wsgi.api'), log=None)
    gc.unfreeze()
    try:
        gunicorn_hooks.post_worker_init(worker)
        assert gc.get_freeze_count() > 1000
    finally:
        gc.unfreeze()


def application(environ, start_response):
    raise AssertionError('no request in this test')
