"""API-database objects against a migrated SQLite API database."""

import threading

from oslo_serialization import jsonutils
from oslo_utils import uuidutils
import pytest

from nova_clone import context as nova_context
from nova_clone import exception
from nova_clone import objects
from nova_clone.objects import base


@pytest.fixture
def ctx(api_ctx):
    return api_ctx


def _cell(ctx, name='cell1'):
    cell = objects.CellMapping(ctx, name=name,
                               transport_url='rabbit://h/%s' % name,
                               database_connection='sqlite:///%s' % name)
    cell.create()
    return cell


def test_cell_mapping_create_get_list(ctx):
    cell = _cell(ctx)
    assert uuidutils.is_uuid_like(cell.uuid) and cell.disabled is False
    got = objects.CellMapping.get_by_uuid(ctx, cell.uuid)
    assert (got.name, got.transport_url) == ('cell1', 'rabbit://h/cell1')
    objects.CellMapping(ctx, uuid=objects.CellMapping.CELL0_UUID,
                        name='cell0', transport_url='none:///',
                        database_connection='sqlite://').create()
    cells = objects.CellMappingList.get_all(ctx)
    assert [c.name for c in cells] == ['cell1', 'cell0']
    assert cells[1].is_cell0() and not cells[0].is_cell0()
    got.disabled = True
    got.save()
    assert [c.name for c in objects.CellMappingList.get_by_disabled(
        ctx, disabled=False)] == ['cell0']
    with pytest.raises(exception.CellMappingNotFound):
        objects.CellMapping.get_by_uuid(ctx, uuidutils.generate_uuid())


def test_host_and_instance_mappings(ctx):
    cell = _cell(ctx)
    objects.HostMapping(ctx, host='h1', cell_mapping=cell).create()
    hm = objects.HostMapping.get_by_host(ctx, 'h1')
    assert hm.cell_mapping.uuid == cell.uuid
    with pytest.raises(exception.HostMappingExists):
        objects.HostMapping(ctx, host='h1', cell_mapping=cell).create()
    with pytest.raises(exception.HostMappingNotFound):
        objects.HostMapping.get_by_host(ctx, 'nope')
    assert [h.host for h in objects.HostMappingList.get_by_cell_id(
        ctx, cell.id)] == ['h1']

    uuid = uuidutils.generate_uuid()
    im = objects.InstanceMapping(ctx, instance_uuid=uuid, project_id='p1',
                                 user_id='u1', cell_mapping=None)
    im.create()
    im = objects.InstanceMapping.get_by_instance_uuid(ctx, uuid)
    assert im.cell_mapping is None and im.queued_for_delete is False
    im.cell_mapping = cell
    im.save()
    im = objects.InstanceMapping.get_by_instance_uuid(ctx, uuid)
    assert im.cell_mapping.name == 'cell1'
    assert len(objects.InstanceMappingList.get_by_project_id(ctx, 'p1')) == 1
    assert [c.uuid for c in objects.CellMappingList.get_by_project_id(
        ctx, 'p1')] == [cell.uuid]
    counts = objects.InstanceMappingList.get_counts(ctx, 'p1', 'u1')
    assert counts == {'project': {'instances': 1},
                      'user': {'instances': 1}}
    im.destroy()
    with pytest.raises(exception.InstanceMappingNotFound):
        objects.InstanceMapping.get_by_instance_uuid(ctx, uuid)


def _flavor(ctx, name, flavorid, memory_mb=512, **kw):
    flavor = objects.Flavor(ctx, name=name, flavorid=flavorid,
                            memory_mb=memory_mb, vcpus=1, root_gb=1, **kw)
    flavor.create()
    return flavor


def test_flavor_lifecycle(ctx):
    flavor = _flavor(ctx, 'm1.small', '2', extra_specs={'hw:cpu': 'x'})
    assert flavor.swap == 0 and flavor.is_public and flavor.projects == []
    got = objects.Flavor.get_by_flavor_id(ctx, '2')
    assert got.extra_specs == {'hw:cpu': 'x'}
    assert objects.Flavor.get_by_name(ctx, 'm1.small').id == flavor.id
    with pytest.raises(exception.FlavorExists):
        _flavor(ctx, 'm1.small', '99')
    with pytest.raises(exception.FlavorIdExists):
        _flavor(ctx, 'other', '2')
    got.extra_specs = {'hw:cpu': 'y', 'k': 'v'}
    got.description = 'small one'
    got.save()
    again = objects.Flavor.get_by_id(ctx, flavor.id)
    assert again.extra_specs == {'hw:cpu': 'y', 'k': 'v'}
    assert again.description == 'small one'
    with pytest.raises(exception.ObjectActionError):
        again.memory_mb = 1024
        again.save()
    again.destroy()
    with pytest.raises(exception.FlavorNotFound):
        objects.Flavor.get_by_flavor_id(ctx, '2')


