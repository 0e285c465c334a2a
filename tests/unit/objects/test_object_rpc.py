"""Object methods run by the conductor for a compute, over a JSON wire.

The compute's copy of an object must end each remotable call as the
conductor's copy is; the reply carries only the fields the call changed.
Also the database work behind the calls a compute makes most (save,
action events, info cache, destroy): what they leave in the tables and
how many statements they take.
"""

import oslo_messaging as messaging
import pytest
from oslo_serialization import jsonutils
from oslo_utils import timeutils
from oslo_utils import uuidutils
from oslo_versionedobjects import base as ovo_base
import sqlalchemy as sa

from nova_clone.conductor import manager as conductor_manager
from nova_clone import context as nova_context
from nova_clone.db.main import models
from nova_clone import exception
from nova_clone import objects
from nova_clone.objects import base as objects_base
from nova_clone import rpc
from tests.unit.objects import cell_db


@pytest.fixture(scope='module')
def cell(tmp_path_factory):
    url, manager = cell_db.make_cell_db(
        tmp_path_factory.mktemp('cell') / 'rpc.db')
    return manager


@pytest.fixture
def ctx(cell):
    return cell_db.admin_ctx(cell)


class Wire:
    """An indirection API that sends each call through JSON to a
    ConductorManager, as the conductor RPC API does, and keeps the
    replies of object_action."""

    def __init__(self, cell):
        self.cell = cell
        self.manager = conductor_manager.ConductorManager(host='cond')
        self.serializer = rpc.RequestContextSerializer(
            objects_base.NovaObjectSerializer())
        self.updates = []

    def _call(self, context, method, **kwargs):
        ser = self.serializer
        wire = jsonutils.dumps({
            'context': ser.serialize_context(context),
            'args': {k: ser.serialize_entity(context, v)
                     for k, v in kwargs.items()}})
        got = jsonutils.loads(wire)
        cctxt = ser.deserialize_context(got['context'])
        cctxt.db_connection = self.cell
        args = {k: ser.deserialize_entity(cctxt, v)
                for k, v in got['args'].items()}
        with objects_base.indirection_api_context(None):
            try:
                result = getattr(self.manager, method)(cctxt, **args)
            except messaging.ExpectedException as wrapped:
                # What the RPC server sends back: the exception itself.
                raise wrapped.exc_info[1] from None
        reply = jsonutils.loads(jsonutils.dumps(
            ser.serialize_entity(cctxt, result)))
        return ser.deserialize_entity(context, reply)

    def object_class_action_versions(self, context, objname, objmethod,
                                     object_versions, args, kwargs):
        return self._call(context, 'object_class_action_versions',
                          objname=objname, objmethod=objmethod,
                          object_versions=object_versions, args=args,
                          kwargs=kwargs)

    def object_action(self, context, objinst, objmethod, args, kwargs):
        updates, result = self._call(
            context, 'object_action', objinst=objinst, objmethod=objmethod,
            args=args, kwargs=kwargs)
        self.updates.append(updates)
        return updates, result


@pytest.fixture
def wire(cell):
    api = Wire(cell)
    with objects_base.indirection_api_context(api):
        yield api


class Statements:
    """Counts the SQL statements that read or write rows, on every
    engine (SQLite's transaction control and write lock left out)."""

    def _count(self, conn, cursor, statement, *args):
        if statement.startswith(('BEGIN', 'ROLLBACK', 'COMMIT')) or \
                statement.endswith('WHERE 0 = 1'):
            return
        self.count += 1
        self.statements.append(statement)

    def __enter__(self):
        self.count = 0
        self.statements = []
        sa.event.listen(sa.engine.Engine, 'before_cursor_execute',
                        self._count)
        return self

    def __exit__(self, *exc):
        sa.event.remove(sa.engine.Engine, 'before_cursor_execute',
                        self._count)


def _second(value):
    """A time as the wire carries it: naive UTC, to the second."""
    return timeutils.normalize_time(value).replace(microsecond=0)


