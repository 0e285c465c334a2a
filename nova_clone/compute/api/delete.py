"""The API side of a delete (scenario 2).

* still a build request: delete it with its mapping and request spec (the
  conductor notices and cleans up whatever it had started);
* in a cell with its compute up: task_state deleting, action ``delete``,
  cast terminate_instance and answer at once;
* compute down, never placed on a host, cell0, or shelved-offloaded: the
  API cleans up itself (volumes, ports, Placement) and soft-deletes the
  instance.  A Placement refusal is a 409 and leaves the instance intact.
"""

from oslo_log import log as logging
from oslo_utils import timeutils

from nova_clone.compute.api import instance_list
from nova_clone.compute.api import preconditions
from nova_clone.compute.api import resize
from nova_clone.compute import instance_actions
from nova_clone.compute import task_states
from nova_clone.compute import vm_states
from nova_clone.conf import CONF
from nova_clone import context as nova_context
from nova_clone import exception
from nova_clone.volume import release

LOG = logging.getLogger(__name__)


# What a delete loads of the instance.  The flavor too: the compute frees
# its resources by it, and would otherwise lazy-load it through the
# conductor.
INSTANCE_ATTRS = ('system_metadata', 'info_cache', 'flavor')


def _objects():
    from nova_clone import objects
    return objects


def _delete_build_request(context, uuid):
    """True when the server was only a build request and is now gone."""
    objects = _objects()
    try:
        br = objects.BuildRequest.get_by_instance_uuid(context, uuid)
        br.destroy()
    except exception.BuildRequestNotFound:
        return False
    for fn in (lambda: objects.RequestSpec.get_by_instance_uuid(
                   context, uuid).destroy(),
               lambda: objects.InstanceMapping.get_by_instance_uuid(
                   context, uuid).destroy()):
        try:
            fn()
        except exception.NotFound:
            pass
    LOG.info('Deleted build request of instance %s: build cancelled', uuid)
    return True


def _release_build_claim(compute_api, context, uuid):
    """A build cancelled after the scheduler claimed (its conductor died
    before the instance reached a cell) still holds an allocation."""
    try:
        compute_api.report_client.delete_allocation_for_instance(context,
                                                                 uuid)
    except exception.NovaException as exc:
        LOG.warning('Could not release the allocation of cancelled build '
                    '%s: %s', uuid, exc)


def delete(compute_api, context, instance, mapping=None, allow_soft=True):
    """``mapping`` is given when ``instance`` was read with it (from its
    cell with INSTANCE_ATTRS, or from its build request) just before.
    The caller has checked the preconditions of ``instance``.
    ``allow_soft=False`` (forceDelete): never a soft delete."""
    objects = _objects()
    uuid = instance.uuid
    # The instance as read with its mapping serves as is; else (or when it
    # was still a build request) both are read here.
    reread = mapping is None or mapping.cell_mapping is None
    if mapping is None:
        mapping = instance_list.get_mapping(context, uuid)

    # A deleted server leaves its group (and the group members quota).
    objects.InstanceGroup.remove_member(context, uuid)
    if mapping.cell_mapping is None:
        if _delete_build_request(context, uuid):
            _release_build_claim(compute_api, context, uuid)
            return
        mapping = instance_list.get_scheduled_mapping(context, uuid)

    cell = mapping.cell_mapping
    with nova_context.target_cell(context, cell) as cctxt:
        if reread:
            instance = objects.Instance.get_by_uuid(
                cctxt, uuid, expected_attrs=list(INSTANCE_ATTRS))
            preconditions.check(context, instance, 'delete')
        service_up = bool(instance.host) and not cell.is_cell0() and \
            compute_api.host_api.compute_is_up(cctxt, instance.host)
        if service_up and \
                instance.vm_state != vm_states.SHELVED_OFFLOADED:
            if allow_soft and _soft_delete_wanted(instance):
                # Kept for [DEFAULT] reclaim_instance_interval: the
                # mapping stays, restore can bring the server back.
                _soft_delete_on_compute(compute_api, cctxt, instance)
                return
            _delete_on_compute(compute_api, cctxt, instance)
        else:
            _local_delete(compute_api, cctxt, instance,
                          cell0=cell.is_cell0())
    _queue_for_delete(mapping)


def _queue_for_delete(mapping):
    if hasattr(mapping, 'queued_for_delete'):
        mapping.queued_for_delete = True
        try:
            mapping.save()
        except exception.NotFound:
            pass