def test_flavor_access_and_listing(ctx):
    _flavor(ctx, 'tiny', '1', memory_mb=256)
    _flavor(ctx, 'big', '3', memory_mb=4096)
    private = _flavor(ctx, 'private', '5', is_public=False)
    private.add_access('p1')
    with pytest.raises(exception.FlavorAccessExists):
        private.add_access('p1')
    assert objects.Flavor.get_by_flavor_id(ctx, '5').projects == ['p1']
    listed = objects.FlavorList.get_all(ctx, filters={'is_public': True})
    assert [f.flavorid for f in listed] == ['1', '3', '5']
    other = nova_context.RequestContext(user_id='u2', project_id='p2')
    listed = objects.FlavorList.get_all(other, filters={'is_public': True})
    assert [f.flavorid for f in listed] == ['1', '3']
    listed = objects.FlavorList.get_all(
        ctx, filters={'min_memory_mb': 512}, sort_key='memory_mb',
        sort_dir='desc')
    assert [f.name for f in listed] == ['big', 'private']
    page = objects.FlavorList.get_all(ctx, limit=1, marker='1')
    assert [f.flavorid for f in page] == ['3']
    with pytest.raises(exception.MarkerNotFound):
        objects.FlavorList.get_all(ctx, marker='404')
    with pytest.raises(exception.InvalidSortKey):
        objects.FlavorList.get_all(ctx, sort_key='nonsense')
    private.remove_access('p1')
    with pytest.raises(exception.FlavorAccessNotFound):
        private.remove_access('p1')


def test_keypairs(ctx):
    objects.KeyPair(ctx, name='k1', user_id='u1', fingerprint='f',
                    public_key='ssh-rsa AAA', type='ssh').create()
    with pytest.raises(exception.KeyPairExists):
        objects.KeyPair(ctx, name='k1', user_id='u1',
                        public_key='x', type='ssh').create()
    objects.KeyPair(ctx, name='k2', user_id='u1', public_key='y').create()
    objects.KeyPair(ctx, name='k1', user_id='u2', public_key='z').create()
    assert objects.KeyPair.get_by_name(ctx, 'u1', 'k2').type == 'ssh'
    assert objects.KeyPairList.get_count_by_user(ctx, 'u1') == 2
    assert [k.name for k in objects.KeyPairList.get_by_user(
        ctx, 'u1', limit=1, marker='k1')] == ['k2']
    objects.KeyPair.destroy_by_name(ctx, 'u1', 'k1')
    with pytest.raises(exception.KeypairNotFound):
        objects.KeyPair.get_by_name(ctx, 'u1', 'k1')


def test_request_spec_round_trip(ctx):
    flavor = _flavor(ctx, 'm1', '7')
    image = objects.ImageMeta.from_dict({
        'id': uuidutils.generate_uuid(), 'name': 'cirros',
        'disk_format': 'qcow2', 'min_ram': 0, 'size': 100,
        'properties': {'hw_disk_bus': 'virtio', 'architecture': 'amd64',
                       'trait:CUSTOM_GOLD': 'required', 'unknown': 'x'}})
    uuid = uuidutils.generate_uuid()
    spec = objects.RequestSpec.from_components(
        ctx, uuid, image, flavor, None, None,
        {'scheduler_hints': {'group': 'g1'}, 'force_hosts': 'h1'},
        None, 'nova', security_groups=['default'])
    spec.create()
    got = objects.RequestSpec.get_by_instance_uuid(ctx, uuid)
    assert got.flavor.flavorid == '7'
    assert got.image.properties.hw_disk_bus == 'virtio'
    assert got.image.properties.hw_architecture == 'x86_64'
    assert got.image.properties.traits_required == ['CUSTOM_GOLD']
    assert got.get_scheduler_hint('group') == 'g1'
    assert got.force_hosts == ['h1'] and got.availability_zone == 'nova'
    # Per-attempt fields are not stored.
    got.ignore_hosts = ['h2']
    got.availability_zone = 'az2'
    got.save()
    again = objects.RequestSpec.get_by_instance_uuid(ctx, uuid)
    assert again.availability_zone == 'az2'
    assert again.ignore_hosts is None
    again.destroy()
    with pytest.raises(exception.RequestSpecNotFound):
        objects.RequestSpec.get_by_instance_uuid(ctx, uuid)


