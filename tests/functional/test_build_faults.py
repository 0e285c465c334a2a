"""A delete racing the burial in cell0 of a server that failed
scheduling."""

import time

from nova_clone.conductor.tasks import build as build_task
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
