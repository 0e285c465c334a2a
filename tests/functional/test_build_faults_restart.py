"""A server a stopped conductor was scheduling, or a stopped compute was
building, does not stay BUILD, nor one whose move a stopped conductor was
scheduling RESIZE: the restarted embedded cloud (its own module: it runs
its own cloud, not the session's) settles it with a fault saying why."""

import shutil
import tempfile

from nova_clone.compute.host import build as compute_build
from nova_clone.conductor.tasks import build as build_task
from nova_clone.conductor.tasks import migrate as migrate_task
from tests.functional import fixtures
from tests.functional.test_boot import _allocations
from tests.functional.test_resize import _latest_fault
from tests.functional.test_resize import NEW_FLAVOR


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


def _resources(consumer):
    return {rp: a['resources'] for rp, a in _allocations(consumer).items()}


def test_restart_settles_a_move_a_stopped_conductor_was_scheduling(
        monkeypatch):
    state_dir = tempfile.mkdtemp(prefix='nc_func_lostmove_')
    first = second = None
    try:
        first = fixtures.TestCloud(state_dir=state_dir).start()
        created = first.admin_api.create_server(name='moving')
        before = _resources(created['id'])

        # The conductor records the migration, hands it the server's
        # allocation, and dies before asking the scheduler.
        def dies(manager, context, instance, scheduler_hint, flavor,
                 *args):
            migration = migrate_task._new_migration(context, instance,
                                                    flavor)
            manager.report_client.move_allocations(
                context, instance.uuid, migration.uuid)
        monkeypatch.setattr(migrate_task, '_cold_migrate', dies)
        first.admin_api.post('/servers/%s/action' % created['id'],
                             {'resize': {'flavorRef': NEW_FLAVOR}},
                             expected=202)
        first.admin_api.wait_for_migration_status(created['id'],
                                                  ['pre-migrating'])
        first.stop()
        first = None
        monkeypatch.undo()

        second = fixtures.TestCloud(state_dir=state_dir).start()
        api = second.admin_api
        server = api.wait_for_state(created['id'], 'ACTIVE',
                                    task_state=None)
        assert server['flavor']['original_name'] == 'm1.tiny'
        api.wait_for_migration_status(created['id'], ['error'])
        assert _resources(created['id']) == before
        assert 'conductor stopped' in _latest_fault(created['id']).message
        # The server takes a new move.
        api.post('/servers/%s/action' % created['id'],
                 {'resize': {'flavorRef': NEW_FLAVOR}}, expected=202)
        api.wait_for_state(created['id'], 'VERIFY_RESIZE')
        api.delete_server_and_wait(created['id'])
    finally:
        for cloud in (first, second):
            if cloud is not None:
                cloud.stop()
        shutil.rmtree(state_dir, ignore_errors=True)
