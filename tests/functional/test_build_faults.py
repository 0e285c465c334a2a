"""Builds caught by a fault: a delete racing the burial of a server that
failed scheduling, and a conductor that stopped mid-scheduling."""

import shutil
import tempfile
import time

from nova_clone.conductor.tasks import build as build_task
from tests.functional import fixtures
from tests.functional.test_boot import _allocations
from tests.functional.test_boot import _unplaceable_flavor


def test_delete_racing_the_burial_in_cell0_leaves_nothing(
        cloud, admin_api, monkeypatch):
    flavor_id = _unplaceable_flavor(admin_api)
    deleted = []
    record = build_task._record_failed_create

    def delete_meanwhile(cctxt, instance, exc, event_name):
        # The cell0 row exists, the mapping does not point at it yet: the
        # user's delete lands right here.
        admin_api.delete('/servers/%s' % instance.uuid, expected=204)
        deleted.append(instance.uuid)
        return record(cctxt, instance, exc, event_name)
    monkeypatch.setattr(build_task, '_record_failed_create',
                        delete_meanwhile)
    created = admin_api.create_server(flavor_id=flavor_id, wait_for=None)
    end = time.monotonic() + 30
    while not deleted:
        assert time.monotonic() < end, 'the build never failed'
        time.sleep(0.05)
    monkeypatch.undo()
    admin_api.get('/servers/%s' % created['id'], expected=404)
    # Once the burial is over the server is not listed either (it was,
    # as ERROR, for good).
    end = time.monotonic() + 10
    while created['id'] in [s['id'] for s in admin_api.get_servers(
            search_opts={'all_tenants': 1})]:
        assert time.monotonic() < end, 'a deleted server is still listed'
        time.sleep(0.1)


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
