"""A server a stopped conductor was scheduling, or a stopped compute was
building, does not stay BUILD: the restarted embedded cloud (its own
module: it runs its own cloud, not the session's) fails it with a fault
saying why."""

import shutil
import tempfile

from nova_clone.compute.host import build as compute_build
from nova_clone.conductor.tasks import build as build_task
from tests.functional import fixtures
from tests.functional.test_boot import _allocations


def test_restart_fails_servers_a_stopped_conductor_was_scheduling(
        monkeypatch):
    state_dir = tempfile.mkdtemp(prefix='nc_func_lostbuild_')
    first = second = None
    try:
        first = fixtures.TestCloud(state_dir=state_dir).start()
        # The conductor takes the cast and dies before scheduling.
        monkeypatch.setattr(build_task, 'schedule_and_build_instances',
                            lambda *a, **k: None)
        created = first.admin_api.create_server(name='lost',
                                                wait_for=None)
        first.stop()
        first = None
        monkeypatch.undo()

        second = fixtures.TestCloud(state_dir=state_dir).start()
        api = second.admin_api
        server = api.wait_for_state(created['id'], 'ERROR')
        assert server['fault']['message'] == (
            'The conductor stopped while scheduling this server.')
        assert _allocations(created['id']) == {}
        api.delete_server_and_wait(created['id'])
    finally:
        for cloud in (first, second):
            if cloud is not None:
                cloud.stop()
        shutil.rmtree(state_dir, ignore_errors=True)


def test_restart_fails_servers_a_stopped_compute_was_building(monkeypatch):
    state_dir = tempfile.mkdtemp(prefix='nc_func_lostclaim_')
    first = second = None
    try:
        first = fixtures.TestCloud(state_dir=state_dir).start()
        # The compute takes the build and dies before its claim.
        monkeypatch.setattr(compute_build, '_build_and_run_instance',
                            lambda *a, **k: None)
        created = first.admin_api.create_server(name='unclaimed',
                                                wait_for=None)
        first.admin_api.wait_for_state(created['id'], 'BUILD',
                                       task_state=None)
        first.stop()
        first = None
        monkeypatch.undo()

        second = fixtures.TestCloud(state_dir=state_dir).start()
        api = second.admin_api
        server = api.wait_for_state(created['id'], 'ERROR')
        assert 'stopped during the build' in server['fault']['message']
        api.delete_server_and_wait(created['id'])
        assert _allocations(created['id']) == {}
    finally:
        for cloud in (first, second):
            if cloud is not None:
                cloud.stop()
        shutil.rmtree(state_dir, ignore_errors=True)
