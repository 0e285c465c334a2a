"""Start-up objects are frozen out of the collector's walks."""

import gc
import importlib

from nova_clone.deploy import procs
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


def test_stack_gunicorn_workers_freeze_after_loading_their_app():
    argv = procs.gunicorn_argv('x', '127.0.0.1', 8000, 'app:application')
    config = argv[argv.index('--config') + 1]
    assert config.startswith('python:')
    hooks = importlib.import_module(config[len('python:'):])
    gc.unfreeze()
    try:
        hooks.post_worker_init(worker=None)
        assert gc.get_freeze_count() > 1000
    finally:
        gc.unfreeze()
