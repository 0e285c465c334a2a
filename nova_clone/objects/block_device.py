"""BlockDeviceMapping: the disks of a server (image, volumes, blanks)."""

from oslo_utils import uuidutils

from nova_clone.db.main import api as main_db_api
from nova_clone.db.main import models
from nova_clone.db.main import queries
from nova_clone import exception
from nova_clone.objects import base
from nova_clone.objects import fields

_BDM_COLUMNS = (
    'id', 'uuid', 'instance_uuid', 'source_type', 'destination_type',
    'guest_format', 'device_type', 'disk_bus', 'boot_index', 'device_name',
    'delete_on_termination', 'snapshot_id', 'volume_id', 'volume_size',
    'volume_type', 'image_id', 'no_device', 'connection_info', 'tag',
    'attachment_id', 'encrypted', 'encryption_secret_uuid',
    'encryption_format', 'encryption_options', 'created_at', 'updated_at',
    'deleted_at', 'deleted')

_BOOLEAN_COLUMNS = ('delete_on_termination', 'no_device', 'encrypted')


@main_db_api.pick_context_manager_reader
def _bdms_get(context, instance_uuids=None, **filters):
    query = queries.model_query(context, models.BlockDeviceMapping)
    for key, value in filters.items():
        query = query.filter(getattr(models.BlockDeviceMapping, key) ==
                             value)
    rows = []
    if instance_uuids is None:
        return query.order_by(models.BlockDeviceMapping.id).all()
    for chunk in queries.chunks(instance_uuids):
        rows.extend(query.filter(
            models.BlockDeviceMapping.instance_uuid.in_(chunk)).order_by(
            models.BlockDeviceMapping.id))
    return rows


@queries.writer
def _bdm_update_or_create(context, values):
    """Update the row for the same volume (or device) of the instance."""
    query = queries.model_query(context, models.BlockDeviceMapping).filter_by(
        instance_uuid=values['instance_uuid'])
    if values.get('volume_id'):
        query = query.filter_by(volume_id=values['volume_id'])
    elif values.get('device_name'):
        query = query.filter_by(device_name=values['device_name'])
    else:
        query = None
    row = query.first() if query is not None else None
    if row is None:
        row = models.BlockDeviceMapping()
        values.setdefault('uuid', uuidutils.generate_uuid())
    else:
        values.pop('uuid', None)
    row.update(values)
    row.save(context.session)
    return row


