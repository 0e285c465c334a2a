"""CellMapping: where a cell's database and message queue are."""

from oslo_utils import uuidutils
import sqlalchemy as sa

from nova_clone.db.api import api as api_db_api
from nova_clone.db.api import models as api_models
from nova_clone import exception
from nova_clone.objects import base
from nova_clone.objects import fields


@base.NovaObjectRegistry.register
class CellMapping(base.NovaTimestampObject, base.NovaObject):
    VERSION = '1.1'

    CELL0_UUID = '00000000-0000-0000-0000-000000000000'

    fields = {
        'id': fields.IntegerField(read_only=True),
        'uuid': fields.UUIDField(),
        'name': fields.StringField(nullable=True),
        'transport_url': fields.StringField(),
        'database_connection': fields.StringField(),
        'disabled': fields.BooleanField(default=False),
    }

    @property
    def identity(self):
        if 'name' in self and self.name:
            return '%s(%s)' % (self.uuid, self.name)
        return self.uuid

    def is_cell0(self):
        return self.obj_attr_is_set('uuid') and self.uuid == self.CELL0_UUID

    @staticmethod
    def _from_db_object(context, cell_mapping, db_cell_mapping):
        for key in cell_mapping.fields:
            value = getattr(db_cell_mapping, key)
            if key == 'disabled' and value is None:
                value = False
            setattr(cell_mapping, key, value)
        cell_mapping.obj_reset_changes()
        cell_mapping._context = context
        return cell_mapping

    @staticmethod
    @api_db_api.context_manager.reader
    def _get_by_uuid_from_db(context, uuid):
        db_mapping = context.session.query(api_models.CellMapping).filter_by(
            uuid=uuid).first()
        if not db_mapping:
            raise exception.CellMappingNotFound(uuid=uuid)
        return db_mapping

    @base.remotable_classmethod
    def get_by_uuid(cls, context, uuid):
        db_mapping = cls._get_by_uuid_from_db(context, uuid)
        return cls._from_db_object(context, cls(), db_mapping)

    @staticmethod
    @api_db_api.context_manager.writer
    def _create_in_db(context, updates):
        db_mapping = api_models.CellMapping()
        db_mapping.update(updates)
        db_mapping.save(context.session)
        return db_mapping

    @base.remotable
    def create(self):
        updates = self.obj_get_changes()
        updates.setdefault('uuid', uuidutils.generate_uuid())
        db_mapping = self._create_in_db(self._context, updates)
        self._from_db_object(self._context, self, db_mapping)

    @staticmethod
    @api_db_api.context_manager.writer
    def _save_in_db(context, uuid, updates):
        db_mapping = context.session.query(api_models.CellMapping).filter_by(
            uuid=uuid).first()
        if not db_mapping:
            raise exception.CellMappingNotFound(uuid=uuid)
        db_mapping.update(updates)
        context.session.add(db_mapping)
        return db_mapping

    @base.remotable
    def save(self):
        changes = self.obj_get_changes()
        db_mapping = self._save_in_db(self._context, self.uuid, changes)
        self._from_db_object(self._context, self, db_mapping)
        self.obj_reset_changes()

    @staticmethod
    @api_db_api.context_manager.writer
    def _destroy_in_db(context, uuid):
        result = context.session.query(api_models.CellMapping).filter_by(
            uuid=uuid).delete()
        if not result:
            raise exception.CellMappingNotFound(uuid=uuid)

    @base.remotable
    def destroy(self):
        self._destroy_in_db(self._context, self.uuid)


@base.NovaObjectRegistry.register
class CellMappingList(base.ObjectListBase, base.NovaObject):
    VERSION = '1.1'
    fields = {
        'objects': fields.ListOfObjectsField('CellMapping'),
    }

    @staticmethod
    @api_db_api.context_manager.reader
    def _get_all_from_db(context):
        return context.session.query(api_models.CellMapping).order_by(
            sa.asc(api_models.CellMapping.id)).all()

    @base.remotable_classmethod
    def get_all(cls, context):
        db_mappings = cls._get_all_from_db(context)
        return base.obj_make_list(context, cls(), CellMapping, db_mappings)

    @staticmethod
    @api_db_api.context_manager.reader
    def _get_by_disabled_from_db(context, disabled):
        query = context.session.query(api_models.CellMapping)
        if disabled:
            query = query.filter_by(disabled=True)
        else:
            query = query.filter(sa.or_(
                api_models.CellMapping.disabled == sa.false(),
                api_models.CellMapping.disabled.is_(None)))
        return query.order_by(sa.asc(api_models.CellMapping.id)).all()

    @base.remotable_classmethod
    def get_by_disabled(cls, context, disabled):
        db_mappings = cls._get_by_disabled_from_db(context, disabled)
        return base.obj_make_list(context, cls(), CellMapping, db_mappings)

    @staticmethod
    @api_db_api.context_manager.reader
    def _get_by_project_id_from_db(context, project_id):
        cell_ids = sa.select(api_models.InstanceMapping.cell_id).where(
            api_models.InstanceMapping.project_id == project_id).distinct()
        return context.session.query(api_models.CellMapping).filter(
            api_models.CellMapping.id.in_(cell_ids)).order_by(
            sa.asc(api_models.CellMapping.id)).all()

    @classmethod
    def get_by_project_id(cls, context, project_id):
        """The cells that hold (or held) instances of ``project_id``;
        ``None`` cells (instances not yet scheduled) are left out."""
        db_mappings = cls._get_by_project_id_from_db(context, project_id)
        return base.obj_make_list(
            context, cls(), CellMapping, db_mappings)