def _flavor():
    return objects.Flavor(id=7, name='m1.small', memory_mb=2048, vcpus=2,
                          root_gb=20, ephemeral_gb=0, flavorid='7', swap=0,
                          rxtx_factor=1.0, vcpu_weight=None, disabled=False,
                          is_public=True, extra_specs={'hw:cpu': 'x'},
                          projects=[], description=None)


def _instance(ctx, **kw):
    values = dict(project_id='p1', user_id='u1', display_name='vm',
                  vm_state='building', task_state='scheduling',
                  power_state=0, host='cmp1', node='cmp1', memory_mb=2048,
                  vcpus=2, metadata={'role': 'web'},
                  system_metadata={'image_os': 'linux'}, flavor=_flavor(),
                  security_groups=['default'])
    values.update(kw)
    with objects_base.indirection_api_context(None):
        inst = objects.Instance(ctx, **values)
        inst.create()
        return objects.Instance.get_by_uuid(
            ctx, inst.uuid, expected_attrs=['metadata', 'system_metadata',
                                            'info_cache', 'security_groups',
                                            'flavor'])


def _db(ctx, uuid, **kw):
    """The instance as the database has it (direct access)."""
    with objects_base.indirection_api_context(None):
        return objects.Instance.get_by_uuid(ctx, uuid, **kw)


def _vif(address='10.0.0.5'):
    return {'id': uuidutils.generate_uuid(), 'address': 'fa:16:3e:00:00:01',
            'type': 'ovs', 'network': {
                'id': 'net1', 'label': 'private', 'subnets': [{
                    'cidr': '10.0.0.0/24', 'version': 4,
                    'ips': [{'address': address, 'version': 4}]}]}}


# -- what the reply carries ---------------------------------------------------

def test_save_replies_with_what_it_changed_only(ctx, wire):
    inst = _instance(ctx)
    inst.vm_state, inst.task_state = 'building', 'networking'
    inst.save(expected_task_state=['scheduling'])
    (updates,) = wire.updates
    # The database's updated_at, and the (now empty) change list; the
    # nested objects and dicts did not change and do not travel back.
    assert set(updates) == {'updated_at', 'obj_what_changed'}
    assert not updates['obj_what_changed']
    stored = _db(ctx, inst.uuid)
    assert (stored.vm_state, stored.task_state) == ('building', 'networking')
    assert _second(inst.updated_at) == _second(stored.updated_at)
    assert not inst.obj_what_changed()


def test_save_of_a_nested_object_resets_its_changes_on_the_caller(ctx, wire):
    inst = _instance(ctx)
    cache = inst.info_cache
    inst.info_cache.network_info = [_vif()]
    inst.save()
    assert 'info_cache' in wire.updates[0]
    assert not inst.info_cache.obj_what_changed()
    assert not inst.obj_what_changed()
    assert inst.info_cache is not cache
    stored = _db(ctx, inst.uuid)
    assert [v['id'] for v in stored.info_cache.network_info] == [
        v['id'] for v in inst.info_cache.network_info]


def test_save_takes_back_columns_other_writers_changed(ctx, wire):
    inst = _instance(ctx)
    with objects_base.indirection_api_context(None):
        other = objects.Instance.get_by_uuid(ctx, inst.uuid)
        other.display_name = 'renamed'
        other.save()
    inst.task_state = 'networking'
    inst.save()
    assert inst.display_name == 'renamed'
    assert inst.task_state == 'networking'
    assert not inst.obj_what_changed()


