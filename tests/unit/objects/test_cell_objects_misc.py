"""Service, ComputeNode, Tag, BDM, Migration, fault and action objects."""

import sys

import pytest
from oslo_utils import uuidutils

from nova_clone.compute import utils as compute_utils
from nova_clone import exception
from nova_clone import objects
from tests.unit.objects import cell_db


@pytest.fixture(scope='module')
def cell(tmp_path_factory):
    url, manager = cell_db.make_cell_db(
        tmp_path_factory.mktemp('cell') / 'misc.db')
    return manager


@pytest.fixture
def ctx(cell):
    return cell_db.admin_ctx(cell)


def _host():
    return 'host-%s' % uuidutils.generate_uuid()[:8]


def _instance(ctx, **kw):
    inst = objects.Instance(ctx, project_id='p1', user_id='u1',
                            vm_state='active', **kw)
    inst.create()
    return inst


# -- Service ------------------------------------------------------------------

def test_service_create_and_heartbeat(ctx):
    host = _host()
    service = objects.Service(ctx, host=host, binary='nova-compute',
                              topic='compute', report_count=0)
    service.create()
    assert service.version == 73
    assert uuidutils.is_uuid_like(service.uuid)
    assert service.last_seen_up is None
    service.report_count += 1
    service.save()
    got = objects.Service.get_by_host_and_binary(ctx, host, 'nova-compute')
    assert got.report_count == 1
    assert got.last_seen_up is not None
    assert objects.Service.get_by_compute_host(ctx, host).id == service.id
    assert objects.Service.get_by_uuid(ctx, service.uuid).host == host
    with pytest.raises((exception.ServiceBinaryExists,
                        exception.ServiceTopicExists)):
        objects.Service(ctx, host=host, binary='nova-compute',
                        topic='compute').create()


def test_service_lookups_that_miss(ctx):
    assert objects.Service.get_by_host_and_binary(ctx, 'nope', 'x') is None
    with pytest.raises(exception.ComputeHostNotFound):
        objects.Service.get_by_compute_host(ctx, 'nope')
    with pytest.raises(exception.ServiceNotFound):
        objects.Service.get_by_id(ctx, 987654)


def test_service_list_and_destroy(ctx, api_ctx):
    host = _host()
    compute = objects.Service(ctx, host=host, binary='nova-compute',
                              topic='compute', disabled=True,
                              disabled_reason='maintenance')
    compute.create()
    objects.Service(ctx, host=host, binary='nova-conductor',
                    topic='conductor').create()
    node = objects.ComputeNode(
        ctx, host=host, hypervisor_hostname=host, vcpus=1, memory_mb=1,
        local_gb=1, vcpus_used=0, memory_mb_used=0, local_gb_used=0,
        hypervisor_type='fake', hypervisor_version=1, cpu_info='{}',
        service_id=compute.id)
    node.create()
    hosts = [s.host for s in objects.ServiceList.get_by_binary(
        ctx, 'nova-compute')]
    assert host not in hosts
    hosts = [s.host for s in objects.ServiceList.get_by_binary(
        ctx, 'nova-compute', include_disabled=True)]
    assert host in hosts
    zones = {s.binary: s.availability_zone
             for s in objects.ServiceList.get_all(ctx, set_zones=True)
             if s.host == host}
    assert zones == {'nova-compute': 'nova', 'nova-conductor': 'internal'}
    # A compute is in the zone of its host aggregate.
    agg = objects.Aggregate(api_ctx, name='agg-%s' % host,
                            metadata={'availability_zone': 'az1'})
    agg.create()
    agg.add_host(host)
    zones = {s.binary: s.availability_zone
             for s in objects.ServiceList.get_all(ctx, set_zones=True)
             if s.host == host}
    assert zones == {'nova-compute': 'az1', 'nova-conductor': 'internal'}
    compute.destroy()
    assert objects.Service.get_by_host_and_binary(
        ctx, host, 'nova-compute') is None
    with pytest.raises(exception.ComputeHostNotFound):
        objects.ComputeNodeList.get_all_by_host(ctx, host)


