"""The conductor's part of a cold migration or resize (migrate_server).

The instance's allocation moves to a new migration record as consumer
(it keeps holding the source's resources while the server moves), the
scheduler picks and claims a destination for the instance with the new
flavor, and the destination gets prep_resize with the alternates, so that
it can hand the move back here for another host when it cannot take it.
When no host takes the move the server stays as it was on its host, with
a fault saying why.
"""

from oslo_log import log as logging

from nova_clone.compute.host import resize as host_resize
from nova_clone.compute import task_states
from nova_clone.conductor.tasks import build
from nova_clone.compute import utils as compute_utils
from nova_clone.conf import CONF
from nova_clone import context as nova_context
from nova_clone import exception

LOG = logging.getLogger(__name__)

EVENT = 'conductor_migrate_server'
COLD_MIGRATE_EVENT = 'cold_migrate'
PRE_MIGRATING = 'pre-migrating'


def _objects():
    from nova_clone import objects
    return objects


def migrate_server(manager, context, instance, scheduler_hint, live, rebuild,
                   flavor, block_migration, disk_over_commit,
                   reservations=None, clean_shutdown=True, request_spec=None,
                   host_list=None):
    if live or rebuild or flavor is None:
        raise exception.Invalid(
            'migrate_server here runs cold migrations and resizes only')
    if host_list is not None:
        # A reschedule cast by a compute: this is its cell's conductor.
        _reported(manager, context, instance, scheduler_hint, flavor,
                  clean_shutdown, request_spec, host_list)
        return
    # From the API: the super-conductor finds the instance's cell.
    mapping = _objects().InstanceMapping.get_by_instance_uuid(context,
                                                              instance.uuid)
    with nova_context.target_cell(context, mapping.cell_mapping) as cctxt:
        instance._context = cctxt
        if _given_up(cctxt, instance):
            return
        _reported(manager, cctxt, instance, scheduler_hint, flavor,
                  clean_shutdown, request_spec, host_list)


def _given_up(context, instance):
    """A cast that waited in the queue while its conductor was down finds
    the move already given up by settle_abandoned_moves (or the server
    gone): nothing is left to do."""
    try:
        current = _objects().Instance.get_by_uuid(context, instance.uuid,
                                                  expected_attrs=[])
    except exception.InstanceNotFound:
        return True
    if current.task_state == task_states.RESIZE_PREP:
        return False
    LOG.info('Not moving %s: its task is now %s', instance.uuid,
             current.task_state)
    return True


def _reported(manager, context, instance, scheduler_hint, flavor,
              clean_shutdown, request_spec, host_list):
    with compute_utils.EventReporter(context, EVENT, CONF.host,
                                     instance.uuid):
        with compute_utils.EventReporter(context, COLD_MIGRATE_EVENT,
                                         CONF.host, instance.uuid):
            _cold_migrate(manager, context, instance, scheduler_hint,
                          flavor, clean_shutdown, request_spec, host_list)


def _new_migration(context, instance, flavor):
    migration = _objects().Migration(context=context)
    migration.instance_uuid = instance.uuid
    migration.source_compute = instance.host
    migration.source_node = instance.node
    migration.old_instance_type_id = instance.flavor.id
    migration.new_instance_type_id = flavor.id
    migration.migration_type = ('resize' if instance.flavor.id != flavor.id
                                else 'migration')
    migration.status = PRE_MIGRATING
    migration.user_id = instance.user_id
    migration.project_id = instance.project_id
    migration.create()
    return migration


