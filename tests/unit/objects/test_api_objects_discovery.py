"""discover_hosts as the scheduler and deployment tools call it."""

import pytest
import sqlalchemy as sa

from nova_clone.conf import CONF
from nova_clone import context as nova_context
from nova_clone.db.api import api as api_db_api
from nova_clone.db.api import models as api_models
from nova_clone.db.main import models as main_models
from nova_clone.db import migration
from nova_clone import exception
from nova_clone import objects
from nova_clone.objects import host_mapping


@pytest.fixture
def cells(tmp_path):
    objects.register_all()
    api_url = 'sqlite:///%s' % (tmp_path / 'api.db')
    migration.db_sync('api', url=api_url)
    CONF.set_override('connection', api_url, group='api_database')
    api_db_api.reset()
    ctx = nova_context.get_admin_context()
    result = {}
    for name in ('cell1', 'cell2'):
        url = 'sqlite:///%s' % (tmp_path / ('%s.db' % name))
        migration.db_sync('main', url=url)
        cell = objects.CellMapping(ctx, name=name, transport_url='fake://',
                                   database_connection=url)
        cell.create()
        result[name] = cell
    objects.CellMapping(ctx, uuid=objects.CellMapping.CELL0_UUID,
                        name='cell0', transport_url='none:///',
                        database_connection='sqlite://').create()
    yield ctx, result
    CONF.clear_override('connection', group='api_database')
    api_db_api.reset()


def _insert(url, table, **values):
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.execute(sa.insert(table).values(**values))
    engine.dispose()


def _node(url, host, node):
    _insert(url, main_models.ComputeNode.__table__, host=host,
            hypervisor_hostname=node, vcpus=1, memory_mb=1, local_gb=1,
            vcpus_used=0, memory_mb_used=0, local_gb_used=0,
            hypervisor_type='fake', hypervisor_version=1, cpu_info='{}',
            mapped=0, deleted=0)


def test_discover_by_compute_node(cells):
    ctx, cell = cells
    _node(cell['cell1'].database_connection, 'h1', 'n1')
    _node(cell['cell1'].database_connection, 'h1', 'n2')
    _node(cell['cell2'].database_connection, 'h2', 'n3')
    messages = []
    created = host_mapping.discover_hosts(ctx, status_fn=messages.append)
    assert sorted((m.host, m.cell_mapping.name) for m in created) == [
        ('h1', 'cell1'), ('h2', 'cell2')]
    assert 'Skipping cell0 since it does not contain hosts.' in messages
    assert objects.HostMapping.get_by_host(ctx, 'h2').cell_mapping.uuid == \
        cell['cell2'].uuid
    # The nodes are marked mapped, so a second run finds nothing.
    assert host_mapping.discover_hosts(ctx) == []


def test_discover_one_cell_by_service(cells):
    ctx, cell = cells
    _insert(cell['cell2'].database_connection,
            main_models.Service.__table__, host='svc-host',
            binary='nova-compute', topic='compute', report_count=0,
            deleted=0)
    _insert(cell['cell2'].database_connection,
            main_models.Service.__table__, host='cond-host',
            binary='nova-conductor', topic='conductor', report_count=0,
            deleted=0)
    created = host_mapping.discover_hosts(
        ctx, cell_uuid=cell['cell2'].uuid, by_service=True)
    assert [m.host for m in created] == ['svc-host']
    assert host_mapping.discover_hosts(ctx, cell_uuid=cell['cell2'].uuid,
                                       by_service=True) == []


def test_host_in_two_cells_is_refused(cells):
    ctx, cell = cells
    _node(cell['cell1'].database_connection, 'dup', 'n1')
    host_mapping.discover_hosts(ctx, cell_uuid=cell['cell1'].uuid)
    _node(cell['cell2'].database_connection, 'dup', 'n2')
    with pytest.raises(exception.HostMappingExists):
        host_mapping.discover_hosts(ctx, cell_uuid=cell['cell2'].uuid)


def test_registry_publishes_classes_on_the_package():
    objects.register_all()
    from nova_clone.objects import cell_mapping
    assert objects.CellMapping is cell_mapping.CellMapping
    assert objects.CellMapping.obj_name() == 'CellMapping'
    prim = objects.CellMapping(uuid=objects.CellMapping.CELL0_UUID,
                               name='cell0').obj_to_primitive()
    assert prim['nova_object.namespace'] == 'nova'
    assert prim['nova_object.name'] == 'CellMapping'


def _instance_row(url, uuid, deleted=0, user_id='u1'):
    _insert(url, main_models.Instance.__table__, uuid=uuid,
            project_id='p1', user_id=user_id, deleted=deleted)


def test_map_cell_instances_in_batches(cells):
    from nova_clone.objects import instance_mapping
    ctx, cell = cells
    url = cell['cell1'].database_connection
    uuids = ['00000000-0000-0000-0000-00000000000%d' % i for i in (1, 2, 3)]
    for uuid in uuids:
        _instance_row(url, uuid)
    _instance_row(url, '00000000-0000-0000-0000-000000000009', deleted=99)
    assert instance_mapping.map_cell_instances(ctx, cell['cell1'], 2) == (
        2, True)
    assert instance_mapping.map_cell_instances(ctx, cell['cell1']) == (
        1, False)
    mappings = objects.InstanceMappingList.get_by_cell_id(
        ctx, cell['cell1'].id)
    assert sorted(m.instance_uuid for m in mappings) == uuids
    assert {m.user_id for m in mappings} == {'u1'}


def test_online_data_migrations_fill_missing_columns(cells):
    from nova_clone.db import data_migrations
    ctx, cell = cells
    url = cell['cell1'].database_connection
    live, gone = ('00000000-0000-0000-0000-0000000000a1',
                  '00000000-0000-0000-0000-0000000000a2')
    _instance_row(url, live, user_id='alice')
    _instance_row(url, gone, deleted=5, user_id='bob')
    for uuid in (live, gone):
        with api_db_api.context_manager.writer.using(ctx):
            ctx.session.execute(sa.insert(
                api_models.InstanceMapping.__table__).values(
                instance_uuid=uuid, project_id='p1',
                cell_id=cell['cell1'].id, user_id=None,
                queued_for_delete=None))
    assert data_migrations.populate_queued_for_delete(ctx, 50) == (2, 2)
    assert data_migrations.populate_user_id(ctx, 50) == (2, 2)
    assert data_migrations.populate_user_id(ctx, 50) == (0, 0)
    got = {m.instance_uuid: m for m in objects.InstanceMappingList.
           get_by_cell_id(ctx, cell['cell1'].id)}
    assert got[live].queued_for_delete is False
    assert got[gone].queued_for_delete is True
    assert (got[live].user_id, got[gone].user_id) == ('alice', 'bob')


def test_has_compute_hosts(cells):
    ctx, cell = cells
    assert not host_mapping.has_compute_hosts(ctx, cell['cell1'])
    _node(cell['cell1'].database_connection, 'h1', 'n1')
    assert host_mapping.has_compute_hosts(ctx, cell['cell1'])
