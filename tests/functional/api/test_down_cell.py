"""A cell whose database fails: server lists follow
``[api] list_records_by_skipping_down_cells`` as in Nova."""

import os

import pytest

from nova_clone.conf import CONF
from nova_clone import context as nova_context
from nova_clone import objects
from tests.functional.api import apifixture as af
from tests.functional.api import cellrecords


@pytest.fixture(scope='module')
def down_cell(bed):
    af.install_compute_api(bed)
    # A database file in a directory that does not exist: every query of
    # this cell fails.
    missing = os.path.join(bed.dir, 'gone', 'cell2.sqlite')
    cell = objects.CellMapping(
        context=nova_context.get_admin_context(),
        uuid='4c0d5f0e-7d53-4f3c-9a61-2b0f3c8e9d21', name='cell2',
        transport_url='fake://', database_connection='sqlite:///' + missing)
    cell.create()
    nova_context.forget_cell_list()
    yield cell
    from nova_clone.api.controllers import servers
    servers.set_compute_api(None)


@pytest.fixture
def fail_on_down_cells():
    CONF.set_override('list_records_by_skipping_down_cells', False,
                      group='api')
    yield
    CONF.clear_override('list_records_by_skipping_down_cells', group='api')


def test_list_leaves_out_a_failing_cell_by_default(down_cell, bed, demo):
    inst = cellrecords.add_instance(bed, demo.project, demo.user)[0]
    for path in ('/servers', '/servers/detail'):
        reply = demo.get(path, version='2.1')
        assert reply.status == 200, reply
        assert [s['id'] for s in reply.body['servers']] == [inst.uuid]


def test_list_fails_when_told_not_to_skip(down_cell, bed, demo,
                                          fail_on_down_cells):
    for path in ('/servers', '/servers/detail'):
        reply = demo.get(path, version='2.1')
        assert reply.status == 500, reply
        fault = reply.body['computeFault']
        assert fault['code'] == 500
        assert down_cell.uuid in fault['message']
        assert 'Traceback' not in reply.text
