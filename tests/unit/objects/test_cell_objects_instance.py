"""Instance and InstanceList against a migrated SQLite cell database."""

import datetime

import pytest
from oslo_utils import timeutils
from oslo_utils import uuidutils

from nova_clone import exception
from nova_clone import objects
from tests.unit.objects import cell_db


@pytest.fixture(scope='module')
def cell(tmp_path_factory):
    url, manager = cell_db.make_cell_db(
        tmp_path_factory.mktemp('cell') / 'instances.db')
    return manager


@pytest.fixture
def ctx(cell):
    return cell_db.admin_ctx(cell)


def _flavor(name='m1.small', memory_mb=2048):
    return objects.Flavor(id=7, name=name, memory_mb=memory_mb, vcpus=2,
                          root_gb=20, ephemeral_gb=0, flavorid='7', swap=0,
                          rxtx_factor=1.0, vcpu_weight=None, disabled=False,
                          is_public=True, extra_specs={'hw:cpu': 'x'},
                          projects=[], description=None)


def _instance(ctx, project_id='p1', **kw):
    values = dict(project_id=project_id, user_id='u1',
                  display_name='vm-%s' % uuidutils.generate_uuid()[:6],
                  vm_state='active', task_state=None, power_state=1,
                  host='host1', node='node1', memory_mb=2048, vcpus=2,
                  metadata={'role': 'web'}, system_metadata={'a': '1'},
                  flavor=_flavor(), security_groups=['default'])
    values.update(kw)
    inst = objects.Instance(ctx, **values)
    inst.create()
    return inst


def test_create_then_read_back_with_extras(ctx):
    inst = _instance(ctx)
    assert inst.id and uuidutils.is_uuid_like(inst.uuid)
    assert inst.deleted is False
    got = objects.Instance.get_by_uuid(
        ctx, inst.uuid, expected_attrs=['metadata', 'system_metadata',
                                        'flavor', 'security_groups',
                                        'info_cache'])
    assert got.metadata == {'role': 'web'}
    assert got.system_metadata == {'a': '1'}
    assert got.flavor.name == 'm1.small'
    assert got.flavor.extra_specs == {'hw:cpu': 'x'}
    assert got.old_flavor is None and got.new_flavor is None
    assert got.security_groups == ['default']
    assert list(got.info_cache.network_info) == []
    assert got.name == 'instance-%08x' % got.id


def test_values_read_back_are_those_coercion_gives(ctx):
    cell_db.assert_read_back_as_coerced(
        ctx, lambda **kw: _instance(ctx, **kw))


def test_lazy_load_of_extras(ctx):
    inst = _instance(ctx)
    got = objects.Instance.get_by_uuid(ctx, inst.uuid, expected_attrs=[])
    assert not got.obj_attr_is_set('metadata')
    assert got.metadata == {'role': 'web'}
    assert got.flavor.memory_mb == 2048
    assert got.fault is None
    assert len(got.tags) == 0


def test_missing_instance_is_not_found(ctx):
    with pytest.raises(exception.InstanceNotFound):
        objects.Instance.get_by_uuid(ctx, uuidutils.generate_uuid())


def test_save_in_place_metadata_and_resize_flavors(ctx):
    inst = _instance(ctx)
    inst.metadata['extra'] = 'yes'
    del inst.metadata['role']
    inst.new_flavor = _flavor('m1.large', 4096)
    inst.old_flavor = inst.flavor
    inst.display_name = 'renamed'
    inst.save()
    got = objects.Instance.get_by_uuid(
        ctx, inst.uuid, expected_attrs=['metadata', 'flavor'])
    assert got.metadata == {'extra': 'yes'}
    assert got.display_name == 'renamed'
    assert got.new_flavor.name == 'm1.large'
    assert got.old_flavor.name == 'm1.small'


def test_save_compare_and_swap_on_task_state(ctx):
    inst = _instance(ctx, task_state='spawning')
    inst.task_state = None
    inst.vm_state = 'active'
    inst.save(expected_task_state=['spawning'])
    assert objects.Instance.get_by_uuid(ctx, inst.uuid).task_state is None

    other = objects.Instance.get_by_uuid(ctx, inst.uuid)
    other.task_state = 'deleting'
    other.save()
    inst.task_state = 'rebooting'
    with pytest.raises(exception.UnexpectedDeletingTaskStateError):
        inst.save(expected_task_state=[None])

    other.task_state = 'powering-off'
    other.save()
    inst.task_state = 'rebooting'
    with pytest.raises(exception.UnexpectedTaskStateError) as err:
        inst.save(expected_task_state=[None])
    assert not isinstance(err.value,
                          exception.UnexpectedDeletingTaskStateError)
    assert objects.Instance.get_by_uuid(
        ctx, inst.uuid).task_state == 'powering-off'