def test_refresh_brings_back_nested_and_dict_changes(ctx, wire):
    inst = _instance(ctx)
    with objects_base.indirection_api_context(None):
        other = objects.Instance.get_by_uuid(
            ctx, inst.uuid, expected_attrs=['metadata', 'info_cache'])
        other.metadata['extra'] = 'yes'
        other.info_cache.network_info = [_vif('10.0.0.9')]
        other.save()
    # refresh() rewrites info_cache.network_info in place: only its
    # content tells that it changed.
    inst.refresh()
    assert {'metadata', 'info_cache'} <= set(wire.updates[0])
    assert inst.metadata == {'role': 'web', 'extra': 'yes'}
    assert inst.info_cache.network_info[0]['network']['subnets'][0][
        'ips'][0]['address'] == '10.0.0.9'
    assert not inst.obj_what_changed()


def test_destroy_reply_clears_the_task_state(ctx, wire):
    inst = _instance(ctx, task_state='deleting')
    inst.destroy()
    updates = wire.updates[0]
    assert updates['task_state'] is None
    assert inst.task_state is None and inst.vm_state == 'deleted'
    assert inst.deleted is True and inst.deleted_at is not None


def _run(conductor, ctx, inst, method):
    """object_action on ``inst`` with an ad-hoc method."""
    setattr(inst, 'adhoc', method)
    with objects_base.indirection_api_context(None):
        return conductor.object_action(ctx, inst, 'adhoc', (), {})[0]


def test_object_action_sees_in_place_and_nulled_changes(ctx):
    conductor = conductor_manager.ConductorManager(host='cond')
    inst = _instance(ctx)

    def untouched():
        inst.display_name = inst.display_name

    def in_place():
        inst.flavor.extra_specs['hw:mem'] = '1'
        inst.flavor.obj_reset_changes()
        inst.system_metadata['image_os'] = 'bsd'

    def nulled():
        inst.info_cache = None
        inst.host = None

    assert set(_run(conductor, ctx, inst, untouched)) == {
        'obj_what_changed'}
    updates = _run(conductor, ctx, inst, in_place)
    assert set(updates) == {'flavor', 'system_metadata', 'obj_what_changed'}
    assert updates['flavor']['nova_object.data']['extra_specs'] == {
        'hw:cpu': 'x', 'hw:mem': '1'}
    assert updates['system_metadata'] == {'image_os': 'bsd'}
    updates = _run(conductor, ctx, inst, nulled)
    assert updates['info_cache'] is None and updates['host'] is None
    assert {'info_cache', 'host'} <= updates['obj_what_changed']


# -- the database work ----------------------------------------------------

def test_save_takes_an_update_and_a_read(ctx, cell):
    inst = _instance(ctx)
    inst._context = ctx
    with objects_base.indirection_api_context(None):
        with Statements() as counter:
            inst.task_state = 'networking'
            inst.save(expected_task_state=('scheduling', None))
    # The compare-and-swap UPDATE, the row read back.
    assert counter.count == 2, counter.statements


def test_save_compare_and_swap_allows_null_and_values(ctx):
    with objects_base.indirection_api_context(None):
        inst = _instance(ctx, task_state=None)
        inst._context = ctx
        inst.task_state = 'networking'
        inst.save(expected_task_state=('scheduling', None))
        inst.task_state = 'spawning'
        inst.save(expected_task_state=('networking', None))
        inst.task_state = None
        with pytest.raises(exception.UnexpectedTaskStateError) as err:
            inst.save(expected_task_state=[None])
        assert err.value.kwargs['actual'] == {'task_state': 'spawning'}
        inst.save(expected_task_state=[None, 'spawning'],
                  expected_vm_state='building')
        assert _db(ctx, inst.uuid).task_state is None


def _request(ctx, project_id='p1'):
    rctx = ctx.elevated()
    rctx.project_id = project_id
    rctx.request_id = 'req-%s' % uuidutils.generate_uuid()
    return rctx


def _action_row(cell, action_id):
    table = models.InstanceAction.__table__
    with cell.reader.get_engine().connect() as conn:
        return conn.execute(sa.select(table).where(
            table.c.id == action_id)).first()