def test_request_specs_of_many_instances_in_one_read(ctx):
    flavor = _flavor(ctx, 'm1', '7')
    uuids = [uuidutils.generate_uuid() for _ in range(3)]
    for uuid, zone in zip(uuids[:2], ('az1', 'az2')):
        objects.RequestSpec.from_components(
            ctx, uuid, {}, flavor, None, None,
            {'scheduler_hints': {'group': uuid}}, None, zone).create()
    got = objects.RequestSpec.get_by_instance_uuids(ctx, uuids)
    # The third instance has no spec: it is left out.
    assert sorted(got) == sorted(uuids[:2])
    for uuid, zone in zip(uuids[:2], ('az1', 'az2')):
        spec = got[uuid]
        assert (spec.instance_uuid, spec.availability_zone) == (uuid, zone)
        assert spec.get_scheduler_hint('group') == uuid
        assert spec.flavor.flavorid == '7' and not spec.obj_what_changed()
    assert objects.RequestSpec.get_by_instance_uuids(ctx, []) == {}


def test_image_meta_rejects_invalid_property():
    objects.register_all()
    with pytest.raises(ValueError):
        objects.ImageMeta.from_dict({'properties': {'hw_disk_bus': 'nope'}})


def test_serializer_round_trips_objects_in_containers(ctx):
    objects.register_all()
    serializer = base.NovaObjectSerializer()
    cell = _cell(ctx)
    selection = objects.Selection(
        compute_node_uuid=uuidutils.generate_uuid(), service_host='h1',
        nodename='n1', cell_uuid=cell.uuid,
        limits=objects.SchedulerLimits(vcpu=4),
        allocation_request=jsonutils.dumps({'allocations': {}}),
        allocation_request_version='1.36', availability_zone='nova')
    payload = {'selections': [[selection]], 'cells': (cell,),
               'error': exception.FlavorNotFound(flavor_id='x')}
    wire = jsonutils.loads(jsonutils.dumps(
        serializer.serialize_entity(ctx, payload)))
    back = serializer.deserialize_entity(ctx, wire)
    assert back['selections'][0][0].service_host == 'h1'
    assert back['selections'][0][0].limits.vcpu == 4
    assert back['selections'][0][0].to_dict()['host'] == 'h1'
    assert back['cells'][0].uuid == cell.uuid
    assert isinstance(back['error'], exception.FlavorNotFound)
    assert 'x' in str(back['error'])


def test_concurrent_writers_on_sqlite(ctx):
    errors = []

    def worker(n):
        try:
            for i in range(5):
                objects.KeyPair(ctx, name='k%d-%d' % (n, i), user_id='u9',
                                public_key='k').create()
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert objects.KeyPairList.get_count_by_user(ctx, 'u9') == 30


def _instance(ctx, flavor, **kw):
    values = dict(uuid=uuidutils.generate_uuid(), project_id='p1',
                  user_id='u1', display_name='vm', vm_state='building',
                  task_state='scheduling', flavor=flavor,
                  metadata={'k': 'v'}, system_metadata={})
    values.update(kw)
    return objects.Instance(ctx, **values)


def test_build_request_round_trip_and_listing(ctx):
    flavor = _flavor(ctx, 'm1', '8')
    first = _instance(ctx, flavor, display_name='alpha')
    second = _instance(ctx, flavor, display_name='beta', project_id='p2')
    for inst in (first, second):
        req = objects.BuildRequest(
            ctx, instance=inst, project_id=inst.project_id,
            instance_uuid=inst.uuid,
            block_device_mappings=objects.BlockDeviceMappingList(objects=[]),
            tags=objects.TagList(objects=[]))
        req.create()
    with pytest.raises(exception.BuildRequestAlreadyExists):
        objects.BuildRequest(ctx, instance=first, project_id='p1',
                             instance_uuid=first.uuid).create()

    got = objects.BuildRequest.get_by_instance_uuid(ctx, first.uuid)
    assert got.instance.display_name == 'alpha'
    assert got.instance.flavor.flavorid == '8'
    assert got.instance.metadata == {'k': 'v'}
    assert got.instance.host is None and got.instance.deleted is False
    assert got.instance.created_at == got.created_at is not None

    new = got.get_new_instance(ctx)
    assert new.uuid == first.uuid and 'id' not in new
    assert {'uuid', 'display_name', 'flavor'} <= new.obj_what_changed()

    # An admin sees both; a member of p1 only its own.
    assert len(objects.BuildRequestList.get_all(ctx)) == 2
    member = nova_context.RequestContext(user_id='u1', project_id='p1')
    assert [r.instance_uuid for r in objects.BuildRequestList.get_all(
        member)] == [first.uuid]
    by_name = objects.BuildRequestList.get_by_filters(ctx, {'name': '^be'})
    assert [r.instance.display_name for r in by_name] == ['beta']
    assert len(objects.BuildRequestList.get_by_filters(
        ctx, {'host': 'h1'})) == 0
    ordered = objects.BuildRequestList.get_by_filters(
        ctx, {}, sort_keys=['display_name'], sort_dirs=['asc'])
    assert [r.instance.display_name for r in ordered] == ['alpha', 'beta']
    paged = objects.BuildRequestList.get_by_filters(
        ctx, {}, marker=first.uuid, sort_keys=['display_name'],
        sort_dirs=['asc'])
    assert [r.instance.display_name for r in paged] == ['beta']
    with pytest.raises(exception.MarkerNotFound):
        objects.BuildRequestList.get_by_filters(
            ctx, {}, marker=uuidutils.generate_uuid())

    got.destroy()
    with pytest.raises(exception.BuildRequestNotFound):
        objects.BuildRequest.get_by_instance_uuid(ctx, first.uuid)


