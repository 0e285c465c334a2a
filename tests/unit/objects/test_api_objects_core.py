"""The API-database objects written and read with Core statements give
what the ORM gave: same rows, same objects, same serializations."""

from oslo_serialization import jsonutils
from oslo_utils import uuidutils
import pytest

from nova_clone.compute.api import build as api_build
from nova_clone.db.api import api as api_db_api
from nova_clone.db.api import models as api_models
from nova_clone import exception
from nova_clone import objects
from nova_clone.objects import flavor as flavor_obj


@pytest.fixture
def ctx(api_ctx):
    return api_ctx


def _orm_mapping(ctx, uuid):
    row = api_db_api.get_row(
        ctx, api_models.InstanceMapping, {'instance_uuid': uuid},
        exception.InstanceMappingNotFound(uuid=uuid),
        relations=('cell_mapping',))
    return objects.InstanceMapping._from_db_object(
        ctx, objects.InstanceMapping(), row)


def _data(obj):
    return obj.obj_to_primitive()['nova_object.data']


def _cell(ctx):
    cell = objects.CellMapping(ctx, name='cell1', transport_url='rabbit://h',
                               database_connection='sqlite://')
    cell.create()
    return cell


def test_instance_mapping_matches_the_orm_rows(ctx):
    cell = _cell(ctx)
    uuid = uuidutils.generate_uuid()
    mapping = objects.InstanceMapping(ctx, instance_uuid=uuid,
                                      cell_mapping=None, project_id='p1',
                                      user_id='u1')
    mapping.create()
    assert mapping.queued_for_delete is False and mapping.id
    assert _data(mapping) == _data(_orm_mapping(ctx, uuid))
    got = objects.InstanceMapping.get_by_instance_uuid(ctx, uuid)
    assert got.obj_to_primitive() == _orm_mapping(ctx, uuid).obj_to_primitive()
    got.cell_mapping = cell
    got.save()
    assert _data(got) == _data(_orm_mapping(ctx, uuid))
    assert got.cell_mapping.uuid == cell.uuid and got.updated_at
    listed = objects.InstanceMappingList.get_by_instance_uuids(
        ctx, [uuid, uuidutils.generate_uuid()])
    assert [m.obj_to_primitive() for m in listed] == [
        _orm_mapping(ctx, uuid).obj_to_primitive()]
    with pytest.raises(exception.InstanceMappingExists):
        objects.InstanceMapping(ctx, instance_uuid=uuid, cell_mapping=None,
                                project_id='p1').create()
    in_cell = objects.InstanceMapping(
        ctx, instance_uuid=uuidutils.generate_uuid(), cell_mapping=cell,
        project_id='p1')
    in_cell.create()
    assert _data(in_cell)['cell_mapping'] == _data(
        _orm_mapping(ctx, in_cell.instance_uuid))['cell_mapping']


def test_instance_mapping_save_writes_only_what_changed(ctx):
    uuid = uuidutils.generate_uuid()
    objects.InstanceMapping(ctx, instance_uuid=uuid, cell_mapping=None,
                            project_id='p1').create()
    mapping = objects.InstanceMapping.get_by_instance_uuid(ctx, uuid)
    mapping.queued_for_delete = False
    mapping.save()
    # Nothing changed: the row is not written, updated_at stays unset.
    assert _orm_mapping(ctx, uuid).updated_at is None
    mapping.queued_for_delete = True
    mapping.save()
    stored = _orm_mapping(ctx, uuid)
    assert stored.queued_for_delete is True and stored.updated_at
    with pytest.raises(exception.InstanceMappingNotFound):
        objects.InstanceMapping(ctx, instance_uuid=uuidutils.generate_uuid(),
                                queued_for_delete=True).save()


def test_insert_row_adds_the_python_defaults(ctx):
    row = api_db_api.insert_row(ctx, api_models.InstanceMapping, {
        'instance_uuid': uuidutils.generate_uuid(), 'project_id': 'p1'})
    assert row.queued_for_delete is False and row.created_at
    assert row.updated_at is None and row.cell_id is None and row.id
    assert api_db_api.select_rows(ctx, api_models.InstanceMapping,
                                  {'id': row.id})[0]['project_id'] == 'p1'


def test_cell_mappings_listed_in_id_order(ctx):
    first = _cell(ctx)
    objects.CellMapping(ctx, uuid=objects.CellMapping.CELL0_UUID,
                        name='cell0', transport_url='none:///',
                        database_connection='sqlite://').create()
    cells = objects.CellMappingList.get_all(ctx)
    assert [c.name for c in cells] == ['cell1', 'cell0']
    assert cells[0].obj_to_primitive() == objects.CellMapping.get_by_uuid(
        ctx, first.uuid).obj_to_primitive()


