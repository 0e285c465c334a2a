"""The API side of live migration: start, force-complete, abort, and the
server's in-progress live migrations.

A live migration is recorded in the instance's cell (task_state
``migrating``, action ``live-migration``) and handed to the conductor
(``live_migrate_instance``, a cast; ``migrate_server``, a call, before
2.34); force-complete and abort go to the source
compute, each with its own instance action.
"""

from oslo_log import log as logging

from nova_clone.compute.api import instance_list
from nova_clone.compute import instance_actions
from nova_clone.compute import task_states
from nova_clone import context as nova_context
from nova_clone import exception
from nova_clone import objects
from nova_clone.objects import migration as migration_obj

LOG = logging.getLogger(__name__)

LIVE_MIGRATION = 'live-migration'
# The statuses an abort accepts, by whether queued ones may be aborted
# (2.65+).
_ABORTABLE = {False: ('running',),
              True: ('running', 'queued', 'preparing')}


def _cell(context, instance):
    mapping = instance_list.get_scheduled_mapping(context, instance.uuid)
    return nova_context.target_cell(context, mapping.cell_mapping)


def live_migrate(compute_api, context, instance, block_migration,
                 disk_over_commit, host_name, force=None, async_=False):
    """``async_`` (2.34+): cast to the conductor; before, wait for it to
    pass its checks (migrate_server, a call), so that a refusal is the
    request's error."""
    with _cell(context, instance) as cctxt:
        node = None
        if host_name:
            nodes = objects.ComputeNodeList.get_all_by_host(cctxt,
                                                            host_name)
            if not nodes:
                raise exception.ComputeHostNotFound(host=host_name)
            node = nodes[0]
        spec = objects.RequestSpec.get_by_instance_uuid(context,
                                                        instance.uuid)
        cell_instance = objects.Instance.get_by_uuid(
            cctxt, instance.uuid, expected_attrs=['flavor', 'info_cache'])
        cell_instance.task_state = task_states.MIGRATING
        cell_instance.save(expected_task_state=[None])
        objects.InstanceAction.action_start(
            cctxt, instance.uuid, instance_actions.LIVE_MIGRATION,
            want_result=False)
    if host_name and force is False:
        # The scheduler still runs its filters, on that host only.
        spec.requested_destination = objects.Destination(
            host=node.host, node=node.hypervisor_hostname)
        host_name = None
    task_api = compute_api.compute_task_api
    if async_:
        task_api.live_migrate_instance(
            context, cell_instance, {'host': host_name}, block_migration,
            disk_over_commit, spec)
    else:
        task_api.migrate_server(
            context, cell_instance, {'host': host_name}, True, False, None,
            block_migration, disk_over_commit, request_spec=spec)
    LOG.info('Live migration of %s handed to the conductor (host %s)',
             instance.uuid, host_name or 'chosen by the scheduler')


def _migration(cctxt, instance, migration_id):
    return objects.Migration.get_by_id_and_instance(cctxt, migration_id,
                                                    instance.uuid)


def force_complete(compute_api, context, instance, migration_id):
    with _cell(context, instance) as cctxt:
        migration = _migration(cctxt, instance, migration_id)
        if migration.status != 'running':
            raise exception.InvalidMigrationState(
                migration_id=migration_id, instance_uuid=instance.uuid,
                state=migration.status, method='force complete')
        objects.InstanceAction.action_start(
            cctxt, instance.uuid,
            instance_actions.LIVE_MIGRATION_FORCE_COMPLETE,
            want_result=False)
        compute_api.compute_rpcapi.live_migration_force_complete(
            cctxt, instance, migration)


def abort(compute_api, context, instance, migration_id,
          support_abort_in_queue=False):
    with _cell(context, instance) as cctxt:
        migration = _migration(cctxt, instance, migration_id)
        if migration.status not in _ABORTABLE[support_abort_in_queue]:
            raise exception.InvalidMigrationState(
                migration_id=migration_id, instance_uuid=instance.uuid,
                state=migration.status, method='abort live migration')
        objects.InstanceAction.action_start(
            cctxt, instance.uuid, instance_actions.LIVE_MIGRATION_CANCEL,
            want_result=False)
        compute_api.compute_rpcapi.live_migration_abort(
            cctxt, instance, migration.id)


def in_progress(context, instance):
    """The server's live migrations that have not ended."""
    with _cell(context, instance) as cctxt:
        return objects.MigrationList.get_in_progress_by_instance(
            cctxt, instance.uuid, LIVE_MIGRATION)


def get_in_progress(context, instance, migration_id):
    """One of them; MigrationNotFoundForInstance if it is not one."""
    with _cell(context, instance) as cctxt:
        migration = _migration(cctxt, instance, migration_id)
    if not migration.is_live_migration or \
            migration.status in migration_obj.IN_PROGRESS_EXCLUDED:
        raise exception.MigrationNotFoundForInstance(
            migration_id=migration_id, instance_id=instance.uuid)
    return migration
