"""InstanceInfoCache: the last known network_info of a server.

``network_info`` is the list of VIFs Neutron reported, stored as JSON; the
field holds a ``network.model.NetworkInfo``.
"""

from oslo_serialization import jsonutils
from oslo_utils import timeutils
import sqlalchemy as sa

from nova_clone.db.main import api as main_db_api
from nova_clone.db.main import models
from nova_clone.db.main import queries
from nova_clone import exception
from nova_clone.network import model as network_model
from nova_clone.objects import base
from nova_clone.objects import fields


def hydrate_network_info(value):
    """Turn a JSON string or list of VIFs into the network model."""
    if isinstance(value, network_model.NetworkInfo):
        return value
    return network_model.NetworkInfo.hydrate(value)


def network_info_json(value):
    if value is None:
        return None
    if hasattr(value, 'json'):
        return value.json()
    return jsonutils.dumps(list(value))


class NetworkInfoType(fields.FieldType):
    """network_info: JSON on the wire and on disk, a list in memory."""

    @staticmethod
    def coerce(obj, attr, value):
        if not isinstance(value, (list, str, bytes)):
            raise ValueError('network_info must be a list of VIFs')
        return hydrate_network_info(value)

    @staticmethod
    def to_primitive(obj, attr, value):
        return network_info_json(value)

    @staticmethod
    def from_primitive(obj, attr, value):
        return hydrate_network_info(value)

    def stringify(self, value):
        return 'NetworkModel(%s)' % ','.join(
            str(vif.get('id')) for vif in value if isinstance(vif, dict))


class NetworkInfoField(fields.AutoTypedField):
    AUTO_TYPE = NetworkInfoType()


@main_db_api.pick_context_manager_reader
def _get(context, instance_uuid):
    return queries.model_query(context, models.InstanceInfoCache).filter_by(
        instance_uuid=instance_uuid).first()


@main_db_api.pick_context_manager_reader
def caches_for(context, instance_uuids):
    """{instance_uuid: row} in one query per 1000 instances."""
    found = {}
    for chunk in queries.chunks(instance_uuids):
        for row in queries.model_query(
                context, models.InstanceInfoCache).filter(
                models.InstanceInfoCache.instance_uuid.in_(chunk)):
            found[row.instance_uuid] = row
    return found


@queries.writer
def _update(context, instance_uuid, network_info):
    # Core statements: the compute saves the cache on every network change.
    table = models.InstanceInfoCache.__table__
    session = context.session
    row = session.execute(sa.select(table).where(
        table.c.instance_uuid == instance_uuid)).first()
    if row is None:
        session.execute(sa.insert(table).values(
            instance_uuid=instance_uuid, network_info=network_info))
        return session.execute(sa.select(table).where(
            table.c.instance_uuid == instance_uuid)).first()
    if row.deleted or row.network_info == network_info:
        # A deleted instance's cache stays deleted; an unchanged one
        # is not written.
        return row
    changes = {'network_info': network_info,
               'updated_at': timeutils.utcnow()}
    session.execute(sa.update(table).where(table.c.id == row.id).values(
        changes))
    return queries.Row(row._mapping, **changes)


@queries.writer
def _delete(context, instance_uuid):
    queries.soft_delete(
        queries.model_query(context, models.InstanceInfoCache).filter_by(
            instance_uuid=instance_uuid), models.InstanceInfoCache)


@base.NovaObjectRegistry.register
class InstanceInfoCache(base.NovaPersistentObject, base.NovaObject):
    VERSION = '1.5'

    fields = {
        'instance_uuid': fields.UUIDField(),
        'network_info': NetworkInfoField(nullable=True),
    }

    @staticmethod
    def _from_db_object(context, cache, row):
        for name in cache.fields:
            value = getattr(row, name)
            if name == 'deleted':
                value = bool(value)
            setattr(cache, name, value)
        if cache.network_info is None:
            cache.network_info = hydrate_network_info([])
        cache._context = context
        cache.obj_reset_changes()
        return cache

    @classmethod
    def new(cls, context, instance_uuid):
        cache = cls(context)
        cache.instance_uuid = instance_uuid
        cache.network_info = hydrate_network_info([])
        cache.obj_reset_changes(['network_info'])
        return cache

    @base.remotable_classmethod
    def get_by_instance_uuid(cls, context, instance_uuid):
        row = _get(context, instance_uuid)
        if row is None:
            raise exception.InstanceInfoCacheNotFound(
                instance_uuid=instance_uuid)
        return cls._from_db_object(context, cls(context), row)

    @base.remotable
    def save(self, update_cells=True):
        if 'network_info' not in self.obj_what_changed():
            return
        row = _update(self._context, self.instance_uuid,
                      network_info_json(self.network_info))
        self._from_db_object(self._context, self, row)

    @base.remotable
    def delete(self):
        _delete(self._context, self.instance_uuid)

    @base.remotable
    def refresh(self):
        current = self.__class__.get_by_instance_uuid(self._context,
                                                      self.instance_uuid)
        current._context = None
        for name in self.fields:
            if current.obj_attr_is_set(name):
                setattr(self, name, getattr(current, name))
        self.obj_reset_changes()