@base.NovaObjectRegistry.register
class BlockDeviceMapping(base.NovaPersistentObject, base.NovaObject,
                         base.NovaObjectDictCompat):
    VERSION = '1.21'

    fields = {
        'id': fields.IntegerField(),
        'uuid': fields.UUIDField(),
        'instance_uuid': fields.UUIDField(),
        'instance': fields.ObjectField('Instance'),
        'source_type': fields.BlockDeviceSourceTypeField(nullable=True),
        'destination_type': fields.BlockDeviceDestinationTypeField(
            nullable=True),
        'guest_format': fields.StringField(nullable=True),
        'device_type': fields.BlockDeviceTypeField(nullable=True),
        'disk_bus': fields.StringField(nullable=True),
        'boot_index': fields.IntegerField(nullable=True),
        'device_name': fields.StringField(nullable=True),
        'delete_on_termination': fields.BooleanField(default=False),
        'snapshot_id': fields.StringField(nullable=True),
        'volume_id': fields.StringField(nullable=True),
        'volume_size': fields.IntegerField(nullable=True),
        'image_id': fields.StringField(nullable=True),
        'no_device': fields.BooleanField(default=False),
        'connection_info': fields.SensitiveStringField(nullable=True),
        'tag': fields.StringField(nullable=True),
        'attachment_id': fields.UUIDField(nullable=True),
        'volume_type': fields.StringField(nullable=True),
        'encrypted': fields.BooleanField(default=False),
        'encryption_secret_uuid': fields.UUIDField(nullable=True),
        'encryption_format': fields.BlockDeviceEncryptionFormatTypeField(
            nullable=True),
        'encryption_options': fields.StringField(nullable=True),
    }

    @staticmethod
    def _from_db_object(context, bdm, row, expected_attrs=None):
        for name in _BDM_COLUMNS:
            value = getattr(row, name)
            if name in _BOOLEAN_COLUMNS or name == 'deleted':
                value = bool(value)
            elif name == 'uuid' and value is None:
                continue
            setattr(bdm, name, value)
        bdm._context = context
        bdm.obj_reset_changes()
        return bdm

    def _values(self):
        values = self.obj_get_changes()
        values.pop('instance', None)
        values.pop('id', None)
        return queries.naive_datetimes(values)

    def obj_load_attr(self, attrname):
        if not self._context:
            raise exception.OrphanedObjectError(method='obj_load_attr',
                                                objtype=self.obj_name())
        if attrname == 'instance':
            from nova_clone import objects
            self.instance = objects.Instance.get_by_uuid(
                self._context, self.instance_uuid)
        elif attrname == 'uuid':
            self.uuid = uuidutils.generate_uuid()
            self.save()
            return
        elif attrname in ('encrypted', 'no_device', 'delete_on_termination'):
            setattr(self, attrname, False)
        else:
            setattr(self, attrname, None)
        self.obj_reset_changes([attrname])

    @base.remotable
    def create(self):
        if self.obj_attr_is_set('id'):
            raise exception.ObjectActionError(action='create',
                                              reason='already created')
        values = self._values()
        values.setdefault('uuid', uuidutils.generate_uuid())
        row = queries.create_row_core(
            self._context, models.BlockDeviceMapping, values,
            duplicate=exception.DuplicateRecord(target=values['uuid']))
        self._from_db_object(self._context, self, row)

    @base.remotable
    def update_or_create(self):
        values = self._values()
        if 'instance_uuid' not in values:
            values['instance_uuid'] = self.instance_uuid
        row = _bdm_update_or_create(self._context, values)
        self._from_db_object(self._context, self, row)

    @base.remotable
    def save(self):
        values = self._values()
        if not values:
            return
        row = queries.update_row_core(
            self._context, models.BlockDeviceMapping, self.id, values,
            exception.BlockDeviceMappingNotFound(id=self.id))
        self._from_db_object(self._context, self, row)

    @base.remotable
    def destroy(self):
        if not self.obj_attr_is_set('id'):
            raise exception.ObjectActionError(action='destroy',
                                              reason='already destroyed')
        queries.soft_delete_row(
            self._context, models.BlockDeviceMapping, {'id': self.id},
            exception.BlockDeviceMappingNotFound(id=self.id))
        delattr(self, base.get_attrname('id'))

    @base.remotable_classmethod
    def get_by_volume_id(cls, context, volume_id, instance_uuid=None,
                         expected_attrs=None):
        rows = _bdms_get(context, volume_id=volume_id)
        if instance_uuid is not None:
            rows = [r for r in rows if r.instance_uuid == instance_uuid]
        if not rows:
            raise exception.VolumeBDMNotFound(volume_id=volume_id)
        if len(rows) > 1:
            raise exception.VolumeBDMIsMultiAttach(volume_id=volume_id)
        return cls._from_db_object(context, cls(), rows[0])

    @base.remotable_classmethod
    def get_by_volume_and_instance(cls, context, volume_id, instance_uuid,
                                   expected_attrs=None):
        rows = _bdms_get(context, volume_id=volume_id,
                         instance_uuid=instance_uuid)
        if not rows:
            raise exception.VolumeBDMNotFound(volume_id=volume_id)
        return cls._from_db_object(context, cls(), rows[-1])

    @base.remotable_classmethod
    def get_by_volume(cls, context, volume_id, expected_attrs=None):
        rows = _bdms_get(context, volume_id=volume_id)
        if not rows:
            raise exception.VolumeBDMNotFound(volume_id=volume_id)
        return cls._from_db_object(context, cls(), rows[0])

    @base.remotable_classmethod
    def get_by_uuid(cls, context, uuid):
        rows = _bdms_get(context, uuid=uuid)
        if not rows:
            raise exception.BlockDeviceMappingNotFound(id=uuid)
        return cls._from_db_object(context, cls(), rows[0])

    @property
    def is_root(self):
        return self.obj_attr_is_set('boot_index') and self.boot_index == 0

    @property
    def is_volume(self):
        return (self.obj_attr_is_set('destination_type') and
                self.destination_type == 'volume')

    @property
    def is_image(self):
        return (self.obj_attr_is_set('source_type') and
                self.source_type == 'image')

    @property
    def is_local(self):
        return (self.obj_attr_is_set('destination_type') and
                self.destination_type == 'local')

    def get_image_mapping(self):
        return {k: getattr(self, k) for k in (
            'source_type', 'destination_type', 'guest_format', 'device_type',
            'disk_bus', 'boot_index', 'device_name', 'delete_on_termination',
            'image_id', 'volume_size', 'snapshot_id', 'volume_id',
            'no_device') if self.obj_attr_is_set(k)}


@base.NovaObjectRegistry.register
class BlockDeviceMappingList(base.ObjectListBase, base.NovaObject):
    VERSION = '1.18'

    fields = {
        'objects': fields.ListOfObjectsField('BlockDeviceMapping'),
    }

    @property
    def instance_uuids(self):
        return list(dict.fromkeys(b.instance_uuid for b in self))

    @classmethod
    def bdms_by_instance_uuid(cls, context, instance_uuids,
                              volumes_only=False):
        """{instance_uuid: BlockDeviceMappingList} for many instances;
        with volumes_only, their volume mappings alone."""
        result = {}
        for bdm in cls.get_by_instance_uuids(context, instance_uuids,
                                             volumes_only=volumes_only):
            if bdm.instance_uuid not in result:
                result[bdm.instance_uuid] = cls(context, objects=[])
            result[bdm.instance_uuid].objects.append(bdm)
        return result

    @base.remotable_classmethod
    def get_by_instance_uuids(cls, context, instance_uuids,
                              volumes_only=False):
        filters = {'destination_type': 'volume'} if volumes_only else {}
        rows = _bdms_get(context, instance_uuids=list(instance_uuids),
                         **filters)
        return base.obj_make_list(context, cls(), BlockDeviceMapping, rows)

    @base.remotable_classmethod
    def get_by_instance_uuid(cls, context, instance_uuid, use_slave=False):
        rows = _bdms_get(context, instance_uuids=[instance_uuid])
        return base.obj_make_list(context, cls(), BlockDeviceMapping, rows)

    def root_bdm(self):
        for bdm in self.objects:
            if bdm.is_root:
                return bdm
        return None
