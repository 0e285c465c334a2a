"""GET /os-migrations: the moves of servers in every cell."""

from oslo_utils import timeutils

from nova_clone.api import auth
from nova_clone.api import common
from nova_clone.api import microversion
from nova_clone.api.schemas import migrations as schema
from nova_clone.api import validation
from nova_clone.api.views import common as view_common
from nova_clone import context as nova_context
from nova_clone import exception
from nova_clone.policies import migrations as policies

_FILTERS = ('host', 'instance_uuid', 'source_compute', 'status',
            'migration_type')
_LIVE_IN_PROGRESS = ('queued', 'preparing', 'running', 'post-migrating')
_SUBSECOND = '%Y-%m-%dT%H:%M:%S.%f'


def _objects():
    from nova_clone import objects
    return objects


def _time(value):
    return value.strftime(_SUBSECOND) if value else None


def _filters(req):
    filters = {'hidden': False}
    for key in _FILTERS:
        value = common.last_value(req, key)
        if value is not None:
            filters[key] = value
    if microversion.is_supported(req, '2.80'):
        for key in ('user_id', 'project_id'):
            value = common.last_value(req, key)
            if value is not None:
                filters[key] = value
    for key, since in (('changes-since', '2.59'), ('changes-before', '2.66')):
        raw = common.last_value(req, key)
        if raw is not None and microversion.is_supported(req, since):
            try:
                filters[key] = timeutils.parse_isotime(raw)
            except ValueError:
                raise common.bad_request(
                    'Invalid input for query parameters %s. Value: %s.'
                    % (key, raw))
    return filters


def _sort_key(migration):
    return (migration.created_at, migration.id)


def _from_cells(context, filters):
    """Every matching migration, newest first, across the cells."""
    found = []
    for _cell, cctxt in nova_context.each_cell(context):
        found.extend(_objects().MigrationList.get_by_filters(cctxt, filters))
    found.sort(key=_sort_key, reverse=True)
    return found


def _page(migrations, limit, marker):
    if marker is not None:
        uuids = [m.uuid for m in migrations]
        if marker not in uuids:
            raise common.bad_request(exception.MarkerNotFound(
                marker=marker).format_message())
        migrations = migrations[uuids.index(marker) + 1:]
    return migrations[:limit] if limit is not None else migrations


class MigrationsController(object):

    def _view(self, req, migration):
        view = {
            'created_at': _time(migration.created_at),
            'dest_compute': migration.dest_compute,
            'dest_host': migration.dest_host,
            'dest_node': migration.dest_node,
            'id': migration.id,
            'instance_uuid': migration.instance_uuid,
            'new_instance_type_id': migration.new_instance_type_id,
            'old_instance_type_id': migration.old_instance_type_id,
            'source_compute': migration.source_compute,
            'source_node': migration.source_node,
            'status': migration.status,
            'updated_at': _time(migration.updated_at),
        }
        if microversion.is_supported(req, '2.23'):
            view['migration_type'] = migration.migration_type
            if migration.migration_type == 'live-migration' and \
                    migration.status in _LIVE_IN_PROGRESS:
                view['links'] = view_common.links(
                    req, 'servers/%s/migrations' % migration.instance_uuid,
                    migration.id)
        if microversion.is_supported(req, '2.59'):
            view['uuid'] = migration.uuid
        if microversion.is_supported(req, '2.80'):
            view['user_id'] = migration.user_id
            view['project_id'] = migration.project_id
        return view

    @validation.query_schema(schema.list_query_v280, '2.80')
    @validation.query_schema(schema.list_query_v266, '2.66', '2.79')
    @validation.query_schema(schema.list_query_v259, '2.59', '2.65')
    @validation.query_schema(schema.list_query, '2.1', '2.58')
    def index(self, req):
        context = auth.get_context(req)
        context.can(policies.MIGRATIONS, target={})
        limit = marker = None
        paging = microversion.is_supported(req, '2.59')
        if paging:
            limit, marker = common.get_limit_and_marker(req)
        migrations = _page(_from_cells(context, _filters(req)), limit,
                           marker)
        views = [self._view(req, m) for m in migrations]
        body = {'migrations': views}
        if paging:
            links = view_common.next_link(req, 'os-migrations', views, limit,
                                          marker_key='uuid')
            if links:
                body['migrations_links'] = links
        return body
