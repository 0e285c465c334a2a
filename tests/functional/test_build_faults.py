"""A delete racing the burial in cell0 of a server that failed
scheduling, and builds and moves whose cast was lost on the way."""

import time

import pytest

from nova_clone.compute import rpcapi as compute_rpcapi
from nova_clone.conductor import manager as conductor_manager
from nova_clone.conductor import rpcapi as conductor_rpcapi
from nova_clone.conductor.tasks import build as build_task
from nova_clone import context as nova_context
from tests.functional.test_boot import _allocations
from tests.functional.test_boot import _unplaceable_flavor
from tests.functional import test_resize


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


def _settle_lost_requests(cloud, monkeypatch=None):
    """Run the super-conductor's lost-build check now; with
    ``monkeypatch``, as if every build were past its patience."""
    if monkeypatch is not None:
        monkeypatch.setattr(conductor_manager, 'LOST_REQUEST_SECONDS', 0)
    conductor = [svc.manager for svc in cloud.cloud.services
                 if isinstance(svc.manager,
                               conductor_manager.ConductorManager)][0]
    conductor._settle_lost_requests(nova_context.get_admin_context())


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
    _settle_lost_requests(cloud)
    # Not yet: the request is younger than the conductor's patience.
    assert admin_api.get_server(created['id'])['status'] == 'BUILD'
    _settle_lost_requests(cloud, monkeypatch)
    _failed_with(admin_api, created['id'], 'No conductor took this server up')


@pytest.mark.parametrize('other_check_fails', [False, True])
def test_a_build_whose_cast_no_compute_got_is_failed_with_a_fault(
        cloud, admin_api, monkeypatch, other_check_fails):
    # Scheduled, then the cast to the compute is lost with the broker.
    if other_check_fails:
        # The check before it fails (a cell or Placement away): this one
        # still runs.
        def away(*args, **kwargs):
            raise RuntimeError('the API database is away')
        monkeypatch.setattr(build_task, 'bury_abandoned_build_requests',
                            away)
    casts = []
    build_and_run_instance = compute_rpcapi.ComputeAPI.build_and_run_instance
    monkeypatch.setattr(compute_rpcapi.ComputeAPI, 'build_and_run_instance',
                        lambda *a, **k: casts.append(k))
    created = admin_api.create_server(name='lost-build', wait_for=None)
    end = time.monotonic() + 30
    while not casts:
        assert time.monotonic() < end, 'never scheduled'
        time.sleep(0.1)
    monkeypatch.setattr(compute_rpcapi.ComputeAPI, 'build_and_run_instance',
                        build_and_run_instance)
    admin_api.wait_for_state(created['id'], 'BUILD', task_state='scheduling')
    assert _allocations(created['id'])
    _settle_lost_requests(cloud, monkeypatch)
    monkeypatch.undo()
    _failed_with(admin_api, created['id'], 'No compute took')


def _resize(api, server_id):
    api.request('POST', '/servers/%s/action' % server_id,
                {'resize': {'flavorRef': test_resize.NEW_FLAVOR}},
                expected=202)


def _resources(consumer):
    return {rp: a['resources'] for rp, a in _allocations(consumer).items()}


def _left_as_it_was(api, server_id, host, allocation, message):
    server = api.wait_for_state(server_id, 'ACTIVE', task_state=None)
    assert server['OS-EXT-SRV-ATTR:host'] == host
    assert server['flavor']['original_name'] == 'm1.tiny'
    migration = api.wait_for_migration_status(server_id, ['error'])
    assert _resources(server_id) == allocation
    assert _resources(migration['uuid']) == {}
    assert message in test_resize._latest_fault(server_id).message
    api.delete_server_and_wait(server_id)


def test_a_move_whose_cast_no_destination_got_is_given_up(
        cloud, admin_api, monkeypatch):
    server = admin_api.create_server(name='lost-move')
    host = admin_api.get_server(server['id'])['OS-EXT-SRV-ATTR:host']
    allocation = _resources(server['id'])
    casts = []
    monkeypatch.setattr(compute_rpcapi.ComputeAPI, 'prep_resize',
                        lambda *a, **k: casts.append(k))
    _resize(admin_api, server['id'])
    end = time.monotonic() + 30
    while not casts:
        assert time.monotonic() < end, 'never scheduled'
        time.sleep(0.1)
    monkeypatch.undo()
    _settle_lost_requests(cloud)
    # Not yet: the move is younger than the conductor's patience.
    assert admin_api.get_server(server['id'])['status'] == 'RESIZE'
    _settle_lost_requests(cloud, monkeypatch)
    _left_as_it_was(admin_api, server['id'], host, allocation,
                    'No compute took this server\'s move up')


def test_a_move_placement_refused_to_start_is_given_up_at_once(
        cloud, admin_api, monkeypatch):
    from nova_clone import exception
    server = admin_api.create_server(name='unplaced-move')
    host = admin_api.get_server(server['id'])['OS-EXT-SRV-ATTR:host']
    allocation = _resources(server['id'])

    def unreachable(*args, **kwargs):
        raise exception.PlacementAPIConnectFailure(reason='stopped')
    monkeypatch.setattr(test_resize.report.SchedulerReportClient,
                        'move_allocations', unreachable)
    _resize(admin_api, server['id'])
    admin_api.wait_for_migration_status(server['id'], ['error'])
    monkeypatch.undo()
    _left_as_it_was(admin_api, server['id'], host, allocation,
                    'Placement')


def test_a_failed_build_the_database_missed_is_recorded_once_it_answers(
        cloud, admin_api, monkeypatch):
    from oslo_db import exception as db_exc

    from nova_clone.compute.host import build as host_build
    from nova_clone import exception
    from nova_clone import objects

    def broken(*args, **kwargs):
        raise exception.NovaException('the guest could not be built')
    monkeypatch.setattr(host_build, '_locked_build', broken)
    # The database restarts as the compute records the failure.
    create = objects.InstanceFault.create
    refused = []

    def database_away(fault):
        if len(refused) < 2:
            refused.append(fault.instance_uuid)
            raise db_exc.DBConnectionError('the database is restarting')
        return create(fault)
    monkeypatch.setattr(objects.InstanceFault, 'create', database_away)
    created = admin_api.create_server(name='unrecorded', wait_for=None)
    server = admin_api.wait_for_state(created['id'], 'ERROR', timeout=30)
    assert refused == [created['id']] * 2
    assert server['fault']['message'] == 'the guest could not be built'
    assert _allocations(created['id']) == {}
    admin_api.delete_server_and_wait(created['id'])