def test_flavor_change_tracking(ctx):
    flavor = _flavor(ctx, 'tracked', '11', extra_specs={'a': '1'})
    assert flavor.obj_what_changed() == set()
    flavor.extra_specs['b'] = '2'
    assert 'extra_specs' in flavor.obj_what_changed()
    flavor.save()
    assert objects.Flavor.get_by_flavor_id(ctx, '11').extra_specs == {
        'a': '1', 'b': '2'}
    # A flavor read back from its primitive (as stored inside an
    # instance) is not reported as changed.
    copy = objects.Flavor.obj_from_primitive(flavor.obj_to_primitive())
    assert copy.obj_what_changed() == set()
    assert flavor.obj_clone().obj_what_changed() == set()
    copy._context = ctx
    copy.extra_specs = {'b': '3'}
    copy.save()
    assert objects.Flavor.get_by_flavor_id(ctx, '11').extra_specs == {
        'b': '3'}


def test_cell_mapping_save_and_destroy(ctx):
    cell = _cell(ctx)
    cell.name = 'renamed'
    cell.save()
    assert objects.CellMapping.get_by_uuid(ctx, cell.uuid).name == 'renamed'
    cell.destroy()
    with pytest.raises(exception.CellMappingNotFound):
        cell.destroy()
    cell.name = 'again'
    with pytest.raises(exception.CellMappingNotFound):
        cell.save()
    assert len(objects.CellMappingList.get_all(ctx)) == 0


def test_host_mapping_moves_lists_and_destroys(ctx):
    one, two = _cell(ctx, 'one'), _cell(ctx, 'two')
    for host in ('h1', 'h2'):
        objects.HostMapping(ctx, host=host, cell_mapping=one).create()
    mapping = objects.HostMapping.get_by_host(ctx, 'h1')
    mapping.cell_mapping = two
    mapping.save()
    assert objects.HostMapping.get_by_host(
        ctx, 'h1').cell_mapping.name == 'two'
    assert [m.host for m in objects.HostMappingList.get_by_cell_id(
        ctx, one.id)] == ['h2']
    assert [(m.host, m.cell_mapping.name) for m in
            objects.HostMappingList.get_all(ctx)] == [('h1', 'two'),
                                                      ('h2', 'one')]
    mapping.destroy()
    with pytest.raises(exception.HostMappingNotFound):
        mapping.destroy()
    with pytest.raises(exception.HostMappingNotFound):
        mapping.save()


def test_instance_mappings_duplicate_and_bulk_destroy(ctx):
    cell = _cell(ctx)
    uuids = [uuidutils.generate_uuid() for _ in range(3)]
    for uuid in uuids:
        objects.InstanceMapping(ctx, instance_uuid=uuid, project_id='p1',
                                cell_mapping=cell).create()
    with pytest.raises(exception.InstanceMappingExists):
        objects.InstanceMapping(ctx, instance_uuid=uuids[0],
                                project_id='p1').create()
    found = objects.InstanceMappingList.get_by_instance_uuids(ctx, uuids[:2])
    assert [m.instance_uuid for m in found] == uuids[:2]
    assert all(m.cell_mapping.name == 'cell1' for m in found)
    assert objects.InstanceMappingList.destroy_bulk(
        ctx, uuids[:2] + [uuidutils.generate_uuid()]) == 2
    assert [m.instance_uuid for m in
            objects.InstanceMappingList.get_by_cell_id(ctx, cell.id)] \
        == uuids[2:]
    gone = objects.InstanceMapping(ctx, instance_uuid=uuids[0])
    with pytest.raises(exception.InstanceMappingNotFound):
        gone.destroy()
    gone.project_id = 'p2'
    with pytest.raises(exception.InstanceMappingNotFound):
        gone.save()
