"""Cell-object code paths that run on MySQL only, against a local MariaDB.

Rows read as one JSON column (queries.WideRow) and action events recorded
with UPDATE ... ORDER BY ... LIMIT 1.  Skipped when no server answers at
root@127.0.0.1; each run uses a throw-away database.
"""

import datetime
import os

import pytest
import sqlalchemy as sa
from oslo_utils import uuidutils

from nova_clone.db.main import api as main_db_api
from nova_clone.db.main import models
from nova_clone.db.main import queries
from nova_clone.db import migration
from nova_clone import exception
from nova_clone import objects
from tests.unit.objects import cell_db

SERVER = 'mysql+pymysql://root@127.0.0.1/'


@pytest.fixture(scope='module')
def cell():
    server = sa.create_engine(SERVER, connect_args={'connect_timeout': 2})
    try:
        server.connect().close()
    except Exception:
        pytest.skip('no MariaDB/MySQL at root@127.0.0.1')
    name = 'nc_unit_cell_%d_%s' % (os.getpid(),
                                    uuidutils.generate_uuid()[:8])
    with server.begin() as conn:
        conn.execute(sa.text('CREATE DATABASE %s' % name))
    try:
        objects.register_all()
        url = '%s%s?charset=utf8mb4' % (SERVER, name)
        migration.db_sync('main', url=url)
        yield main_db_api.create_context_manager(url)
    finally:
        with server.begin() as conn:
            conn.execute(sa.text('DROP DATABASE %s' % name))
        server.dispose()


@pytest.fixture
def ctx(cell):
    return cell_db.admin_ctx(cell)


def _plain_and_json(cell, model, row_id):
    table = model.__table__
    wide = queries.WideRow(table, table.c.id == sa.bindparam('id'))
    with cell.reader.get_engine().connect() as conn:
        plain = dict(conn.execute(wide.plain, {'id': row_id}).one()._mapping)
        assert conn.dialect.name == 'mysql' and wide.json is not None
        return plain, wide.first(conn, {'id': row_id})


def _same(plain, from_json):
    assert set(plain) == set(from_json)
    for key, value in plain.items():
        assert from_json[key] == value, key
        assert type(from_json[key]) is type(value), key


def test_wide_rows_read_as_json_equal_the_plain_select(ctx, cell):
    inst = objects.Instance(
        ctx, project_id='p1', user_id='u1', locked=True, hidden=False,
        display_name='r\u00e9n \U0001F600 "q" \\ \n\t\x01',
        user_data='A' * 70000, compute_id=2 ** 40,
        launched_at=datetime.datetime(2024, 5, 1, 12, 0, 0, 654321),
        access_ip_v4='192.0.2.7', locked_by='admin', system_metadata={})
    inst.create()
    _same(*_plain_and_json(cell, models.Instance, inst.id))
    node = objects.ComputeNode(
        ctx, host='h', hypervisor_hostname='h', vcpus=1, memory_mb=2,
        local_gb=3, vcpus_used=0, memory_mb_used=0, local_gb_used=0,
        hypervisor_type='fake', hypervisor_version=1, cpu_info='{}',
        cpu_allocation_ratio=1.2345678, ram_allocation_ratio=16.0,
        disk_allocation_ratio=0.1, stats={'a': 'b'})
    node.create()
    _same(*_plain_and_json(cell, models.ComputeNode, node.id))


def test_values_read_back_are_those_coercion_gives(ctx):
    def make(**kw):
        values = dict(project_id='p1', user_id='u1', host='h1',
                      flavor=objects.Flavor(
                          id=7, name='m1', memory_mb=64, vcpus=1, root_gb=1,
                          ephemeral_gb=0, flavorid='7', swap=0,
                          rxtx_factor=1.0, vcpu_weight=None, disabled=False,
                          is_public=True, extra_specs={'hw:cpu': 'x'},
                          description=None))
        values.update(kw)
        inst = objects.Instance(ctx, **values)
        inst.create()
        return inst
    cell_db.assert_read_back_as_coerced(ctx, make)


def test_save_takes_back_what_another_writer_changed(ctx):
    inst = objects.Instance(ctx, project_id='p1', user_id='u1',
                            task_state='scheduling')
    inst.create()
    other = objects.Instance.get_by_uuid(ctx, inst.uuid)
    other.display_name = '\u00e9t\u00e9'
    other.locked = True
    other.save()
    inst.task_state = 'networking'
    inst.save(expected_task_state='scheduling')
    assert inst.display_name == '\u00e9t\u00e9' and inst.locked is True
    assert inst.updated_at.microsecond == 0  # as DATETIME stores it
    assert not inst.obj_what_changed()


class _Statements:
    def __init__(self, cell):
        self.engine = cell.writer.get_engine()

    def _count(self, conn, cursor, statement, *args):
        self.statements.append(statement)

    def __enter__(self):
        self.statements = []
        sa.event.listen(self.engine, 'before_cursor_execute', self._count)
        return self

    def __exit__(self, *exc):
        sa.event.remove(self.engine, 'before_cursor_execute', self._count)


def _action(cell, action_id):
    table = models.InstanceAction.__table__
    with cell.reader.get_engine().connect() as conn:
        return conn.execute(sa.select(table).where(
            table.c.id == action_id)).one()


def test_events_touch_the_newest_action_in_two_statements(ctx, cell):
    inst = objects.Instance(ctx, project_id='p1', user_id='u1')
    inst.create()
    rctx = cell_db.user_ctx(cell)
    rctx.request_id = 'req-%s' % uuidutils.generate_uuid()
    older = objects.InstanceAction.action_start(rctx, inst.uuid, 'stop')
    action = objects.InstanceAction.action_start(rctx, inst.uuid, 'start')
    event = objects.InstanceActionEvent
    with _Statements(cell) as counter:
        started = event.event_start(rctx, inst.uuid, 'compute_a',
                                    want_result=False, host='cmp1')
    assert started is None and len(counter.statements) == 2
    with _Statements(cell) as counter:
        event.event_finish_with_failure(rctx, inst.uuid, 'compute_a',
                                        exc_val=ValueError('x'),
                                        want_result=False)
    assert len(counter.statements) == 2
    row = _action(cell, action.id)
    assert row.message == 'Error' and row.updated_at is not None
    assert _action(cell, older.id).message is None
    (done,) = objects.InstanceActionEventList.get_by_action(rctx, action.id)
    assert (done.event, done.result, done.details, done.host) == (
        'compute_a', 'Error', 'ValueError', 'cmp1')
    assert done.finish_time is not None and done.updated_at is not None
    # A missing event changes nothing, not even the action's updated_at.
    before = _action(cell, action.id)
    with pytest.raises(exception.InstanceActionEventNotFound):
        event.event_finish(rctx, inst.uuid, 'compute_never')
    assert _action(cell, action.id) == before
    # A service context falls back to the newest action, untouched.
    service = cell_db.admin_ctx(cell)
    service.request_id = 'req-restarted'
    got = event.event_start(service, inst.uuid, 'compute_b')
    assert got.action_id == action.id
    event.event_finish(service, inst.uuid, 'compute_b')
    assert _action(cell, action.id).updated_at == before.updated_at
    with pytest.raises(exception.InstanceActionNotFound):
        event.event_start(cell_db.user_ctx(cell), inst.uuid, 'compute_c')