def test_flavor_read_matches_the_orm_read(ctx):
    objects.Flavor(ctx, name='f1', memory_mb=64, vcpus=1, root_gb=1,
                   flavorid='x1',
                   extra_specs={'b': '2', 'a': '1', 'hw:c': 'z'}).create()
    second = objects.Flavor(ctx, name='f2', memory_mb=64, vcpus=1,
                            root_gb=1, flavorid='x2', extra_specs={'q': '1'})
    second.create()

    @api_db_api.context_manager.reader
    def orm_read(context, **filters):
        return flavor_obj._to_dict(flavor_obj._query(context).filter_by(
            **filters).first())

    for filters in ({'flavorid': 'x1'}, {'id': second.id}, {'name': 'f2'}):
        got = objects.Flavor._flavor_get_from_db(ctx, **filters)
        expected = orm_read(ctx, **filters)
        assert got == expected
        assert list(got['extra_specs']) == list(expected['extra_specs'])
    with pytest.raises(exception.FlavorNotFound):
        objects.Flavor.get_by_flavor_id(ctx, 'nope')
    with pytest.raises(exception.FlavorNotFoundByName):
        objects.Flavor.get_by_name(ctx, 'nope')


def _flavor(ctx):
    objects.Flavor(ctx, name='f1', memory_mb=64, vcpus=1, root_gb=1,
                   flavorid='x1', extra_specs={'a': '1'}).create()
    return objects.Flavor.get_by_flavor_id(ctx, 'x1')


def _changes_as_sets(primitive):
    """Object primitives with their change lists compared as sets (they
    come from sets: their order means nothing)."""
    if isinstance(primitive, dict):
        return {key: (sorted(value) if key == 'nova_object.changes'
                      else _changes_as_sets(value))
                for key, value in primitive.items()}
    if isinstance(primitive, list):
        return [_changes_as_sets(value) for value in primitive]
    return primitive


def test_request_spec_stored_without_the_per_boot_fields(ctx):
    flavor = _flavor(ctx)
    for changes_reset in (False, True):
        spec = objects.RequestSpec.from_components(
            ctx, uuidutils.generate_uuid(),
            {'id': uuidutils.generate_uuid(), 'properties': {}}, flavor,
            None, None, {'scheduler_hints': {'a': 'b'}}, None, 'nova',
            security_groups=['default'])
        spec.requested_networks = [{'uuid': 'x'}]
        if changes_reset:
            spec.obj_reset_changes(recursive=True)
            spec.num_instances = 3
        clone = spec.obj_clone()
        for name in ('ignore_hosts', 'retry', 'requested_resources',
                     'requested_networks', 'id'):
            if clone.obj_attr_is_set(name):
                delattr(clone, name)
        stored = jsonutils.loads(spec._spec_for_storage())
        assert 'requested_networks' not in stored['nova_object.data']
        assert _changes_as_sets(stored) == _changes_as_sets(
            jsonutils.loads(jsonutils.dumps(clone.obj_to_primitive())))
        spec.create()
        got = objects.RequestSpec.get_by_instance_uuid(ctx,
                                                       spec.instance_uuid)
        assert got.id == spec.id and got.scheduler_hints == {'a': ['b']}
        with pytest.raises(exception.RequestSpecExists):
            objects.RequestSpec.from_components(
                ctx, spec.instance_uuid, None, flavor, None, None, {}, None,
                None).create()


def test_created_build_request_is_what_reading_it_back_gives(ctx):
    flavor = _flavor(ctx)
    image = {'id': uuidutils.generate_uuid(), 'name': 'img',
             'status': 'active', 'min_disk': 0, 'min_ram': 0, 'size': 10,
             'disk_format': 'raw', 'container_format': 'bare',
             'properties': {'hw_x': 'y'}}
    for tags in ([], ['t1', 't2']):
        uuid = uuidutils.generate_uuid()
        instance = api_build.new_instance(
            ctx, flavor, image['id'], image, uuid=uuid, index=0,
            display_name='n', display_description=None, hostname='n',
            key_pair=None, availability_zone=None, metadata={'m': 'v'},
            user_data=None, config_drive=None, access_ip_v4=None,
            access_ip_v6=None, reservation_id='r-1', launch_index=0,
            security_groups=['default'])
        bdms = objects.BlockDeviceMappingList(objects=[
            b.obj_clone() for b in api_build.build_bdm_list(
                ctx, image['id'], image, flavor, None)])
        for bdm in bdms:
            bdm.uuid = uuidutils.generate_uuid()
            bdm.instance_uuid = uuid
        build_request = objects.BuildRequest(
            ctx, instance=instance, instance_uuid=uuid, project_id='p1',
            block_device_mappings=bdms, tags=objects.TagList(objects=[
                objects.Tag(resource_id=uuid, tag=t) for t in tags]))
        build_request.create()
        read_back = objects.BuildRequest.get_by_instance_uuid(ctx, uuid)
        assert _changes_as_sets(build_request.obj_to_primitive()) == \
            _changes_as_sets(read_back.obj_to_primitive())
        with pytest.raises(exception.BuildRequestAlreadyExists):
            objects.BuildRequest(ctx, instance=instance, instance_uuid=uuid,
                                 project_id='p1').create()
