"""A server a stopped conductor was scheduling, or a stopped compute was
building, does not stay BUILD, nor one whose move a stopped conductor was
scheduling RESIZE: the restarted embedded cloud (its own module: it runs
its own cloud, not the session's) settles it with a fault saying why."""

import shutil
import tempfile

import pytest

from nova_clone.compute.host import build as compute_build
from nova_clone.conductor.tasks import build as build_task
from nova_clone.conductor.tasks import migrate as migrate_task
from tests.functional import fixtures
from tests.functional.test_boot import _allocations
from tests.functional.test_resize import _latest_fault
from tests.functional.test_resize import NEW_FLAVOR


class _Lives:
    """One embedded cloud, then the same cloud started again on its state
    once the faults the test injected are undone."""

    def __init__(self, monkeypatch):
        self.monkeypatch = monkeypatch
        self.state_dir = tempfile.mkdtemp(prefix='nc_func_restart_')
        self.cloud = fixtures.TestCloud(state_dir=self.state_dir).start()

    def restart(self):
        self.cloud.stop()
        self.cloud = None
        self.monkeypatch.undo()
        self.cloud = fixtures.TestCloud(state_dir=self.state_dir).start()
        return self.cloud.admin_api

    def end(self):
        if self.cloud is not None:
            self.cloud.stop()
        shutil.rmtree(self.state_dir, ignore_errors=True)


@pytest.fixture
def lives(monkeypatch):
    made = _Lives(monkeypatch)
    yield made
    made.end()


def test_restart_fails_servers_a_stopped_conductor_was_scheduling(
        lives, monkeypatch):
    # The conductor takes the cast and dies before scheduling.
    monkeypatch.setattr(build_task, 'schedule_and_build_instances',
                        lambda *a, **k: None)
    created = lives.cloud.admin_api.create_server(name='lost', wait_for=None)

    api = lives.restart()
    server = api.wait_for_state(created['id'], 'ERROR')
    assert server['fault']['message'] == (
        'The conductor stopped while scheduling this server.')
    assert _allocations(created['id']) == {}
    api.delete_server_and_wait(created['id'])


def test_restart_drops_the_cell_row_a_stopped_conductor_left(
        lives, monkeypatch):
    # The conductor creates the instance in its host's cell and dies
    # before mapping it there (so before any compute hears of it).
    monkeypatch.setattr(build_task, '_build_in_cell', lambda *a, **k: None)
    created = lives.cloud.admin_api.create_server(name='half', wait_for=None)

    api = lives.restart()
    api.wait_for_state(created['id'], 'ERROR')
    listed = [s for s in api.get_servers(search_opts={'all_tenants': 1})
              if s['id'] == created['id']]
    assert [s['status'] for s in listed] == ['ERROR']
    api.delete_server_and_wait(created['id'])
    assert created['id'] not in [
        s['id'] for s in api.get_servers(search_opts={'all_tenants': 1})]
    assert _allocations(created['id']) == {}


def test_restart_fails_servers_a_stopped_compute_was_building(
        lives, monkeypatch):
    # The compute takes the build and dies before its claim.
    monkeypatch.setattr(compute_build, '_build_and_run_instance',
                        lambda *a, **k: None)
    first = lives.cloud.admin_api
    created = first.create_server(name='unclaimed', wait_for=None)
    first.wait_for_state(created['id'], 'BUILD', task_state=None)

    api = lives.restart()
    server = api.wait_for_state(created['id'], 'ERROR')
    assert 'stopped during the build' in server['fault']['message']
    api.delete_server_and_wait(created['id'])
    assert _allocations(created['id']) == {}


def _resources(consumer):
    return {rp: a['resources'] for rp, a in _allocations(consumer).items()}


def test_restart_settles_a_move_a_stopped_conductor_was_scheduling(
        lives, monkeypatch):
    first = lives.cloud.admin_api
    created = first.create_server(name='moving')
    before = _resources(created['id'])

    # The conductor records the migration, hands it the server's
    # allocation, and dies before asking the scheduler.
    def dies(manager, context, instance, scheduler_hint, flavor, *args):
        migration = migrate_task._new_migration(context, instance, flavor)
        manager.report_client.move_allocations(context, instance.uuid,
                                               migration.uuid)
    monkeypatch.setattr(migrate_task, '_cold_migrate', dies)
    first.post('/servers/%s/action' % created['id'],
               {'resize': {'flavorRef': NEW_FLAVOR}}, expected=202)
    first.wait_for_migration_status(created['id'], ['pre-migrating'])

    api = lives.restart()
    server = api.wait_for_state(created['id'], 'ACTIVE', task_state=None)
    assert server['flavor']['original_name'] == 'm1.tiny'
    api.wait_for_migration_status(created['id'], ['error'])
    assert _resources(created['id']) == before
    assert 'conductor stopped' in _latest_fault(created['id']).message
    # The server takes a new move.
    api.post('/servers/%s/action' % created['id'],
             {'resize': {'flavorRef': NEW_FLAVOR}}, expected=202)
    api.wait_for_state(created['id'], 'VERIFY_RESIZE')
    api.delete_server_and_wait(created['id'])
