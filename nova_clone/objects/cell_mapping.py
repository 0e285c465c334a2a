"""CellMapping: where a cell's database and message queue are."""

from oslo_utils import uuidutils
import sqlalchemy as sa

from nova_clone.db.api import api as api_db_api
from nova_clone.db.api import models as api_models
from nova_clone import context as nova_context
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

    @base.remotable_classmethod
    def get_by_uuid(cls, context, uuid):
        db_mapping = api_db_api.get_row(
            context, api_models.CellMapping, {'uuid': uuid},
            exception.CellMappingNotFound(uuid=uuid))
        return cls._from_db_object(context, cls(), db_mapping)

    @base.remotable
    def create(self):
        updates = self.obj_get_changes()
        updates.setdefault('uuid', uuidutils.generate_uuid())
        db_mapping = api_db_api.create_row(self._context,
                                           api_models.CellMapping, updates)
        self._from_db_object(self._context, self, db_mapping)
        nova_context.forget_cell_list()

    @base.remotable
    def save(self):
        changes = self.obj_get_changes()
        db_mapping = api_db_api.update_row(
            self._context, api_models.CellMapping, {'uuid': self.uuid},
            changes, exception.CellMappingNotFound(uuid=self.uuid))
        self._from_db_object(self._context, self, db_mapping)
        self.obj_reset_changes()
        nova_context.forget_cell_list()

    @base.remotable
    def destroy(self):
        api_db_api.delete_row(self._context, api_models.CellMapping,
                              {'uuid': self.uuid},
                              exception.CellMappingNotFound(uuid=self.uuid))
        nova_context.forget_cell_list()


def changes_with_cell_id(mapping):
    """``mapping``'s changes with its cell given as the cell_id column.

    For the objects that point at a cell (host and instance mappings).
    """
    changes = mapping.obj_get_changes()
    if 'cell_mapping' in changes:
        cell = changes.pop('cell_mapping')
        changes['cell_id'] = cell.id if cell else None
    return changes


@base.NovaObjectRegistry.register
class CellMappingList(base.ObjectListBase, base.NovaObject):
    VERSION = '1.1'
    fields = {
        'objects': fields.ListOfObjectsField('CellMapping'),
    }

    @base.remotable_classmethod
    def get_all(cls, context):
        # Core: every server list and boot reads the cells.
        db_mappings = api_db_api.select_rows(context, api_models.CellMapping)
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
