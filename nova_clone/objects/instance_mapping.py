"""InstanceMapping: which cell an instance lives in (None until scheduled)."""

import sqlalchemy as sa
from sqlalchemy import orm

from nova_clone.db.api import api as api_db_api
from nova_clone.db.api import models as api_models
from nova_clone import exception
from nova_clone.objects import base
from nova_clone.objects import cell_mapping as cell_mapping_obj
from nova_clone.objects import fields


@base.NovaObjectRegistry.register
class InstanceMapping(base.NovaTimestampObject, base.NovaObject):
    VERSION = '1.2'

    fields = {
        'id': fields.IntegerField(read_only=True),
        'instance_uuid': fields.UUIDField(),
        'cell_mapping': fields.ObjectField('CellMapping', nullable=True),
        'project_id': fields.StringField(),
        # Nullable: rows written before user_id was recorded lack it
        # until ``db online_data_migrations`` fills it in.
        'user_id': fields.StringField(nullable=True),
        'queued_for_delete': fields.BooleanField(default=False),
    }

    @staticmethod
    def _from_db_object(context, instance_mapping, db_instance_mapping):
        for key in instance_mapping.fields:
            if key == 'cell_mapping':
                continue
            value = getattr(db_instance_mapping, key)
            if key == 'queued_for_delete' and value is None:
                value = False
            setattr(instance_mapping, key, value)
        cell = db_instance_mapping.cell_mapping
        instance_mapping.cell_mapping = (
            cell_mapping_obj.CellMapping._from_db_object(
                context, cell_mapping_obj.CellMapping(), cell)
            if cell is not None else None)
        instance_mapping.obj_reset_changes()
        instance_mapping._context = context
        return instance_mapping

    # Reads and writes go through Core statements joined with the cell
    # (db.api.api *_with_cell): every request about a server reads its
    # mapping.
    @base.remotable_classmethod
    def get_by_instance_uuid(cls, context, instance_uuid):
        db_mapping = api_db_api.get_row_with_cell(
            context, api_models.InstanceMapping,
            {'instance_uuid': instance_uuid},
            exception.InstanceMappingNotFound(uuid=instance_uuid))
        return cls._from_db_object(context, cls(), db_mapping)

    @base.remotable
    def create(self):
        changes = cell_mapping_obj.changes_with_cell_id(self)
        changes.setdefault('queued_for_delete', False)
        db_mapping = api_db_api.insert_row_with_cell(
            self._context, api_models.InstanceMapping, changes,
            duplicate=exception.InstanceMappingExists(
                uuid=changes.get('instance_uuid')))
        self._from_db_object(self._context, self, db_mapping)

    @base.remotable
    def save(self):
        changes = cell_mapping_obj.changes_with_cell_id(self)
        db_mapping = api_db_api.update_row_with_cell(
            self._context, api_models.InstanceMapping,
            {'instance_uuid': self.instance_uuid}, changes,
            exception.InstanceMappingNotFound(uuid=self.instance_uuid))
        self._from_db_object(self._context, self, db_mapping)

    @base.remotable
    def destroy(self):
        api_db_api.delete_row(
            self._context, api_models.InstanceMapping,
            {'instance_uuid': self.instance_uuid},
            exception.InstanceMappingNotFound(uuid=self.instance_uuid))


