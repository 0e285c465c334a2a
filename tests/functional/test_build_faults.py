"""A delete racing the burial in cell0 of a server that failed
scheduling, and builds whose cast was lost on the way."""

import time

from nova_clone.compute import rpcapi as compute_rpcapi
from nova_clone.conductor import manager as conductor_manager
from nova_clone.conductor import rpcapi as conductor_rpcapi
from nova_clone.conductor.tasks import build as build_task
from nova_clone import context as nova_context
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


def _settle_lost_builds(cloud, monkeypatch=None):
    """Run the super-conductor's lost-build check now; with
    ``monkeypatch``, as if every build were past its patience."""
    if monkeypatch is not None:
        monkeypatch.setattr(conductor_manager, 'LOST_BUILD_SECONDS', 0)
    conductor = [svc.manager for svc in cloud.cloud.services
                 if isinstance(svc.manager,
                               conductor_manager.ConductorManager)][0]
    conductor._settle_lost_builds(nova_context.get_admin_context())


def _failed_with(api, server_id, message):
    server = api.wait_for_state(server_id, 'ERROR')
    assert message in server['fault']['message']
    assert _allocations(server_id) == {}
    api.delete_server_and_wait(server_id)


def test_a_build_request_whose_cast_was_lost_is_buried_with_a_fault(
        cloud, admin_api, monkeypatch):
    # The nova-api worker records the request and dies before its cast.
    monkeypatch.setattr(conductor_rpcapi.ComputeTaskAPI,
                        'schedule_and_build_instances',
                        lambda *a, **k: None)
    created = admin_api.create_server(name='lost-cast', wait_for=None)
    monkeypatch.undo()
    _settle_lost_builds(cloud)
    # Not yet: the request is younger than the conductor's patience.
    assert admin_api.get_server(created['id'])['status'] == 'BUILD'
    _settle_lost_builds(cloud, monkeypatch)
    _failed_with(admin_api, created['id'], 'No conductor took this server up')


def test_a_build_whose_cast_no_compute_got_is_failed_with_a_fault(
        cloud, admin_api, monkeypatch):
    # Scheduled, then the cast to the compute is lost with the broker.
    casts = []
    monkeypatch.setattr(compute_rpcapi.ComputeAPI, 'build_and_run_instance',
                        lambda *a, **k: casts.append(k))
    created = admin_api.create_server(name='lost-build', wait_for=None)
    end = time.monotonic() + 30
    while not casts:
        assert time.monotonic() < end, 'never scheduled'
        time.sleep(0.1)
    monkeypatch.undo()
    admin_api.wait_for_state(created['id'], 'BUILD', task_state='scheduling')
    assert _allocations(created['id'])
    _settle_lost_builds(cloud, monkeypatch)
    _failed_with(admin_api, created['id'], 'No compute took')
