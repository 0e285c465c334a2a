"""The conductor's part of a rebuild: check the host, hand over.

A rebuild stays on the instance's host.  When the image changes, the
scheduler checks that host against the new image first (a rebuild check:
no Placement claim, only the filters a new image concerns); a refusal
puts the instance back to its vm_state with no task, with a fault, and
records the conductor's event as an Error.  Then the compute gets
``rebuild_instance``.

An evacuate (``recreate``) schedules a new host away from the dead one:
the instance's allocation on the old host passes to the evacuation's
Migration (the old compute deletes it when it comes back), the scheduler
claims the new host for the instance, and the new host's compute gets
``rebuild_instance``.  Nowhere to go: the allocation returns to the
instance, the Migration is in error and the server keeps its state.
"""

from oslo_log import log as logging
from oslo_utils import excutils

from nova_clone.compute import utils as compute_utils
from nova_clone.conf import CONF
from nova_clone import context as nova_context
from nova_clone import exception
from nova_clone import objects

LOG = logging.getLogger(__name__)

REBUILD_EVENT = 'rebuild_server'


def target_instance_cell(context, instance):
    """Point ``context`` (and the instance's) at the instance's cell: the
    RPC context does not carry it."""
    mapping = objects.InstanceMapping.get_by_instance_uuid(context,
                                                           instance.uuid)
    nova_context.set_target_cell(context, mapping.cell_mapping)
    instance._context = context


def _is_rebuild_check(request_spec):
    hints = request_spec.scheduler_hints if request_spec is not None and \
        request_spec.obj_attr_is_set('scheduler_hints') else None
    return 'rebuild' in ((hints or {}).get('_nova_check_type') or [])


def _check_host(manager, context, instance, request_spec):
    """NoValidHost when the instance's host does not take the new image."""
    request_spec.requested_destination = objects.Destination(
        host=instance.host, node=instance.node)
    manager.query_client.select_destinations(
        context, request_spec, [instance.uuid], return_objects=True,
        return_alternates=False)


def _refused(context, instance, exc, orig_image_ref, orig_sys_metadata):
    """The rebuild does not happen: the server is as it was (its image
    too), with a fault saying why."""
    instance.task_state = None
    if instance.image_ref:
        instance.image_ref = orig_image_ref
    instance.system_metadata = dict(orig_sys_metadata or {})
    try:
        instance.save()
    except exception.InstanceNotFound:
        return
    compute_utils.add_instance_fault_from_exc(context, instance, exc)


def _evacuation(context, instance):
    return objects.Migration.get_by_instance_and_status(
        context, instance.uuid, 'accepted')


def _schedule_evacuation(manager, context, instance, request_spec,
                         migration):
    """(host, node) the instance goes to, claimed in Placement."""
    hints = dict(request_spec.scheduler_hints or {})
    hints.pop('_nova_check_type', None)
    request_spec.scheduler_hints = hints
    request_spec.ignore_hosts = [instance.host]
    manager.report_client.move_allocations(context, instance.uuid,
                                           migration.uuid)
    try:
        selection = manager.query_client.select_destinations(
            context, request_spec, [instance.uuid], return_objects=True,
            return_alternates=False)[0][0]
    except Exception:
        with excutils.save_and_reraise_exception():
            manager.report_client.move_allocations(
                context, migration.uuid, instance.uuid)
            migration.status = 'error'
            migration.save()
    return selection.service_host, selection.nodename


def rebuild_instance(manager, context, instance, orig_image_ref, image_ref,
                     injected_files, new_pass, orig_sys_metadata, bdms,
                     recreate, on_shared_storage, preserve_ephemeral=False,
                     host=None, request_spec=None,
                     reimage_boot_volume=False, target_state=None):
    target_instance_cell(context, instance)
    with compute_utils.EventReporter(context, REBUILD_EVENT, CONF.host,
                                     instance.uuid):
        if recreate:
            migration = _evacuation(context, instance)
            try:
                host, node = _schedule_evacuation(
                    manager, context, instance, request_spec, migration)
            except exception.NoValidHost as exc:
                with excutils.save_and_reraise_exception():
                    LOG.warning('Evacuation of %s found no host: %s',
                                instance.uuid, exc.format_message())
                    _refused(context, instance, exc, instance.image_ref,
                             instance.system_metadata)
            migration.dest_compute = host
            migration.dest_node = node
            migration.save()
        else:
            migration, host, node = None, instance.host, None
            if request_spec is not None and _is_rebuild_check(request_spec):
                try:
                    _check_host(manager, context, instance, request_spec)
                except exception.NoValidHost as exc:
                    with excutils.save_and_reraise_exception():
                        LOG.warning('Rebuild of %s refused: %s',
                                    instance.uuid, exc.format_message())
                        _refused(context, instance, exc, orig_image_ref,
                                 orig_sys_metadata)
        manager.compute_rpcapi.rebuild_instance(
            context, instance=instance, new_pass=new_pass,
            injected_files=injected_files, image_ref=image_ref,
            orig_image_ref=orig_image_ref,
            orig_sys_metadata=orig_sys_metadata, bdms=bdms,
            recreate=recreate, on_shared_storage=on_shared_storage,
            preserve_ephemeral=preserve_ephemeral, migration=migration,
            host=host, scheduled_node=node, limits=None,
            request_spec=request_spec, accel_uuids=[],
            reimage_boot_volume=reimage_boot_volume,
            target_state=target_state)
