"""Migration: one move of a server (resize, cold/live migration, evacuate)."""

import datetime

from oslo_utils import timeutils
from oslo_utils import uuidutils
import sqlalchemy as sa

from nova_clone.db.main import api as main_db_api
from nova_clone.db.main import models
from nova_clone.db.main import queries
from nova_clone import exception
from nova_clone.objects import base
from nova_clone.objects import fields

# Statuses of a move that is over: it no longer holds resources on the
# hosts involved.
IN_PROGRESS_EXCLUDED = ('confirmed', 'reverted', 'error', 'failed',
                        'completed', 'cancelled', 'done')

_COLUMNS = (
    'id', 'uuid', 'source_compute', 'dest_compute', 'source_node',
    'dest_node', 'dest_host', 'dest_compute_id', 'old_instance_type_id',
    'new_instance_type_id', 'instance_uuid', 'status', 'migration_type',
    'hidden', 'memory_total', 'memory_processed', 'memory_remaining',
    'disk_total', 'disk_processed', 'disk_remaining', 'cross_cell_move',
    'user_id', 'project_id', 'created_at', 'updated_at', 'deleted_at',
    'deleted')

_SORT_KEYS = ('created_at', 'updated_at', 'id', 'uuid', 'status',
              'instance_uuid', 'source_compute', 'dest_compute')


def _apply_filters(query, filters):
    mig = models.Migration
    filters = dict(filters or {})
    if 'uuid' in filters:
        query = query.filter(mig.uuid == filters['uuid'])
    if 'status' in filters:
        status = filters['status']
        status = [status] if isinstance(status, str) else list(status)
        query = query.filter(mig.status.in_(status))
    if 'host' in filters:
        host = filters['host']
        query = query.filter(sa.or_(mig.source_compute == host,
                                    mig.dest_compute == host))
    elif 'source_compute' in filters:
        query = query.filter(mig.source_compute == filters['source_compute'])
    if 'node' in filters:
        node = filters['node']
        query = query.filter(sa.or_(mig.source_node == node,
                                    mig.dest_node == node))
    if 'migration_type' in filters:
        kinds = filters['migration_type']
        kinds = [kinds] if isinstance(kinds, str) else list(kinds)
        query = query.filter(mig.migration_type.in_(kinds))
    if 'hidden' in filters:
        query = query.filter(mig.hidden == bool(filters['hidden']))
    if 'instance_uuid' in filters:
        query = query.filter(mig.instance_uuid == filters['instance_uuid'])
    if 'user_id' in filters:
        query = query.filter(mig.user_id == filters['user_id'])
    if 'project_id' in filters:
        query = query.filter(mig.project_id == filters['project_id'])
    if filters.get('changes-since'):
        query = query.filter(mig.updated_at >= timeutils.normalize_time(
            filters['changes-since']))
    if filters.get('changes-before'):
        query = query.filter(mig.updated_at <= timeutils.normalize_time(
            filters['changes-before']))
    return query


@main_db_api.pick_context_manager_reader
def _get_by_filters(context, filters, sort_keys=None, sort_dirs=None,
                    limit=None, marker=None):
    query = _apply_filters(
        queries.model_query(context, models.Migration), filters)
    sort_keys = list(sort_keys or ['created_at', 'id'])
    sort_dirs = list(sort_dirs or ['desc'] * len(sort_keys))
    for key in sort_keys:
        if key not in _SORT_KEYS:
            raise exception.InvalidInput(reason='Invalid sort key %s' % key)
    if 'id' not in sort_keys:
        sort_keys.append('id')
        sort_dirs.append(sort_dirs[0] if sort_dirs else 'desc')
    if marker is not None:
        marker_row = queries.model_query(
            context, models.Migration).filter_by(uuid=marker).first()
        if marker_row is None:
            raise exception.MarkerNotFound(marker=marker)
        query = query.filter(_after_marker(marker_row, sort_keys, sort_dirs))
    for key, direction in zip(sort_keys, sort_dirs):
        column = getattr(models.Migration, key)
        query = query.order_by(column.desc() if direction == 'desc'
                               else column.asc())
    if limit is not None:
        query = query.limit(limit)
    return query.all()


