"""Scenario 2: a local delete that Placement refuses is a 409, not a loss.

With the compute down the API deletes the server itself, Placement
allocations first.  The real in-process Placement is made to fail the
DELETE /allocations/{server} call; the server must survive untouched and
a later delete, once Placement answers again, must remove everything.
"""

import contextlib
import json

import pytest

from tests.functional.test_delete import _allocations
from tests.functional.test_delete import compute_forced_down
from tests.functional.test_delete import _placed_on


@contextlib.contextmanager
def _placement_refuses_delete(cloud, consumer, status):
    """Placement answers ``status`` to DELETE /allocations/<consumer>."""
    slot = cloud.cloud.slots['placement']
    real = slot.app
    path = '/allocations/%s' % consumer

    def refusing(environ, start_response):
        if environ['REQUEST_METHOD'] == 'DELETE' and \
                environ.get('PATH_INFO', '').rstrip('/').endswith(path):
            body = json.dumps({'errors': [{
                'status': status, 'title': 'Refused by the test',
                'detail': 'allocation delete refused',
                'code': 'placement.undefined_code'}]}).encode()
            start_response('%d Refused' % status, [
                ('Content-Type', 'application/json'),
                ('Content-Length', str(len(body)))])
            return [body]
        return real(environ, start_response)

    slot.app = refusing
    try:
        yield
    finally:
        slot.app = real


def _delete_actions(api, server_id):
    return [a for a in api.get_instance_actions(server_id,
                                                microversion='2.84')
            if a['action'] == 'delete']


@pytest.mark.parametrize('placement_status', [409, 500])
def test_refused_local_delete_is_409_and_keeps_server(cloud, admin_api,
                                                      placement_status):
    server = admin_api.create_server()
    server_id = server['id']
    allocations = _allocations(server_id)
    assert allocations
    host = _placed_on(server_id)

    with compute_forced_down(host):
        with _placement_refuses_delete(cloud, server_id, placement_status):
            resp = admin_api.request('DELETE', '/servers/%s' % server_id)
        assert resp.status_code == 409, resp.text
        fault = resp.json()['conflictingRequest']
        assert fault['code'] == 409
        # The user learns nothing was deleted and that a retry is the fix.
        assert server_id in fault['message']
        assert 'Placement' in fault['message']
        assert 'try' in fault['message'].lower()

        # Untouched: listed, ACTIVE, no task left, allocation kept, and
        # no delete action recorded for an attempt that did nothing.
        got = admin_api.get_server(server_id)
        assert got['status'] == 'ACTIVE'
        assert got['OS-EXT-STS:task_state'] is None
        assert server_id in [s['id'] for s in
                             admin_api.get_servers(detail=False)]
        assert _allocations(server_id) == allocations
        assert admin_api.get_ports(device_id=server_id)
        assert _delete_actions(admin_api, server_id) == []

        # Placement is back: the same local delete now goes through.
        admin_api.delete_server(server_id)
        resp = admin_api.request('GET', '/servers/%s' % server_id)
        assert resp.status_code == 404
    assert _allocations(server_id) == {}
    assert admin_api.get_ports(device_id=server_id) == []
    assert len(_delete_actions(admin_api, server_id)) == 1
