"""InstanceFault: why an instance went to ERROR (newest one is shown)."""

import traceback


from nova_clone.db.main import api as main_db_api
from nova_clone.db.main import models
from nova_clone.db.main import queries
from nova_clone import exception
from nova_clone.objects import base
from nova_clone.objects import fields

# The message column is 255 characters.
MESSAGE_MAX = 255


@main_db_api.pick_context_manager_reader
def _faults_for(context, instance_uuids, latest=True):
    """Faults of the instances, newest first, in one query per 1000."""
    rows = []
    for chunk in queries.chunks(instance_uuids):
        rows.extend(queries.model_query(context, models.InstanceFault).filter(
            models.InstanceFault.instance_uuid.in_(chunk)).order_by(
            models.InstanceFault.created_at.desc(),
            models.InstanceFault.id.desc()))
    if not latest:
        return rows
    newest = {}
    for row in rows:
        newest.setdefault(row.instance_uuid, row)
    return list(newest.values())


@queries.writer
def _fault_create(context, values):
    found = queries.model_query(context, models.Instance,
                                models.Instance.id,
                                read_deleted='yes').filter_by(
        uuid=values['instance_uuid']).first()
    if found is None:
        raise exception.InstanceNotFound(instance_id=values['instance_uuid'])
    row = models.InstanceFault()
    row.update(values)
    row.save(context.session)
    return row


@base.NovaObjectRegistry.register
class InstanceFault(base.NovaPersistentObject, base.NovaObject,
                    base.NovaObjectDictCompat):
    VERSION = '1.2'

    fields = {
        'id': fields.IntegerField(),
        'instance_uuid': fields.UUIDField(),
        'code': fields.IntegerField(),
        'message': fields.StringField(nullable=True),
        'details': fields.StringField(nullable=True),
        'host': fields.StringField(nullable=True),
    }

    @staticmethod
    def _from_db_object(context, fault, row):
        for name in fault.fields:
            value = getattr(row, name)
            if name == 'deleted':
                value = bool(value)
            setattr(fault, name, value)
        fault._context = context
        fault.obj_reset_changes()
        return fault

    @base.remotable_classmethod
    def get_latest_for_instance(cls, context, instance_uuid):
        rows = _faults_for(context, [instance_uuid])
        if rows:
            return cls._from_db_object(context, cls(), rows[0])
        return None

    @base.remotable
    def create(self):
        if self.obj_attr_is_set('id'):
            raise exception.ObjectActionError(action='create',
                                              reason='already created')
        values = {k: getattr(self, k) for k in
                  ('instance_uuid', 'code', 'message', 'details', 'host')
                  if self.obj_attr_is_set(k)}
        if values.get('message'):
            values['message'] = values['message'][:MESSAGE_MAX]
        row = _fault_create(self._context, values)
        self._from_db_object(self._context, self, row)

    @classmethod
    def from_exception(cls, context, instance_uuid, exc, host=None,
                       exc_tb=None):
        """A fault (not yet created) describing ``exc``, as Nova records."""
        code = getattr(exc, 'code', 500)
        if not isinstance(code, int):
            code = 500
        if isinstance(exc, exception.NovaException):
            message = exc.format_message()
        else:
            message = type(exc).__name__
        details = ''
        if code == 500 or not isinstance(exc, exception.NovaException):
            # Tracebacks are for operators: only on unexpected errors.
            if exc_tb is not None:
                details = ''.join(traceback.format_exception(
                    type(exc), exc, exc_tb))
            else:
                details = str(exc)
        return cls(context, instance_uuid=instance_uuid, code=code,
                   message=message, details=details, host=host)


@base.NovaObjectRegistry.register
class InstanceFaultList(base.ObjectListBase, base.NovaObject):
    VERSION = '1.2'

    fields = {
        'objects': fields.ListOfObjectsField('InstanceFault'),
    }

    @base.remotable_classmethod
    def get_latest_for_instances(cls, context, instance_uuids):
        rows = _faults_for(context, list(instance_uuids))
        return base.obj_make_list(context, cls(context), InstanceFault, rows)

    @base.remotable_classmethod
    def get_by_instance_uuids(cls, context, instance_uuids, latest=False):
        rows = _faults_for(context, list(instance_uuids), latest=latest)
        return base.obj_make_list(context, cls(context), InstanceFault, rows)