def test_events_record_on_the_newest_action_of_the_request(ctx, cell,
                                                           wire):
    inst = _instance(ctx)
    rctx = _request(ctx)
    with objects_base.indirection_api_context(None):
        older = objects.InstanceAction.action_start(rctx, inst.uuid, 'stop')
        action = objects.InstanceAction.action_start(rctx, inst.uuid,
                                                     'start')
    event = objects.InstanceActionEvent.event_start(
        rctx, inst.uuid, 'compute_start_instance', host='cmp1')
    assert event.action_id == action.id and event.host == 'cmp1'
    assert event.created_at is not None and event.finish_time is None
    assert _second(_action_row(cell, action.id).updated_at) == _second(
        event.start_time)
    done = objects.InstanceActionEvent.event_finish(
        rctx, inst.uuid, 'compute_start_instance')
    assert done.id == event.id and done.result == 'Success'
    assert done.updated_at is not None
    row = _action_row(cell, action.id)
    assert _second(row.updated_at) == _second(done.finish_time)
    assert row.message is None
    assert _action_row(cell, older.id).updated_at == \
        timeutils.normalize_time(older.updated_at)
    with pytest.raises(exception.InstanceActionEventNotFound):
        objects.InstanceActionEvent.event_finish(rctx, inst.uuid,
                                                 'compute_never_started')


def test_event_failure_marks_the_action_once(ctx, cell, wire):
    inst = _instance(ctx)
    rctx = _request(ctx)
    with objects_base.indirection_api_context(None):
        action = objects.InstanceAction.action_start(rctx, inst.uuid,
                                                     'reboot')
    for name in ('compute_a', 'compute_b'):
        objects.InstanceActionEvent.event_start(rctx, inst.uuid, name,
                                                want_result=False)
        assert objects.InstanceActionEvent.event_finish_with_failure(
            rctx, inst.uuid, name, exc_val=ValueError('x'),
            want_result=False) is None
    assert _action_row(cell, action.id).message == 'Error'
    with objects_base.indirection_api_context(None):
        events = objects.InstanceActionEventList.get_by_action(rctx,
                                                               action.id)
    assert {(e.event, e.result, e.details) for e in events} == {
        ('compute_a', 'Error', 'ValueError'),
        ('compute_b', 'Error', 'ValueError')}


def test_service_context_falls_back_to_the_last_action(ctx, cell, wire):
    inst = _instance(ctx)
    rctx = _request(ctx)
    with objects_base.indirection_api_context(None):
        action = objects.InstanceAction.action_start(rctx, inst.uuid,
                                                     'migrate')
    service = nova_context.get_admin_context()
    service.request_id = 'req-restarted-compute'
    event = objects.InstanceActionEvent.event_start(
        service, inst.uuid, 'compute_resume')
    objects.InstanceActionEvent.event_finish(service, inst.uuid,
                                             'compute_resume')
    assert event.action_id == action.id
    # Another request's action: its updated_at is left alone.
    assert _action_row(cell, action.id).updated_at == \
        timeutils.normalize_time(action.updated_at)
    with pytest.raises(exception.InstanceActionNotFound):
        objects.InstanceActionEvent.event_start(
            _request(ctx), inst.uuid, 'compute_resume')


def _cache_row(cell, uuid):
    table = models.InstanceInfoCache.__table__
    with cell.reader.get_engine().connect() as conn:
        return conn.execute(sa.select(table).where(
            table.c.instance_uuid == uuid)).first()


def test_info_cache_save_writes_only_a_new_content(ctx, cell, wire):
    inst = _instance(ctx)
    cache = inst.info_cache
    cache.network_info = [_vif()]
    cache.save()
    first = _cache_row(cell, inst.uuid)
    assert first.updated_at is not None
    assert _second(cache.updated_at) == _second(first.updated_at)
    assert not cache.obj_what_changed()
    assert jsonutils.loads(first.network_info)[0]['id'] == \
        cache.network_info[0]['id']
    cache.network_info = list(cache.network_info)
    with Statements() as counter:
        cache.save()
    assert counter.count == 1, counter.statements  # a read, no UPDATE
    assert _cache_row(cell, inst.uuid).updated_at == first.updated_at