def _delete_on_compute(compute_api, cctxt, instance):
    objects = _objects()
    resize.confirm_before_delete(compute_api, cctxt, instance)
    instance.task_state = task_states.DELETING
    try:
        instance.save()
    except exception.InstanceNotFound:
        return
    objects.InstanceAction.action_start(
        cctxt, instance.uuid, instance_actions.DELETE, want_result=False)
    bdms = objects.BlockDeviceMappingList.get_by_instance_uuid(
        cctxt, instance.uuid)
    compute_api.compute_rpcapi.terminate_instance(cctxt, instance, bdms)
    LOG.info('Asked compute %s to delete instance %s', instance.host,
             instance.uuid)


def _soft_delete_wanted(instance):
    """A deferred delete (soft delete) of a server that has run, when
    [DEFAULT] reclaim_instance_interval keeps deleted servers a while."""
    return CONF.reclaim_instance_interval > 0 and bool(instance.launched_at)


def _soft_delete_on_compute(compute_api, cctxt, instance):
    instance.task_state = task_states.SOFT_DELETING
    instance.deleted_at = timeutils.utcnow()
    instance.save()
    _objects().InstanceAction.action_start(
        cctxt, instance.uuid, instance_actions.DELETE, want_result=False)
    compute_api.compute_rpcapi.soft_delete_instance(cctxt, instance)
    LOG.info('Asked compute %s to soft delete instance %s', instance.host,
             instance.uuid)


_PLACEMENT_REFUSED = (
    'Server %(uuid)s was not deleted: Placement did not release its '
    'resource allocations (%(reason)s). Nothing was changed; try the '
    'delete again once Placement is available.')


def _release_allocations(compute_api, cctxt, instance):
    """Delete the Placement allocations or refuse the delete with a 409."""
    try:
        compute_api.report_client.delete_allocation_for_instance(
            cctxt, instance.uuid)
    except (exception.AllocationDeleteFailed,
            exception.PlacementAPIConnectFailure) as exc:
        LOG.warning('Local delete of instance %s refused: %s',
                    instance.uuid, exc.format_message())
        reason = ('it refused the request'
                  if isinstance(exc, exception.AllocationDeleteFailed)
                  else 'it could not be reached')
        raise exception.Conflict(_PLACEMENT_REFUSED % {
            'uuid': instance.uuid, 'reason': reason})


def _local_delete(compute_api, cctxt, instance, cell0=False):
    """Clean up without the compute, then soft-delete the instance."""
    objects = _objects()
    LOG.info('Deleting instance %s locally (compute %s unavailable or not '
             'involved)', instance.uuid, instance.host)
    previous = instance.task_state
    if instance.host and not cell0:
        # Should this request die half way (its allocation gone, the
        # server still there), its compute finishes the delete when it
        # starts again.
        instance.task_state = task_states.DELETING
        try:
            instance.save()
        except exception.InstanceNotFound:
            return
    # Placement first: if it refuses, the server stays and the user gets
    # a 409 to retry, rather than a leaked allocation.  The action is
    # recorded only once the delete really goes ahead.
    try:
        _release_allocations(compute_api, cctxt, instance)
    except exception.Conflict:
        if instance.task_state != previous:
            instance.task_state = previous
            instance.save()
        raise
    objects.InstanceAction.action_start(
        cctxt, instance.uuid, instance_actions.DELETE, want_result=False)
    if not cell0:
        bdms = objects.BlockDeviceMappingList.get_by_instance_uuid(
            cctxt, instance.uuid)
        release.release_attachments(compute_api.volume_api, cctxt, bdms)
        release.release_volumes(compute_api.volume_api, cctxt, instance,
                                bdms, raise_exc=False)
        try:
            compute_api.network_api.deallocate_for_instance(cctxt, instance)
        except Exception:
            LOG.exception('Could not release the ports of instance %s',
                          instance.uuid)
        for bdm in bdms:
            try:
                bdm.destroy()
            except Exception:
                LOG.debug('BDM of %s already gone', instance.uuid)
    instance.vm_state = vm_states.DELETED
    instance.task_state = None
    instance.terminated_at = timeutils.utcnow()
    try:
        instance.save()
        instance.destroy()
    except exception.InstanceNotFound:
        pass
    except exception.ObjectActionError:
        # Read without a host, claimed by a compute since: the build is
        # under way there, so that compute finishes the delete.
        LOG.info('Instance %s was claimed by a compute during its local '
                 'delete; asking that compute to delete it', instance.uuid)
        instance.refresh()
        _delete_on_compute(compute_api, cctxt, instance)