def test_save_expected_vm_state(ctx):
    inst = _instance(ctx, vm_state='stopped')
    inst.task_state = 'powering-on'
    with pytest.raises(exception.UnexpectedTaskStateError):
        inst.save(expected_vm_state=['active'])
    inst.save(expected_vm_state=['stopped'])


def test_destroy_soft_deletes(ctx):
    inst = _instance(ctx)
    inst.destroy()
    assert inst.deleted is True
    assert inst.vm_state == 'deleted'
    assert inst.deleted_at is not None
    with pytest.raises(exception.InstanceNotFound):
        objects.Instance.get_by_uuid(ctx, inst.uuid)
    seen = objects.Instance.get_by_uuid(ctx.elevated(read_deleted='yes'),
                                        inst.uuid)
    assert seen.deleted is True
    with pytest.raises(exception.InstanceNotFound):
        inst.destroy()


def test_destroy_refuses_when_host_changed(ctx):
    inst = _instance(ctx, host='src')
    moved = objects.Instance.get_by_uuid(ctx, inst.uuid)
    moved.host = 'dest'
    moved.save()
    with pytest.raises(exception.ObjectActionError):
        inst.destroy()


def test_refresh_picks_up_other_writers(ctx):
    inst = _instance(ctx)
    other = objects.Instance.get_by_uuid(ctx, inst.uuid)
    other.progress = 42
    other.save()
    inst.refresh()
    assert inst.progress == 42
    assert not inst.obj_what_changed()


def test_user_cannot_see_other_projects(cell):
    admin = cell_db.admin_ctx(cell)
    mine = _instance(admin, project_id='proj-a')
    theirs = _instance(admin, project_id='proj-b')
    user = cell_db.user_ctx(cell, project_id='proj-a')
    found = objects.InstanceList.get_by_filters(user, {})
    uuids = {i.uuid for i in found}
    assert mine.uuid in uuids and theirs.uuid not in uuids
    with pytest.raises(exception.InstanceNotFound):
        objects.Instance.get_by_uuid(user, theirs.uuid)


def test_get_by_uuids_finds_exactly_those_its_caller_may_see(cell):
    admin = cell_db.admin_ctx(cell)
    mine = _instance(admin, project_id='uuids-a')
    gone = _instance(admin, project_id='uuids-a')
    theirs = _instance(admin, project_id='uuids-b')
    _instance(admin, project_id='uuids-a')  # not asked for
    gone.destroy()
    asked = [mine.uuid, gone.uuid, theirs.uuid, uuidutils.generate_uuid()]

    found = objects.InstanceList.get_by_uuids(admin, asked,
                                              expected_attrs=['info_cache'])
    assert {i.uuid for i in found} == {mine.uuid, theirs.uuid}
    assert all(i.obj_attr_is_set('info_cache') for i in found)
    with_deleted = objects.InstanceList.get_by_uuids(
        admin.elevated(read_deleted='yes'), asked)
    assert {i.uuid for i in with_deleted} == {mine.uuid, gone.uuid,
                                              theirs.uuid}
    user = cell_db.user_ctx(cell, project_id='uuids-a')
    assert [i.uuid for i in objects.InstanceList.get_by_uuids(
        user, asked)] == [mine.uuid]


def test_list_filters(ctx):
    project = 'filters-%s' % uuidutils.generate_uuid()[:8]
    a = _instance(ctx, project_id=project, display_name='web-1',
                  vm_state='active', host='hA', node='nA')
    b = _instance(ctx, project_id=project, display_name='web-2',
                  vm_state='stopped', host='hB', node='nB',
                  locked=True)
    c = _instance(ctx, project_id=project, display_name='db-1',
                  vm_state='error', host='hA', node='nA2')
    objects.TagList.create(ctx, a.uuid, ['red', 'blue'])
    objects.TagList.create(ctx, b.uuid, ['red'])

    def names(filters, **kw):
        filters = dict(filters, project_id=project)
        return sorted(i.display_name for i in
                      objects.InstanceList.get_by_filters(ctx, filters, **kw))

    assert names({'display_name': '^web'}) == ['web-1', 'web-2']
    assert names({'name': '-1$'}) == ['db-1', 'web-1']
    assert names({'vm_state': ['active', 'error']}) == ['db-1', 'web-1']
    assert names({'host': 'hA'}) == ['db-1', 'web-1']
    assert names({'locked': True}) == ['web-2']
    assert names({'tags': ['red', 'blue']}) == ['web-1']
    assert names({'tags-any': ['red']}) == ['web-1', 'web-2']
    assert names({'not-tags-any': ['red']}) == ['db-1']
    assert names({'uuid': [a.uuid, c.uuid]}) == ['db-1', 'web-1']
    assert names({'metadata': {'role': 'web'}}) == ['db-1', 'web-1', 'web-2']
    # As in Nova, updated_at is set by the first update, not on create.
    for inst in (a, b, c):
        inst.progress = 10
        inst.save()
    later = timeutils.utcnow() + datetime.timedelta(hours=1)
    earlier = timeutils.utcnow() - datetime.timedelta(hours=1)
    assert names({'changes-since': later}) == []
    assert names({'changes-since': earlier}) == ['db-1', 'web-1', 'web-2']
    assert names({'changes-before': later}) == ['db-1', 'web-1', 'web-2']
    assert names({'changes-before': earlier}) == []
    c.destroy()
    assert names({}) == ['web-1', 'web-2']
    assert names({'deleted': True}) == ['db-1']