# -- ComputeNode --------------------------------------------------------------

def _node(ctx, host, nodename=None, **kw):
    node = objects.ComputeNode(
        ctx, host=host, hypervisor_hostname=nodename or host, vcpus=8,
        memory_mb=16384, local_gb=100, vcpus_used=0, memory_mb_used=512,
        local_gb_used=0, hypervisor_type='fake', hypervisor_version=1000,
        cpu_info='{}', stats={'num_instances': '0'},
        supported_hv_specs=[objects.HVSpec(arch='x86_64', hv_type='fake',
                                           vm_mode='hvm')],
        cpu_allocation_ratio=16.0, ram_allocation_ratio=1.5,
        disk_allocation_ratio=1.0, host_ip='10.0.0.5', **kw)
    node.create()
    return node


def test_compute_node_round_trip(ctx):
    host = _host()
    node = _node(ctx, host)
    got = objects.ComputeNode.get_by_host_and_nodename(ctx, host, host)
    assert got.uuid == node.uuid
    assert got.stats == {'num_instances': '0'}
    assert got.supported_hv_specs[0].arch == 'x86_64'
    assert str(got.host_ip) == '10.0.0.5'
    assert got.mapped == 0
    got.vcpus_used = 3
    got.stats = {'num_instances': '2'}
    got.save()
    again = objects.ComputeNode.get_by_uuid(ctx, node.uuid)
    assert again.vcpus_used == 3 and again.stats == {'num_instances': '2'}
    assert objects.ComputeNode.get_by_nodename(ctx, host).id == node.id
    with pytest.raises(exception.ComputeHostNotFound):
        objects.ComputeNode.get_by_host_and_nodename(ctx, host, 'other')


def test_compute_node_lists(ctx):
    host = _host()
    a = _node(ctx, host, host + '-a')
    b = _node(ctx, host, host + '-b')
    assert {n.uuid for n in objects.ComputeNodeList.get_all_by_host(
        ctx, host)} == {a.uuid, b.uuid}
    assert [n.uuid for n in objects.ComputeNodeList.get_by_hypervisor(
        ctx, host + '-a')] == [a.uuid]
    assert {n.uuid for n in objects.ComputeNodeList.
            get_by_hypervisor_hostnames(ctx, [host + '-a', host + '-b'])} \
        == {a.uuid, b.uuid}
    unmapped = {n.uuid for n in
                objects.ComputeNodeList.get_all_by_not_mapped(ctx, 1)}
    assert {a.uuid, b.uuid} <= unmapped
    a.mapped = 1
    a.save()
    unmapped = {n.uuid for n in
                objects.ComputeNodeList.get_all_by_not_mapped(ctx, 1)}
    assert a.uuid not in unmapped and b.uuid in unmapped
    page = objects.ComputeNodeList.get_by_pagination(ctx, limit=1,
                                                     marker=a.id)
    assert len(page) == 1 and page[0].id > a.id
    with pytest.raises(exception.MarkerNotFound):
        objects.ComputeNodeList.get_by_pagination(ctx, marker=99999999)


# -- Tags ---------------------------------------------------------------------

def test_tags(ctx):
    inst = _instance(ctx)
    tags = objects.TagList.create(ctx, inst.uuid, ['b', 'a', 'b'])
    assert [t.tag for t in tags] == ['a', 'b']
    objects.Tag(ctx, resource_id=inst.uuid, tag='c').create()
    assert objects.Tag.exists(ctx, inst.uuid, 'c')
    objects.Tag.destroy(ctx, inst.uuid, 'a')
    assert [t.tag for t in objects.TagList.get_by_resource_id(
        ctx, inst.uuid)] == ['b', 'c']
    with pytest.raises(exception.TagNotFound):
        objects.Tag.destroy(ctx, inst.uuid, 'a')
    objects.TagList.destroy(ctx, inst.uuid)
    assert len(objects.TagList.get_by_resource_id(ctx, inst.uuid)) == 0
    with pytest.raises(exception.InstanceNotFound):
        objects.Tag(ctx, resource_id=uuidutils.generate_uuid(),
                    tag='x').create()


