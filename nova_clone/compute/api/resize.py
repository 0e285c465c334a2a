"""The API side of resize, cold migration, confirm and revert.

``API.resize``, ``migrate``, ``confirm_resize`` and ``revert_resize``
(compute/api/__init__.py) check the lock and states (preconditions.py)
and call these.  Each checks what else the user can be told at once
(flavor, quota, target host), records the instance action in the
instance's cell and hands the work on: resize and migrate to the
conductor (migrate_server, cast), confirm to the source compute, revert
to the destination compute.
"""

from oslo_log import log as logging

from nova_clone.compute.api import instance_list
from nova_clone.compute import instance_actions
from nova_clone.compute import task_states
from nova_clone.compute import vm_states
from nova_clone import context as nova_context
from nova_clone import exception
from nova_clone import quota

LOG = logging.getLogger(__name__)

INSTANCE_ATTRS = ['flavor', 'system_metadata', 'info_cache']


def _objects():
    from nova_clone import objects
    return objects


def _in_cell(context, instance_uuid):
    """The cell of a server past its build (the preconditions refused a
    building one), or InstanceNotFound."""
    mapping = instance_list.get_scheduled_mapping(context, instance_uuid)
    return nova_context.target_cell(context, mapping.cell_mapping)


def _new_flavor(context, instance, flavor_id):
    current = instance.flavor
    flavor = _objects().Flavor.get_by_flavor_id(context, flavor_id)
    if flavor.flavorid == current.flavorid:
        raise exception.CannotResizeToSameFlavor()
    if getattr(flavor, 'disabled', False):
        raise exception.FlavorNotFound(flavor_id=flavor_id)
    volume_backed = not instance.image_ref
    if not volume_backed and flavor.root_gb < current.root_gb:
        raise exception.CannotResizeDisk(
            reason='Resize to a smaller root disk is not allowed.')
    return flavor


def _check_quota_for_upsize(context, instance, current, flavor):
    deltas = {'cores': flavor.vcpus - current.vcpus,
              'ram': flavor.memory_mb - current.memory_mb}
    deltas = {res: d for res, d in deltas.items() if d > 0}
    if not deltas:
        return
    quotas = quota.get_project_quotas(context, instance.project_id)
    overs = [res for res, d in deltas.items()
             if quotas[res]['limit'] >= 0 and
             quotas[res]['in_use'] + d > quotas[res]['limit']]
    if overs:
        raise exception.TooManyInstances(
            overs=', '.join(overs),
            req=', '.join(str(deltas[r]) for r in overs),
            used=', '.join(str(quotas[r]['in_use']) for r in overs),
            allowed=', '.join(str(quotas[r]['limit']) for r in overs))


def _destination(context, instance, host_name):
    if host_name == instance.host:
        raise exception.CannotMigrateToSameHost()
    nodes = _objects().ComputeNodeList.get_all_by_host(context, host_name)
    if not nodes:
        raise exception.ComputeHostNotFound(host=host_name)
    return _objects().Destination(host=host_name,
                                  node=nodes[0].hypervisor_hostname)


def resize(compute_api, context, instance_uuid, flavor_id=None,
           auto_disk_config=None, host_name=None):
    """Resize to ``flavor_id``, or cold-migrate when it is None
    (to ``host_name`` when given)."""
    objects = _objects()
    method = 'resize' if flavor_id is not None else 'migrate'
    with _in_cell(context, instance_uuid) as cctxt:
        instance = objects.Instance.get_by_uuid(
            cctxt, instance_uuid, expected_attrs=INSTANCE_ATTRS)
        current = instance.flavor
        if flavor_id is not None:
            flavor = _new_flavor(context, instance, flavor_id)
            _check_quota_for_upsize(context, instance, current, flavor)
        else:
            flavor = current
        destination = (_destination(cctxt, instance, host_name)
                       if host_name else None)
        if auto_disk_config is not None:
            instance.auto_disk_config = auto_disk_config
        instance.task_state = task_states.RESIZE_PREP
        instance.progress = 0
        instance.save(expected_task_state=[None])
        objects.InstanceAction.action_start(
            cctxt, instance.uuid,
            instance_actions.RESIZE if flavor_id is not None
            else instance_actions.MIGRATE, want_result=False)
    spec = objects.RequestSpec.get_by_instance_uuid(context, instance.uuid)
    if destination is not None:
        spec.requested_destination = destination
    compute_api.compute_task_api.migrate_server(
        context, instance, {'filter_properties': {}}, False, False, flavor,
        None, None, clean_shutdown=True, request_spec=spec, do_cast=True)
    LOG.info('%s of instance %s handed to the conductor', method,
             instance.uuid)


def _resized(cctxt, instance_uuid):
    """(instance, its finished migration) of a server to confirm or
    revert."""
    instance = _objects().Instance.get_by_uuid(
        cctxt, instance_uuid, expected_attrs=INSTANCE_ATTRS)
    try:
        migration = _objects().Migration.get_by_instance_and_status(
            cctxt.elevated(), instance.uuid, 'finished')
    except exception.MigrationNotFoundByStatus:
        raise exception.MigrationNotFound(migration_id=instance.uuid)
    return instance, migration


def _settling(cctxt, instance, migration, status, action):
    """The migration enters ``status``; the instance action starts."""
    migration.status = status
    migration.save()
    _objects().InstanceAction.action_start(cctxt, instance.uuid, action,
                                           want_result=False)


def confirm_resize(compute_api, context, instance_uuid):
    with _in_cell(context, instance_uuid) as cctxt:
        instance, migration = _resized(cctxt, instance_uuid)
        _settling(cctxt, instance, migration, 'confirming',
                  instance_actions.CONFIRM_RESIZE)
        compute_api.compute_rpcapi.confirm_resize(
            cctxt, instance, migration, migration.source_compute)


def revert_resize(compute_api, context, instance_uuid):
    with _in_cell(context, instance_uuid) as cctxt:
        instance, migration = _resized(cctxt, instance_uuid)
        spec = _objects().RequestSpec.get_by_instance_uuid(context,
                                                           instance.uuid)
        spec.flavor = instance.old_flavor
        spec.save()
        instance.task_state = task_states.RESIZE_REVERTING
        instance.save(expected_task_state=[None])
        _settling(cctxt, instance, migration, 'reverting',
                  instance_actions.REVERT_RESIZE)
        compute_api.compute_rpcapi.revert_resize(
            cctxt, instance, migration, migration.dest_compute, spec)


def confirm_before_delete(compute_api, cctxt, instance):
    """A server deleted while VERIFY_RESIZE leaves nothing on the source:
    the resize is confirmed there first (a call), as Nova does."""
    if instance.vm_state != vm_states.RESIZED:
        return
    try:
        migration = _objects().Migration.get_by_instance_and_status(
            cctxt.elevated(), instance.uuid, 'finished')
    except exception.MigrationNotFoundByStatus:
        return
    _objects().InstanceAction.action_start(
        cctxt, instance.uuid, instance_actions.CONFIRM_RESIZE,
        want_result=False)
    compute_api.compute_rpcapi.confirm_resize(
        cctxt, instance, migration, migration.source_compute, cast=False)