def _after_marker(marker_row, sort_keys, sort_dirs):
    """Rows strictly after ``marker_row`` in the given sort order."""
    clauses = []
    for i, (key, direction) in enumerate(zip(sort_keys, sort_dirs)):
        equal = [getattr(models.Migration, k) == getattr(marker_row, k)
                 for k in sort_keys[:i]]
        column = getattr(models.Migration, key)
        value = getattr(marker_row, key)
        beyond = column < value if direction == 'desc' else column > value
        clauses.append(sa.and_(*(equal + [beyond])))
    return sa.or_(*clauses)


@main_db_api.pick_context_manager_reader
def _in_progress(context, host=None, node=None, instance_uuid=None,
                 migration_type=None, statuses_excluded=IN_PROGRESS_EXCLUDED,
                 include_error=False):
    mig = models.Migration
    query = queries.model_query(context, mig)
    excluded = [s for s in statuses_excluded
                if not (include_error and s == 'error')]
    query = query.filter(~mig.status.in_(excluded))
    if host is not None:
        query = query.filter(sa.or_(
            sa.and_(mig.source_compute == host, mig.source_node == node)
            if node else mig.source_compute == host,
            sa.and_(mig.dest_compute == host, mig.dest_node == node)
            if node else mig.dest_compute == host))
    if instance_uuid is not None:
        query = query.filter(mig.instance_uuid == instance_uuid)
    if migration_type is not None:
        query = query.filter(mig.migration_type == migration_type)
    return query.order_by(mig.id).all()


@main_db_api.pick_context_manager_reader
def _unconfirmed(context, confirm_window, dest_compute):
    limit = timeutils.utcnow() - datetime.timedelta(
        seconds=confirm_window)
    return queries.model_query(context, models.Migration).filter(
        models.Migration.updated_at <= limit,
        models.Migration.status == 'finished',
        models.Migration.dest_compute == dest_compute).all()