def test_info_cache_of_a_deleted_instance_stays_deleted(ctx, cell, wire):
    inst = _instance(ctx)
    cache = inst.info_cache
    inst.destroy()
    cache.network_info = [_vif()]
    cache.save()
    row = _cache_row(cell, inst.uuid)
    assert row.deleted and row.network_info == '[]'
    assert cache.deleted is True


def test_info_cache_row_is_created_when_missing(ctx, cell, wire):
    inst = _instance(ctx)
    table = models.InstanceInfoCache.__table__
    with cell.writer.get_engine().begin() as conn:
        conn.execute(sa.delete(table).where(
            table.c.instance_uuid == inst.uuid))
    inst.info_cache.network_info = [_vif()]
    inst.info_cache.save()
    row = _cache_row(cell, inst.uuid)
    assert row.created_at is not None and row.deleted == 0
    assert _second(inst.info_cache.created_at) == _second(row.created_at)


def _rows(cell, model, **where):
    table = model.__table__
    with cell.reader.get_engine().connect() as conn:
        return conn.execute(sa.select(table).where(*[
            table.c[k] == v for k, v in where.items()])).all()


def test_destroy_soft_deletes_what_goes_with_the_instance(ctx, cell, wire):
    inst = _instance(ctx, launched_at=None)
    with objects_base.indirection_api_context(None):
        objects.Tag(ctx, resource_id=inst.uuid, tag='blue').create()
    inst.destroy()
    for model in (models.InstanceMetadata, models.InstanceSystemMetadata,
                  models.InstanceInfoCache, models.InstanceExtra,
                  models.SecurityGroupInstanceAssociation):
        rows = _rows(cell, model, instance_uuid=inst.uuid)
        assert rows and all(r.deleted == r.id and r.deleted_at
                            for r in rows), model
    assert not _rows(cell, models.Tag, resource_id=inst.uuid)
    (row,) = _rows(cell, models.Instance, uuid=inst.uuid)
    assert row.deleted == row.id and row.vm_state == 'deleted'
    assert _second(row.terminated_at) == _second(inst.terminated_at)
    assert row.deleted_at == row.terminated_at <= row.updated_at
    assert _second(inst.deleted_at) == _second(row.deleted_at)


def test_hard_destroy_removes_the_rows_and_the_actions(ctx, cell):
    inst = _instance(ctx)
    rctx = _request(ctx)
    with objects_base.indirection_api_context(None):
        objects.InstanceAction.action_start(rctx, inst.uuid, 'create')
        objects.InstanceActionEvent.event_start(rctx, inst.uuid, 'x')
        inst._context = ctx
        inst.destroy(hard_delete=True)
    assert inst.deleted is True
    for model in (models.Instance, models.InstanceMetadata,
                  models.InstanceInfoCache, models.InstanceExtra,
                  models.InstanceAction):
        key = 'uuid' if model is models.Instance else 'instance_uuid'
        assert not _rows(cell, model, **{key: inst.uuid}), model


def test_create_writes_the_rows_without_reading_them_back(ctx, cell):
    with objects_base.indirection_api_context(None):
        _instance(ctx)  # the project's "default" group exists from now on
        inst = objects.Instance(
            ctx, project_id='p1', user_id='u1', display_name='vm',
            metadata={'a': '1', 'b': '2'}, system_metadata={'c': None},
            flavor=_flavor(), security_groups=['default', 'default'],
            tags=objects.TagList(objects=[objects.Tag(tag='t1')]))
        with Statements() as counter:
            inst.create()
        got = objects.Instance.get_by_uuid(
            ctx, inst.uuid, expected_attrs=['metadata', 'system_metadata',
                                            'info_cache', 'security_groups',
                                            'tags'])
    # One INSERT per table (the instance, its metadata, system metadata,
    # group association, extra, info cache and tags) and the group lookup.
    assert counter.count == 8, counter.statements
    assert not [s for s in counter.statements if 'DELETE' in s]
    assert not inst.obj_what_changed()
    for name in ('id', 'metadata', 'system_metadata', 'security_groups',
                 'deleted', 'created_at'):
        assert getattr(inst, name) == getattr(got, name), name
    assert inst.info_cache.network_info == got.info_cache.network_info
    assert [t.tag for t in got.tags] == ['t1']