def test_list_paging_and_sorting(ctx):
    project = 'paging-%s' % uuidutils.generate_uuid()[:8]
    made = [_instance(ctx, project_id=project, display_name='n%02d' % i)
            for i in range(7)]
    filters = {'project_id': project}
    order = [i.display_name for i in objects.InstanceList.get_by_filters(
        ctx, filters, sort_keys=['display_name'], sort_dirs=['asc'])]
    assert order == ['n%02d' % i for i in range(7)]

    seen, marker = [], None
    while True:
        page = objects.InstanceList.get_by_filters(
            ctx, filters, sort_keys=['display_name'], sort_dirs=['desc'],
            limit=3, marker=marker)
        if not len(page):
            break
        seen.extend(i.display_name for i in page)
        marker = page[-1].uuid
    assert seen == ['n%02d' % i for i in reversed(range(7))]
    assert len(made) == 7

    with pytest.raises(exception.MarkerNotFound):
        objects.InstanceList.get_by_filters(ctx, filters,
                                            marker=uuidutils.generate_uuid())
    with pytest.raises(exception.InvalidInput):
        objects.InstanceList.get_by_filters(ctx, filters,
                                            sort_keys=['no_such_column'])


def test_list_query_count_does_not_grow_with_instances(cell):
    ctx = cell_db.admin_ctx(cell)
    attrs = ['metadata', 'system_metadata', 'info_cache', 'security_groups',
             'flavor', 'tags', 'fault', 'keypairs']
    counts = []
    for size in (2, 12):
        project = 'count-%s' % uuidutils.generate_uuid()[:8]
        for _ in range(size):
            inst = _instance(ctx, project_id=project)
            objects.InstanceFault(ctx, instance_uuid=inst.uuid, code=500,
                                  message='boom').create()
        with cell_db.StatementCounter(cell) as counter:
            found = objects.InstanceList.get_by_filters(
                ctx, {'project_id': project}, expected_attrs=attrs)
        assert len(found) == size
        assert all(i.fault.message == 'boom' for i in found)
        counts.append(counter.count)
    assert counts[0] == counts[1]


def test_by_host_helpers_and_counts(ctx):
    host = 'count-host-%s' % uuidutils.generate_uuid()[:6]
    project = 'quota-%s' % uuidutils.generate_uuid()[:6]
    a = _instance(ctx, host=host, node='n1', project_id=project)
    _instance(ctx, host=host, node='n2', project_id=project, user_id='u2')
    assert {i.uuid for i in objects.InstanceList.get_by_host_and_node(
        ctx, host, 'n1')} == {a.uuid}
    assert len(objects.InstanceList.get_by_host(ctx, host)) == 2
    assert len(objects.InstanceList.get_uuids_by_host(ctx, host)) == 2
    counts = objects.InstanceList.get_counts(ctx, project, user_id='u1')
    assert counts['project'] == {'instances': 2, 'cores': 4, 'ram': 4096}
    assert counts['user']['instances'] == 1


def test_metadata_change_tracking_survives_serialization(ctx):
    inst = _instance(ctx)
    got = objects.Instance.get_by_uuid(ctx, inst.uuid,
                                       expected_attrs=['metadata'])
    unchanged = objects.Instance.obj_from_primitive(got.obj_to_primitive())
    assert 'metadata' not in unchanged.obj_what_changed()
    got.metadata['new'] = 'value'
    changed = objects.Instance.obj_from_primitive(got.obj_to_primitive())
    assert 'metadata' in changed.obj_what_changed()
    changed._context = ctx
    changed.save()
    assert objects.Instance.get_by_uuid(
        ctx, inst.uuid, expected_attrs=['metadata']).metadata == {
            'role': 'web', 'new': 'value'}