def _cold_migrate(manager, context, instance, scheduler_hint, flavor,
                  clean_shutdown, request_spec, host_list):
    filter_properties = (scheduler_hint or {}).get('filter_properties', {})
    if host_list is None:
        migration = _new_migration(context, instance, flavor)
        try:
            manager.report_client.move_allocations(context, instance.uuid,
                                                   migration.uuid)
        except Exception as exc:
            LOG.warning('Cold migration of %s failed: %s', instance.uuid,
                        exc)
            host_resize.rollback_to_source(context, manager.report_client,
                                           instance, migration, exc)
            raise
    else:
        # A reschedule: the destination that failed gave its claim back.
        migration = _objects().Migration.get_by_instance_and_status(
            context, instance.uuid, PRE_MIGRATING)
    try:
        selection, alternates = _destination(manager, context, instance,
                                             flavor, request_spec, host_list)
    except Exception as exc:
        LOG.warning('Cold migration of %s failed: %s', instance.uuid, exc)
        host_resize.rollback_to_source(context, manager.report_client,
                                       instance, migration, exc)
        raise
    LOG.info('Moving instance %s from %s to %s (migration %s)',
             instance.uuid, instance.host, selection.service_host,
             migration.uuid)
    manager.compute_rpcapi.prep_resize(
        context, instance, _image(request_spec), flavor,
        selection.service_host, migration, request_spec, filter_properties,
        selection.nodename, clean_shutdown, host_list=alternates)


def _image(request_spec):
    if request_spec.obj_attr_is_set('image') and request_spec.image:
        return request_spec.image
    return None


def _destination(manager, context, instance, flavor, request_spec,
                 host_list):
    """(claimed Selection, its alternates)."""
    if host_list is not None:
        selection = _claim_alternate(manager, context, instance, host_list)
        return selection, host_list
    request_spec.flavor = flavor
    request_spec.num_instances = 1
    if not CONF.allow_resize_to_same_host:
        request_spec.ignore_hosts = [instance.host]
    selections = manager.query_client.select_destinations(
        context, request_spec, [instance.uuid], return_objects=True,
        return_alternates=True)
    # The spec keeps the flavor the server is moving to (a revert puts the
    # old one back); the destination asked for was for this move only.
    kept = request_spec.obj_clone()
    kept.requested_destination = None
    kept.save()
    hosts = selections[0]
    return hosts[0], hosts[1:]


def _claim_alternate(manager, context, instance, host_list):
    host = build.claim_next_alternate(manager, context, instance, host_list)
    if host is None:
        raise exception.MaxRetriesExceeded(
            reason='Exhausted all hosts available for retrying the resize '
                   'of instance %s.' % instance.uuid)
    return host


def settle_abandoned_moves(manager, context, before, seconds=None):
    """A server in resize_prep since before ``before`` whose move no
    destination has taken yet would stay RESIZE for ever: at a
    super-conductor's start (``before`` its start), the conductor that
    was scheduling it died (casts are not redelivered once taken); in
    the periodic check (``seconds`` ago), its cast was lost, or its
    conductor failed to give it up (the database or Placement were
    away).  It stays on its host as it was, its allocation given back,
    its migration in error, with a fault saying why.  Like
    bury_abandoned_build_requests, this assumes one super-conductor per
    deployment."""
    for _cell, cctxt in nova_context.each_cell(context):
        for instance in _objects().InstanceList.get_by_filters(
                cctxt, {'task_state': [task_states.RESIZE_PREP]},
                expected_attrs=[]):
            if (instance.updated_at or instance.created_at).replace(
                    tzinfo=None) >= before:
                continue
            exc = (exception.ConductorStoppedWhileMoving(host=instance.host)
                   if seconds is None else
                   exception.MoveLost(seconds=seconds, host=instance.host))
            try:
                _settle_abandoned_move(manager, cctxt, instance, exc)
            except Exception:
                LOG.exception('Could not settle the abandoned move of %s '
                              'yet', instance.uuid)


def _settle_abandoned_move(manager, context, instance, exc):
    migration = None
    for candidate in _objects().MigrationList.get_by_filters(context, {
            'instance_uuid': instance.uuid, 'status': PRE_MIGRATING}):
        if candidate.dest_compute:
            return  # a destination took it: the computes finish the move
        migration = candidate
    LOG.warning('The move of %s was abandoned; it stays on %s: %s',
                instance.uuid, instance.host, exc)
    if migration is not None:
        host_resize.rollback_to_source(context, manager.report_client,
                                       instance, migration, exc)
        return
    compute_utils.add_instance_fault_from_exc(context, instance, exc)
    instance.task_state = None
    instance.save(expected_task_state=[task_states.RESIZE_PREP])
