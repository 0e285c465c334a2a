"""/servers/{server_id}/migrations: a server's in-progress live
migrations (2.23+), forcing one to complete (2.22+) and aborting one
(2.24+)."""

from nova_clone.api import auth
from nova_clone.api import common
from nova_clone.api import microversion
from nova_clone.api import resource
from nova_clone.api.controllers import servers
from nova_clone.api.schemas import server_migrations as schema
from nova_clone.api import validation
from nova_clone import exception
from nova_clone.policies import server_migrations as policies

_SUBSECOND = '%Y-%m-%dT%H:%M:%S.%f'


def _time(value):
    return value.strftime(_SUBSECOND) if value else None


def _view(req, migration):
    view = {
        'created_at': _time(migration.created_at),
        'dest_compute': migration.dest_compute,
        'dest_host': migration.dest_host,
        'dest_node': migration.dest_node,
        'disk_processed_bytes': migration.disk_processed,
        'disk_remaining_bytes': migration.disk_remaining,
        'disk_total_bytes': migration.disk_total,
        'id': migration.id,
        'memory_processed_bytes': migration.memory_processed,
        'memory_remaining_bytes': migration.memory_remaining,
        'memory_total_bytes': migration.memory_total,
        'server_uuid': migration.instance_uuid,
        'source_compute': migration.source_compute,
        'source_node': migration.source_node,
        'status': migration.status,
        'updated_at': _time(migration.updated_at),
    }
    if microversion.is_supported(req, '2.59'):
        view['uuid'] = migration.uuid
    if microversion.is_supported(req, '2.80'):
        view['user_id'] = migration.user_id
        view['project_id'] = migration.project_id
    return view


def _server(req, server_id, rule):
    context = auth.get_context(req)
    instance = servers.get_server(req, server_id)
    context.can(policies.MIGRATIONS % rule,
                target={'project_id': instance.project_id})
    return context, instance


def _not_found(migration_id, server_id):
    return common.not_found(
        'In-progress live migration %s is not found for server %s.'
        % (migration_id, server_id))


def _migration_id(value, server_id):
    try:
        return int(value)
    except ValueError:
        raise _not_found(value, server_id)


class ServerMigrationsController:

    @resource.api_version('2.23')
    def index(self, req, server_id):
        context, instance = _server(req, server_id, 'index')
        migrations = servers.compute_api(
        ).get_migrations_in_progress_by_instance(context, instance)
        return {'migrations': [_view(req, m) for m in migrations]}

    @resource.api_version('2.23')
    def show(self, req, server_id, migration_id):
        context, instance = _server(req, server_id, 'show')
        try:
            migration = servers.compute_api(
            ).get_migration_by_id_and_instance(
                context, instance, _migration_id(migration_id, server_id))
        except exception.MigrationNotFound:
            raise _not_found(migration_id, server_id)
        return {'migration': _view(req, migration)}

    @resource.api_version('2.24')
    @resource.response(202)
    def delete(self, req, server_id, migration_id):
        context, instance = _server(req, server_id, 'delete')
        try:
            servers.compute_api().live_migrate_abort(
                context, instance, _migration_id(migration_id, server_id),
                support_abort_in_queue=microversion.is_supported(req,
                                                                 '2.65'))
        except exception.MigrationNotFoundForInstance as exc:
            raise common.not_found(exc.format_message())
        except exception.InvalidMigrationState as exc:
            raise common.bad_request(exc.format_message())


class ServerMigrationActionController:
    """POST /servers/{server_id}/migrations/{migration_id}/action."""

    @resource.api_version('2.22')
    @resource.response(202)
    @resource.action('force_complete')
    @validation.schema(schema.force_complete)
    def force_complete(self, req, server_id, migration_id, body):
        context, instance = _server(req, server_id, 'force_complete')
        try:
            servers.compute_api().live_migrate_force_complete(
                context, instance, _migration_id(migration_id, server_id))
        except (exception.MigrationNotFoundForInstance,
                exception.InvalidMigrationState) as exc:
            raise common.bad_request(exc.format_message())
