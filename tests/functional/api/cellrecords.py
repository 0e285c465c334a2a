"""Records a running cloud would have in cell1: services, compute nodes,
instances with their actions — written through the objects."""

from oslo_utils import timeutils
from oslo_utils import uuidutils

from nova_clone import context as nova_context
from nova_clone import objects


def cell_context(bed, cell=None):
    ctx = nova_context.get_admin_context()
    with nova_context.target_cell(ctx, cell or bed.cell1) as cctxt:
        return cctxt


def add_compute(bed, host, node=None, disabled=False):
    ctx = cell_context(bed)
    service = objects.Service(context=ctx, host=host, binary='nova-compute',
                              topic='compute', report_count=1,
                              disabled=disabled, forced_down=False,
                              uuid=uuidutils.generate_uuid(),
                              last_seen_up=timeutils.utcnow())
    service.create()
    cn = objects.ComputeNode(
        context=ctx, host=host, hypervisor_hostname=node or host,
        service_id=service.id, vcpus=4, memory_mb=8192, local_gb=100,
        vcpus_used=0, memory_mb_used=512, local_gb_used=0,
        hypervisor_type='fake', hypervisor_version=1000,
        cpu_info='{"arch": "x86_64"}', free_ram_mb=7680, free_disk_gb=100,
        current_workload=0, running_vms=0, disk_available_least=100,
        host_ip='192.168.1.10', supported_hv_specs=[],
        cpu_allocation_ratio=16.0, ram_allocation_ratio=1.5,
        disk_allocation_ratio=1.0, stats={}, mapped=1)
    cn.create()
    admin = nova_context.get_admin_context()
    objects.HostMapping(context=admin, host=host,
                        cell_mapping=bed.cell1).create()
    return service, cn


def add_service(bed, host, binary, topic):
    ctx = cell_context(bed)
    service = objects.Service(context=ctx, host=host, binary=binary,
                              topic=topic, report_count=1, disabled=False,
                              forced_down=False,
                              uuid=uuidutils.generate_uuid(),
                              last_seen_up=timeutils.utcnow())
    service.create()
    return service


def _any_flavor():
    admin = nova_context.get_admin_context()
    flavors = objects.FlavorList.get_all(admin)
    if len(flavors):
        return flavors[0]
    flavor = objects.Flavor(context=admin, name='cell-rec', flavorid='cr',
                            memory_mb=512, vcpus=1, root_gb=1,
                            ephemeral_gb=0, swap=0)
    flavor.create()
    return flavor


def add_instance(bed, project_id, user_id, host=None, name='vm', cell=None):
    """An ACTIVE instance in cell1 (or ``cell``) with its mapping and a
    create action."""
    cell = cell or bed.cell1
    ctx = cell_context(bed, cell)
    uuid = uuidutils.generate_uuid()
    flavor = _any_flavor()
    inst = objects.Instance(context=ctx, uuid=uuid, project_id=project_id,
                            user_id=user_id, display_name=name,
                            hostname=name, host=host, node=host,
                            vm_state='active', task_state=None,
                            power_state=1, vcpus=1, memory_mb=512,
                            root_gb=1, ephemeral_gb=0, flavor=flavor,
                            image_ref='155d900f-4e14-4e4c-a73d-069cbf4541e6',
                            security_groups=['default'],
                            launched_at=timeutils.utcnow())
    inst.create()
    admin = nova_context.get_admin_context()
    objects.InstanceMapping(context=admin, instance_uuid=uuid,
                            cell_mapping=cell, project_id=project_id,
                            user_id=user_id,
                            queued_for_delete=False).create()
    actx = nova_context.RequestContext(
        user_id=user_id, project_id=project_id,
        request_id='req-' + uuidutils.generate_uuid())
    with nova_context.target_cell(actx, cell) as targeted:
        actx = targeted
    action = objects.InstanceAction.action_start(actx, uuid, 'create')
    objects.InstanceActionEvent.event_start(
        actx, uuid, 'compute__do_build_and_run_instance', host=host)
    objects.InstanceActionEvent.event_finish(
        actx, uuid, 'compute__do_build_and_run_instance')
    return inst, action, actx.request_id


def add_unreachable_instance(bed, cell, project_id, user_id,
                             image_id='155d900f-4e14-4e4c-a73d-069cbf4541e6',
                             availability_zone=None, group=None,
                             with_spec=True, queued_for_delete=False):
    """A server of ``cell`` as only the API database knows it: its
    mapping and (``with_spec``) its request spec.  For a cell whose own
    database cannot be written, as a down cell's cannot."""
    admin = nova_context.get_admin_context()
    uuid = uuidutils.generate_uuid()
    mapping = objects.InstanceMapping(
        context=admin, instance_uuid=uuid, cell_mapping=cell,
        project_id=project_id, user_id=user_id,
        queued_for_delete=queued_for_delete)
    mapping.create()
    if with_spec:
        ctx = nova_context.RequestContext(user_id=user_id,
                                          project_id=project_id)
        # A volume-backed server's spec has an image without an id.
        image = {'id': image_id} if image_id else {}
        objects.RequestSpec.from_components(
            ctx, uuid, image, _any_flavor(), None, None, {}, group,
            availability_zone, project_id=project_id,
            user_id=user_id).create()
    return mapping