# -- Block device mappings ----------------------------------------------------

def test_block_device_mappings(ctx):
    inst = _instance(ctx)
    root = objects.BlockDeviceMapping(
        ctx, instance_uuid=inst.uuid, source_type='image',
        destination_type='local', image_id=uuidutils.generate_uuid(),
        boot_index=0, delete_on_termination=True)
    root.create()
    vol = objects.BlockDeviceMapping(
        ctx, instance_uuid=inst.uuid, source_type='volume',
        destination_type='volume', volume_id='vol-1', boot_index=None,
        device_name='/dev/vdb', connection_info='{"secret": 1}')
    vol.create()
    bdms = objects.BlockDeviceMappingList.get_by_instance_uuid(ctx,
                                                               inst.uuid)
    assert [b.is_volume for b in bdms] == [False, True]
    assert bdms.root_bdm().is_image
    got = objects.BlockDeviceMapping.get_by_volume_and_instance(
        ctx, 'vol-1', inst.uuid)
    assert got.device_name == '/dev/vdb'
    assert got.connection_info == '{"secret": 1}'
    got.attachment_id = uuidutils.generate_uuid()
    got.save()
    assert objects.BlockDeviceMapping.get_by_volume_id(
        ctx, 'vol-1').attachment_id == got.attachment_id
    by_uuid = objects.BlockDeviceMappingList.bdms_by_instance_uuid(
        ctx, [inst.uuid])
    assert len(by_uuid[inst.uuid]) == 2
    got.destroy()
    with pytest.raises(exception.VolumeBDMNotFound):
        objects.BlockDeviceMapping.get_by_volume_id(ctx, 'vol-1')


# -- Migrations ---------------------------------------------------------------

def test_migrations(ctx):
    inst = _instance(ctx)
    src, dst = _host(), _host()
    mig = objects.Migration(ctx, instance_uuid=inst.uuid,
                            source_compute=src, dest_compute=dst,
                            source_node=src, dest_node=dst,
                            old_instance_type_id=1, new_instance_type_id=2,
                            status='pre-migrating')
    mig.create()
    assert mig.migration_type == 'resize'
    assert uuidutils.is_uuid_like(mig.uuid)
    assert mig.is_resize and not mig.is_same_host
    found = objects.MigrationList.get_in_progress_by_host_and_node(
        ctx, dst, dst)
    assert [m.uuid for m in found] == [mig.uuid]
    mig.status = 'confirmed'
    mig.save()
    assert len(objects.MigrationList.get_in_progress_by_host_and_node(
        ctx, dst, dst)) == 0
    assert objects.Migration.get_by_uuid(ctx, mig.uuid).status == 'confirmed'
    listed = objects.MigrationList.get_by_filters(
        ctx, {'instance_uuid': inst.uuid, 'status': 'confirmed'})
    assert [m.id for m in listed] == [mig.id]
    assert mig.instance.uuid == inst.uuid
    with pytest.raises(exception.MigrationNotFoundByStatus):
        objects.Migration.get_by_instance_and_status(ctx, inst.uuid,
                                                     'running')


# -- Faults -------------------------------------------------------------------

def test_latest_fault_per_instance(ctx):
    a, b = _instance(ctx), _instance(ctx)
    for inst, messages in ((a, ['first', 'second']), (b, ['only'])):
        for message in messages:
            objects.InstanceFault(ctx, instance_uuid=inst.uuid, code=500,
                                  message=message, details='tb',
                                  host='h').create()
    latest = objects.InstanceFaultList.get_latest_for_instances(
        ctx, [a.uuid, b.uuid])
    assert {f.instance_uuid: f.message for f in latest} == {
        a.uuid: 'second', b.uuid: 'only'}
    assert objects.InstanceFault.get_latest_for_instance(
        ctx, a.uuid).message == 'second'
    err = exception.NoValidHost(reason='none left')
    fault = objects.InstanceFault.from_exception(ctx, a.uuid, err, host='h')
    assert fault.code == 500 and 'No valid host' in fault.message


