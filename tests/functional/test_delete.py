"""Scenario 2 (delete) through the REST API of the in-process cloud."""

import contextlib
import time

from nova_clone import context as nova_context
from nova_clone.placement import client as report


def _allocations(server_id):
    return report.SchedulerReportClient().get_allocations_for_consumer(
        nova_context.get_admin_context(), server_id)


def _allocations_soon_gone(server_id, timeout=15, quiet=2.0):
    """The conductor may still be finishing a cancelled build when the
    API already answers 404: its claim can even land after the delete.
    Its cleanup must follow shortly: no allocation for ``quiet`` seconds
    in a row."""
    deadline = time.monotonic() + timeout
    empty_since = None
    while time.monotonic() < deadline:
        if _allocations(server_id):
            empty_since = None
        elif empty_since is None:
            empty_since = time.monotonic()
        elif time.monotonic() - empty_since >= quiet:
            return True
        time.sleep(0.1)
    return False


@contextlib.contextmanager
def compute_forced_down(host):
    """Mark a compute service down as an operator would (forced_down)."""
    from nova_clone import objects
    ctxt = nova_context.get_admin_context()
    found = []
    for cell in objects.CellMappingList.get_all(ctxt):
        if cell.is_cell0():
            continue
        with nova_context.target_cell(ctxt, cell) as cctxt:
            try:
                service = objects.Service.get_by_compute_host(cctxt, host)
            except Exception:
                continue
            service.forced_down = True
            service.save()
            found.append((cell, service))
    assert found, 'no service record for %s' % host
    try:
        yield
    finally:
        for cell, service in found:
            service.forced_down = False
            service.save()


def test_delete_active_server_cleans_everything(cloud, admin_api):
    server = admin_api.create_server()
    assert _allocations(server['id'])
    assert admin_api.get_ports(device_id=server['id'])
    admin_api.delete_server_and_wait(server['id'])
    assert _allocations(server['id']) == {}
    assert admin_api.get_ports(device_id=server['id']) == []
    # Deleted servers' actions stay readable (2.21+): the delete is there.
    resp = admin_api.request('GET', '/servers/%s/os-instance-actions'
                             % server['id'], microversion='2.84')
    assert resp.status_code == 200, resp.text
    assert 'delete' in [a['action'] for a in
                        resp.json()['instanceActions']]


def test_delete_right_after_create(cloud, demo_api):
    created = demo_api.create_server(wait_for=None)
    # Whether it is still a build request or already in a cell, the
    # answer is 204 and the server goes away with nothing left behind.
    demo_api.delete_server(created['id'])
    demo_api.wait_until_deleted(created['id'])
    assert _allocations_soon_gone(created['id'])
    assert created['id'] not in [
        s['id'] for s in demo_api.get_servers(detail=False)]


def _placed_on(server_id):
    client = report.SchedulerReportClient()
    allocs = client.get_allocations_for_consumer(
        nova_context.get_admin_context(), server_id)
    (rp_uuid,) = allocs
    return client.get('/resource_providers/%s' % rp_uuid,
                      version='1.14').json()['name']


def test_delete_with_compute_down_is_local(cloud, admin_api):
    server = admin_api.create_server()
    host = _placed_on(server['id'])
    with compute_forced_down(host):
        admin_api.delete_server(server['id'])
        # No compute involved: the server is gone when the answer comes.
        resp = admin_api.request('GET', '/servers/%s' % server['id'])
        assert resp.status_code == 404
    assert _allocations(server['id']) == {}
    assert admin_api.get_ports(device_id=server['id']) == []


def test_delete_unknown_server_is_404(cloud, demo_api):
    resp = demo_api.request('DELETE',
                            '/servers/00000000-0000-0000-0000-00000000ffff')
    assert resp.status_code == 404
    resp = demo_api.request('DELETE', '/servers/not-a-uuid')
    assert resp.status_code == 404


def test_other_projects_cannot_delete(cloud, demo_api, admin_api):
    server = admin_api.create_server()
    resp = demo_api.request('DELETE', '/servers/%s' % server['id'])
    assert resp.status_code == 404
    assert admin_api.get_server(server['id'])['status'] == 'ACTIVE'


def test_local_delete_cut_short_is_finished_by_the_compute(
        cloud, admin_api, monkeypatch):
    """The API dies half way through a local delete (allocation gone,
    server still there): the server is left deleting, and its compute
    finishes the delete when it starts again."""
    from nova_clone.compute.api import delete as api_delete

    server = admin_api.create_server()
    server_id = server['id']
    host = _placed_on(server_id)

    def cut_short(*args, **kwargs):
        raise RuntimeError('nova-api worker killed')
    monkeypatch.setattr(api_delete.release, 'release_attachments',
                        cut_short)
    with compute_forced_down(host):
        cloud.stop_compute(host)
        resp = admin_api.request('DELETE', '/servers/%s' % server_id)
        assert resp.status_code == 500, resp.text
        monkeypatch.undo()
        assert _allocations(server_id) == {}
        left = admin_api.get_server(server_id)
        assert left['OS-EXT-STS:task_state'] == 'deleting'
    cloud.start_compute(host)
    admin_api.wait_until_deleted(server_id)
    assert _allocations(server_id) == {}
    assert admin_api.get_ports(device_id=server_id) == []