@base.NovaObjectRegistry.register
class Migration(base.NovaPersistentObject, base.NovaObject,
                base.NovaObjectDictCompat):
    VERSION = '1.7'

    fields = {
        'id': fields.IntegerField(),
        'uuid': fields.UUIDField(),
        'source_compute': fields.StringField(nullable=True),
        'dest_compute': fields.StringField(nullable=True),
        'source_node': fields.StringField(nullable=True),
        'dest_node': fields.StringField(nullable=True),
        'dest_compute_id': fields.IntegerField(nullable=True),
        'dest_host': fields.StringField(nullable=True),
        'old_instance_type_id': fields.IntegerField(nullable=True),
        'new_instance_type_id': fields.IntegerField(nullable=True),
        'instance_uuid': fields.StringField(nullable=True),
        'status': fields.StringField(nullable=True),
        'migration_type': fields.MigrationTypeField(nullable=False),
        'hidden': fields.BooleanField(nullable=False, default=False),
        'memory_total': fields.IntegerField(nullable=True),
        'memory_processed': fields.IntegerField(nullable=True),
        'memory_remaining': fields.IntegerField(nullable=True),
        'disk_total': fields.IntegerField(nullable=True),
        'disk_processed': fields.IntegerField(nullable=True),
        'disk_remaining': fields.IntegerField(nullable=True),
        'cross_cell_move': fields.BooleanField(default=False),
        'user_id': fields.StringField(nullable=True),
        'project_id': fields.StringField(nullable=True),
    }

    @staticmethod
    def _from_db_object(context, migration, row):
        for name in _COLUMNS:
            value = getattr(row, name)
            if name in ('hidden', 'cross_cell_move', 'deleted'):
                value = bool(value)
            elif name == 'uuid' and value is None:
                continue
            elif name == 'migration_type' and value is None:
                # Rows from before the type was kept.
                value = ('resize' if row.old_instance_type_id !=
                         row.new_instance_type_id else 'migration')
            setattr(migration, name, value)
        migration._context = context
        migration.obj_reset_changes()
        migration._cached_instance = None
        return migration

    def obj_load_attr(self, attrname):
        if attrname == 'migration_type':
            self.migration_type = (
                'resize' if self.old_instance_type_id !=
                self.new_instance_type_id else 'migration')
        elif attrname == 'hidden':
            self.hidden = False
        elif attrname == 'cross_cell_move':
            self.cross_cell_move = False
        elif attrname == 'uuid':
            self.uuid = uuidutils.generate_uuid()
            if self.obj_attr_is_set('id'):
                self.save()
            return
        else:
            setattr(self, attrname, None)
        self.obj_reset_changes([attrname])

    @classmethod
    def _get(cls, context, filters, not_found):
        # The newest move first: an instance may have had several.
        row = queries.get_row(context, models.Migration, filters,
                              order_by=models.Migration.id.desc(),
                              not_found=not_found)
        return cls._from_db_object(context, cls(), row)

    @base.remotable_classmethod
    def get_by_id(cls, context, migration_id):
        return cls._get(context, {'id': migration_id},
                        exception.MigrationNotFound(migration_id=migration_id))

    @base.remotable_classmethod
    def get_by_uuid(cls, context, migration_uuid):
        return cls._get(context, {'uuid': migration_uuid},
                        exception.MigrationNotFound(
                            migration_id=migration_uuid))

    @base.remotable_classmethod
    def get_by_id_and_instance(cls, context, migration_id, instance_uuid):
        return cls._get(
            context, {'id': migration_id, 'instance_uuid': instance_uuid},
            exception.MigrationNotFoundForInstance(
                migration_id=migration_id, instance_id=instance_uuid))

    @base.remotable_classmethod
    def get_by_instance_and_status(cls, context, instance_uuid, status):
        return cls._get(
            context, {'instance_uuid': instance_uuid, 'status': status},
            exception.MigrationNotFoundByStatus(instance_id=instance_uuid,
                                                status=status))

    @base.remotable
    def create(self):
        if self.obj_attr_is_set('id'):
            raise exception.ObjectActionError(action='create',
                                              reason='already created')
        values = self.obj_get_changes()
        values.setdefault('uuid', uuidutils.generate_uuid())
        if 'migration_type' not in values:
            values['migration_type'] = (
                'resize' if values.get('old_instance_type_id') !=
                values.get('new_instance_type_id') else 'migration')
        if self._context is not None:
            values.setdefault('user_id', self._context.user_id)
            values.setdefault('project_id', self._context.project_id)
        row = queries.create_row(self._context, models.Migration,
                                 queries.naive_datetimes(values))
        self._from_db_object(self._context, self, row)

    @base.remotable
    def save(self):
        values = self.obj_get_changes()
        values.pop('id', None)
        if not values:
            return
        row = queries.update_row(
            self._context, models.Migration, self.id,
            queries.naive_datetimes(values),
            exception.MigrationNotFound(migration_id=self.id))
        self._from_db_object(self._context, self, row)

    @property
    def instance(self):
        if getattr(self, '_cached_instance', None) is None:
            from nova_clone import objects
            self._cached_instance = objects.Instance.get_by_uuid(
                self._context, self.instance_uuid)
        return self._cached_instance

    @instance.setter
    def instance(self, instance):
        self._cached_instance = instance

    @property
    def is_live_migration(self):
        return self.migration_type == 'live-migration'

    @property
    def is_resize(self):
        return self.migration_type == 'resize'

    @property
    def is_same_host(self):
        return self.source_compute == self.dest_compute

    def mark_finished(self, status='finished'):
        self.status = status
        self.save()


@base.NovaObjectRegistry.register
class MigrationList(base.ObjectListBase, base.NovaObject):
    VERSION = '1.5'

    fields = {
        'objects': fields.ListOfObjectsField('Migration'),
    }

    @classmethod
    def _make(cls, context, rows):
        return base.obj_make_list(context, cls(context), Migration, rows)

    @base.remotable_classmethod
    def get_unconfirmed_by_dest_compute(cls, context, confirm_window,
                                        dest_compute, use_slave=False):
        return cls._make(context, _unconfirmed(context, confirm_window,
                                               dest_compute))

    @base.remotable_classmethod
    def get_in_progress_by_host_and_node(cls, context, host, node):
        return cls._make(context, _in_progress(context, host=host,
                                               node=node))

    @base.remotable_classmethod
    def get_in_progress_and_error(cls, context, host, node):
        return cls._make(context, _in_progress(context, host=host,
                                               node=node,
                                               include_error=True))

    @base.remotable_classmethod
    def get_by_filters(cls, context, filters, sort_keys=None,
                       sort_dirs=None, limit=None, marker=None):
        return cls._make(context, _get_by_filters(
            context, filters, sort_keys=sort_keys, sort_dirs=sort_dirs,
            limit=limit, marker=marker))

    @base.remotable_classmethod
    def get_in_progress_by_instance(cls, context, instance_uuid,
                                    migration_type=None):
        return cls._make(context, _in_progress(
            context, instance_uuid=instance_uuid,
            migration_type=migration_type))