# -- Actions and events -------------------------------------------------------

def test_action_and_events(ctx):
    inst = _instance(ctx)
    ctx = ctx.elevated()
    ctx.request_id = 'req-%s' % uuidutils.generate_uuid()
    ctx.project_id = 'p1'
    action = objects.InstanceAction.action_start(ctx, inst.uuid, 'reboot')
    assert action.action == 'reboot' and action.finish_time is None
    objects.InstanceActionEvent.event_start(ctx, inst.uuid,
                                            'compute_reboot_instance',
                                            host='cmp1')
    try:
        raise exception.InstanceNotRunning(instance_id=inst.uuid)
    except exception.InstanceNotRunning as exc:
        objects.InstanceActionEvent.event_finish_with_failure(
            ctx, inst.uuid, 'compute_reboot_instance', exc_val=exc,
            exc_tb=sys.exc_info()[2])
    objects.InstanceAction.action_finish(ctx, inst.uuid)
    got = objects.InstanceAction.get_by_request_id(ctx, inst.uuid,
                                                   ctx.request_id)
    assert got.message == 'Error' and got.finish_time is not None
    events = objects.InstanceActionEventList.get_by_action(ctx, got.id)
    assert len(events) == 1
    event = events[0]
    assert event.result == 'Error' and event.host == 'cmp1'
    assert 'is not running' in event.details
    assert 'raise exception.InstanceNotRunning' in event.traceback


def test_action_list_paging(ctx):
    inst = _instance(ctx)
    ids = []
    for i in range(5):
        cctx = ctx.elevated()
        cctx.request_id = 'req-page-%d-%s' % (i, inst.uuid[:6])
        objects.InstanceAction.action_start(cctx, inst.uuid, 'stop')
        ids.append(cctx.request_id)
    newest_first = [a.request_id for a in
                    objects.InstanceActionList.get_by_instance_uuid(
                        ctx, inst.uuid)]
    assert newest_first == list(reversed(ids))
    page = objects.InstanceActionList.get_by_instance_uuid(
        ctx, inst.uuid, limit=2, marker=newest_first[1])
    assert [a.request_id for a in page] == newest_first[2:4]
    with pytest.raises(exception.MarkerNotFound):
        objects.InstanceActionList.get_by_instance_uuid(
            ctx, inst.uuid, marker='req-missing')


class _Manager:
    host = 'cmp-wrapped'

    @compute_utils.wrap_instance_event(prefix='compute')
    def terminate_instance(self, context, instance, bdms=None):
        if instance.display_name == 'fail':
            raise ValueError('nope')
        return 'done'


def test_wrap_instance_event_records_success_and_failure(ctx):
    manager = _Manager()
    for name, result in (('ok', 'Success'), ('fail', 'Error')):
        inst = _instance(ctx, display_name=name)
        cctx = ctx.elevated()
        cctx.request_id = 'req-wrap-%s' % inst.uuid
        objects.InstanceAction.action_start(cctx, inst.uuid, 'delete')
        if result == 'Error':
            with pytest.raises(ValueError):
                manager.terminate_instance(cctx, inst)
        else:
            assert manager.terminate_instance(cctx, inst) == 'done'
        action = objects.InstanceAction.get_by_request_id(
            cctx, inst.uuid, cctx.request_id)
        (event,) = objects.InstanceActionEventList.get_by_action(
            cctx, action.id)
        assert event.event == 'compute_terminate_instance'
        assert event.result == result and event.host == 'cmp-wrapped'
        if result == 'Error':
            assert event.details == 'ValueError'


def test_event_without_action_is_reported(ctx):
    inst = _instance(ctx)
    cctx = ctx.elevated()
    cctx.project_id = 'p1'
    cctx.request_id = 'req-none'
    with pytest.raises(exception.InstanceActionNotFound):
        objects.InstanceActionEvent.event_start(cctx, inst.uuid, 'x')