def test_destroy_writes_only_tables_holding_rows(ctx, cell, wire):
    inst = _instance(ctx, metadata={})
    with Statements() as counter:
        inst.destroy()
    # The read, then the system metadata, info cache, extra and group
    # association soft-deleted, then the instance: no statement for the
    # empty metadata, faults, migrations, mappings, tags and tokens.
    assert counter.count == 6, counter.statements
    assert inst.deleted is True and inst.vm_state == 'deleted'
    for model in (models.InstanceSystemMetadata, models.InstanceInfoCache,
                  models.InstanceExtra,
                  models.SecurityGroupInstanceAssociation):
        rows = _rows(cell, model, instance_uuid=inst.uuid)
        assert rows and all(r.deleted == r.id for r in rows), model


def test_compute_node_save_writes_only_what_differs(ctx, cell, wire):
    with objects_base.indirection_api_context(None):
        node = objects.ComputeNode(
            ctx, host='cmp-save', hypervisor_hostname='cmp-save', vcpus=8,
            memory_mb=4096, local_gb=100, vcpus_used=0, memory_mb_used=0,
            local_gb_used=0, hypervisor_type='fake', hypervisor_version=1,
            cpu_info='{}', running_vms=0)
        node.create()
    table = models.ComputeNode.__table__

    def stored():
        with cell.reader.get_engine().connect() as conn:
            return conn.execute(sa.select(table).where(
                table.c.id == node.id)).first()

    assert node.updated_at is None
    node.vcpus_used, node.running_vms = 0, 0  # set, but to the same
    with Statements() as counter:
        node.save()
    assert counter.count == 1, counter.statements  # the read only
    assert node.updated_at is None and stored().updated_at is None
    node.vcpus_used, node.memory_mb_used = 1, 512
    with Statements() as counter:
        node.save()
    assert counter.count == 2, counter.statements
    assert 'running_vms' not in counter.statements[1]
    row = stored()
    assert (row.vcpus_used, row.memory_mb_used) == (1, 512)
    assert _second(node.updated_at) == _second(row.updated_at)
    assert not node.obj_what_changed()


def test_action_events_take_three_statements_each(ctx, cell, wire):
    inst = _instance(ctx)
    rctx = _request(ctx)
    with objects_base.indirection_api_context(None):
        objects.InstanceAction.action_start(rctx, inst.uuid, 'create')
    with Statements() as counter:
        objects.InstanceActionEvent.event_start(
            rctx, inst.uuid, 'compute_x', want_result=False)
        objects.InstanceActionEvent.event_finish(
            rctx, inst.uuid, 'compute_x', want_result=False)
    # SQLite: find the action, write the event, touch the action (MySQL
    # does the first and last in one statement).
    assert counter.count == 6, counter.statements


def test_change_tracking_follows_oslo_rules():
    inst = objects.Instance(uuid=uuidutils.generate_uuid(), host='h',
                            flavor=_flavor(), info_cache=None)
    assert inst.obj_attr_is_set('host') and not inst.obj_attr_is_set('node')
    with pytest.raises(AttributeError):
        inst.obj_attr_is_set('no_such_field')
    inst.obj_reset_changes(recursive=True)
    assert inst.obj_what_changed() == set()
    inst.flavor.name = 'm1.other'
    inst.node = 'n'
    assert inst.obj_what_changed() == {'flavor', 'node'}
    assert ovo_base.VersionedObject.obj_what_changed(inst) == {'flavor',
                                                               'node'}