@base.NovaObjectRegistry.register
class InstanceMappingList(base.ObjectListBase, base.NovaObject):
    VERSION = '1.3'
    fields = {
        'objects': fields.ListOfObjectsField('InstanceMapping'),
    }

    @staticmethod
    def _query(context, **filters):
        return api_db_api.get_rows_with_cell(
            context, api_models.InstanceMapping, filters)

    @classmethod
    def _make(cls, context, db_mappings):
        return base.obj_make_list(context, cls(), InstanceMapping,
                                  db_mappings)

    @base.remotable_classmethod
    def get_by_project_id(cls, context, project_id):
        return cls._make(context, cls._query(context, project_id=project_id))

    @base.remotable_classmethod
    def get_by_cell_id(cls, context, cell_id):
        return cls._make(context, cls._query(context, cell_id=cell_id))

    @base.remotable_classmethod
    def get_by_instance_uuids(cls, context, uuids):
        return cls._make(context, cls._query(context,
                                             instance_uuid=list(uuids)))

    @classmethod
    def destroy_bulk(cls, context, instance_uuids):
        return api_db_api.delete_rows(context, api_models.InstanceMapping,
                                      'instance_uuid', instance_uuids)

    @staticmethod
    @api_db_api.context_manager.reader
    def _get_not_deleted_by_cell_and_project(context, cell_uuid, project_id,
                                             limit):
        query = context.session.query(api_models.InstanceMapping).join(
            api_models.CellMapping).options(
            orm.joinedload(api_models.InstanceMapping.cell_mapping)).filter(
            api_models.CellMapping.uuid == cell_uuid,
            sa.or_(api_models.InstanceMapping.queued_for_delete == sa.false(),
                   api_models.InstanceMapping.queued_for_delete.is_(None)))
        if project_id is not None:
            query = query.filter(
                api_models.InstanceMapping.project_id == project_id)
        if limit:
            query = query.limit(limit)
        return query.all()

    @classmethod
    def get_not_deleted_by_cell_and_project(cls, context, cell_uuid,
                                            project_id, limit=None):
        return cls._make(context, cls._get_not_deleted_by_cell_and_project(
            context, cell_uuid, project_id, limit))

    @staticmethod
    @api_db_api.context_manager.reader
    def _get_counts_in_db(context, project_id, user_id=None):
        live = sa.or_(
            api_models.InstanceMapping.queued_for_delete == sa.false(),
            api_models.InstanceMapping.queued_for_delete.is_(None))
        project = context.session.query(sa.func.count(
            api_models.InstanceMapping.id)).filter(
            live, api_models.InstanceMapping.project_id == project_id
        ).scalar()
        counts = {'project': {'instances': project}}
        if user_id:
            counts['user'] = {'instances': context.session.query(
                sa.func.count(api_models.InstanceMapping.id)).filter(
                live, api_models.InstanceMapping.project_id == project_id,
                api_models.InstanceMapping.user_id == user_id).scalar()}
        return counts

    @classmethod
    def get_counts(cls, context, project_id, user_id=None):
        """Instances not queued for delete, for quota counting."""
        return cls._get_counts_in_db(context, project_id, user_id=user_id)


def map_cell_instances(context, cell, max_count=None):
    """Create the missing instance mappings of ``cell``'s instances.

    Returns (mapped, left): how many were created and whether unmapped
    instances remain (only when ``max_count`` stopped the run).
    """
    import copy
    from nova_clone.db.main import api as main_db_api
    from nova_clone.db.main import models as main_models
    cctxt = copy.copy(context)
    cctxt.db_connection = main_db_api.create_context_manager(
        cell.database_connection)
    with cctxt.db_connection.reader.using(cctxt):
        instances = cctxt.session.query(
            main_models.Instance.uuid, main_models.Instance.project_id,
            main_models.Instance.user_id).filter(
            main_models.Instance.deleted == 0).order_by(
            main_models.Instance.id).all()
    mapped = {m.instance_uuid for m in InstanceMappingList._query(
        context, instance_uuid=[i.uuid for i in instances])} if (
        instances) else set()
    todo = [i for i in instances if i.uuid not in mapped]
    batch = todo if max_count is None else todo[:max_count]
    for inst in batch:
        mapping = InstanceMapping(context, instance_uuid=inst.uuid,
                                  project_id=inst.project_id or '',
                                  user_id=inst.user_id,
                                  cell_mapping=cell,
                                  queued_for_delete=False)
        try:
            mapping.create()
        except exception.InstanceMappingExists:
            continue
    return len(batch), len(todo) > len(batch)