# -- misses, duplicates and deletes -------------------------------------------

def test_compute_node_duplicate_save_and_destroy(ctx):
    host = _host()
    node = _node(ctx, host)
    with pytest.raises(exception.DuplicateRecord) as err:
        _node(ctx, _host(), uuid=node.uuid)
    assert node.uuid in str(err.value)
    # A node another host took over is not deleted by its old host.
    stale = objects.ComputeNode.get_by_id(ctx, node.id)
    stale.host = 'someone-else'
    with pytest.raises(exception.ComputeHostNotFound):
        stale.destroy()
    node.destroy()
    with pytest.raises(exception.ComputeHostNotFound) as err:
        objects.ComputeNode.get_by_id(ctx, node.id)
    assert str(node.id) in str(err.value)
    node.vcpus = 2
    with pytest.raises(exception.ComputeHostNotFound):
        node.save()
    with pytest.raises(exception.ComputeHostNotFoundByHostname):
        objects.ComputeNode.get_by_nodename(ctx, host)


def test_migration_lookups_pick_the_newest_and_miss_clearly(ctx):
    instance_uuid = _instance(ctx).uuid
    first, second = [
        objects.Migration(ctx, instance_uuid=instance_uuid,
                          old_instance_type_id=1, new_instance_type_id=1,
                          status='done') for _ in range(2)]
    first.create()
    second.create()
    assert objects.Migration.get_by_instance_and_status(
        ctx, instance_uuid, 'done').id == second.id
    assert objects.Migration.get_by_id_and_instance(
        ctx, first.id, instance_uuid).migration_type == 'migration'
    with pytest.raises(exception.MigrationNotFoundForInstance):
        objects.Migration.get_by_id_and_instance(
            ctx, first.id, uuidutils.generate_uuid())
    with pytest.raises(exception.MigrationNotFound):
        objects.Migration.get_by_uuid(ctx, uuidutils.generate_uuid())
    gone = objects.Migration(ctx, id=987654)
    gone.status = 'error'
    with pytest.raises(exception.MigrationNotFound):
        gone.save()


def test_service_lookups_by_topic_and_args(ctx):
    host = _host()
    service = objects.Service(ctx, host=host, binary='nova-scheduler',
                              topic='scheduler')
    service.create()
    assert objects.Service.get_by_host_and_topic(
        ctx, host, 'scheduler').id == service.id
    assert objects.Service.get_by_host_and_topic(ctx, host, 'x') is None
    with pytest.raises(exception.ServiceNotFound) as err:
        objects.Service.get_by_args(ctx, host, 'nova-compute')
    assert '%s/nova-compute' % host in str(err.value)
    service.destroy()
    service.disabled = True
    with pytest.raises(exception.ServiceNotFound):
        service.save()


def test_block_device_mapping_duplicate_save_and_destroy(ctx):
    instance_uuid = _instance(ctx).uuid
    bdm = objects.BlockDeviceMapping(
        ctx, instance_uuid=instance_uuid, source_type='blank',
        destination_type='local', boot_index=None)
    bdm.create()
    with pytest.raises(exception.DuplicateRecord):
        objects.BlockDeviceMapping(
            ctx, uuid=bdm.uuid, instance_uuid=instance_uuid,
            source_type='blank', destination_type='local').create()
    bdm_id = bdm.id
    bdm.destroy()
    assert not bdm.obj_attr_is_set('id')
    with pytest.raises(exception.ObjectActionError):
        bdm.destroy()
    with pytest.raises(exception.BlockDeviceMappingNotFound):
        objects.BlockDeviceMapping.get_by_uuid(ctx, bdm.uuid)
    gone = objects.BlockDeviceMapping(ctx, id=bdm_id)
    with pytest.raises(exception.BlockDeviceMappingNotFound):
        gone.destroy()
    gone.device_name = '/dev/vdz'
    with pytest.raises(exception.BlockDeviceMappingNotFound):
        gone.save()
