"""Aggregate (+AggregateList): host aggregates (API DB).

A named set of compute hosts with metadata; the ``availability_zone`` key
of the metadata makes the aggregate's hosts an availability zone.
"""

from oslo_db import exception as db_exc
from oslo_utils import uuidutils
import sqlalchemy as sa
from sqlalchemy import orm

from nova_clone.db.api import api as api_db_api
from nova_clone.db.api import models as api_models
from nova_clone import exception
from nova_clone.objects import base
from nova_clone.objects import fields

_Agg = api_models.Aggregate


def _query(context):
    return context.session.query(_Agg).options(
        orm.joinedload(_Agg._hosts), orm.joinedload(_Agg._metadata))


def _one(context, **filters):
    row = _query(context).filter_by(**filters).first()
    if row is None:
        raise exception.AggregateNotFound(
            aggregate_id=filters.get('id', filters.get('uuid')))
    return row


@api_db_api.context_manager.reader
def _get_from_db(context, **filters):
    return _one(context, **filters)


@api_db_api.context_manager.reader
def _get_all_from_db(context, host=None, key=None, value=None):
    query = _query(context)
    if host is not None:
        query = query.filter(_Agg._hosts.any(
            api_models.AggregateHost.host == host))
    conds = []
    if key is not None:
        conds.append(api_models.AggregateMetadata.key == key)
    if value is not None:
        conds.append(api_models.AggregateMetadata.value == value)
    if conds:
        query = query.filter(_Agg._metadata.any(sa.and_(*conds)))
    return query.order_by(_Agg.id).all()


@api_db_api.context_manager.writer
def _create_in_db(context, values, metadata):
    row = _Agg(uuid=values['uuid'], name=values['name'])
    row._metadata = [api_models.AggregateMetadata(key=k, value=v)
                     for k, v in (metadata or {}).items()]
    context.session.add(row)
    try:
        context.session.flush()
    except db_exc.DBDuplicateEntry:
        raise exception.AggregateNameExists(aggregate_name=values['name'])
    return _one(context, id=row.id)


@api_db_api.context_manager.writer
def _update_in_db(context, aggregate_id, name=None, metadata=None):
    """Rename and/or change metadata (a None value removes the key)."""
    row = _one(context, id=aggregate_id)
    if name is not None:
        row.name = name
    for key, value in (metadata or {}).items():
        current = [m for m in row._metadata if m.key == key]
        if value is None:
            for m in current:
                row._metadata.remove(m)
        elif current:
            current[0].value = value
        else:
            row._metadata.append(api_models.AggregateMetadata(key=key,
                                                              value=value))
    try:
        context.session.flush()
    except db_exc.DBDuplicateEntry:
        raise exception.AggregateNameExists(aggregate_name=name)
    return row


@api_db_api.context_manager.writer
def _destroy_in_db(context, aggregate_id):
    context.session.delete(_one(context, id=aggregate_id))


@api_db_api.context_manager.writer
def _add_host_in_db(context, aggregate_id, host):
    row = _one(context, id=aggregate_id)
    if host in row.hosts:
        raise exception.AggregateHostExists(aggregate_id=aggregate_id,
                                            host=host)
    row._hosts.append(api_models.AggregateHost(host=host))
    context.session.flush()
    return row


@api_db_api.context_manager.writer
def _delete_host_in_db(context, aggregate_id, host):
    row = _one(context, id=aggregate_id)
    found = [h for h in row._hosts if h.host == host]
    if not found:
        raise exception.AggregateHostNotFound(aggregate_id=aggregate_id,
                                              host=host)
    row._hosts.remove(found[0])
    context.session.flush()
    return row


@base.NovaObjectRegistry.register
class Aggregate(base.NovaPersistentObject, base.NovaObject):
    VERSION = '1.3'

    fields = {
        'id': fields.IntegerField(),
        'uuid': fields.UUIDField(nullable=False),
        'name': fields.StringField(),
        'hosts': fields.ListOfStringsField(nullable=True),
        'metadata': fields.DictOfStringsField(nullable=True),
    }

    @property
    def availability_zone(self):
        return (self.metadata or {}).get('availability_zone')

    @staticmethod
    def _from_db_object(context, aggregate, row):
        aggregate.id = row.id
        aggregate.uuid = row.uuid
        aggregate.name = row.name
        aggregate.hosts = list(row.hosts)
        aggregate.metadata = dict(row.metadetails)
        aggregate.created_at = row.created_at
        aggregate.updated_at = row.updated_at
        aggregate.deleted_at = None
        aggregate.deleted = False
        aggregate._context = context
        aggregate.obj_reset_changes()
        return aggregate

    def _refresh(self, row):
        return self._from_db_object(self._context, self, row)

    @base.remotable_classmethod
    def get_by_id(cls, context, aggregate_id):
        return cls._from_db_object(context, cls(),
                                   _get_from_db(context, id=aggregate_id))

    @base.remotable_classmethod
    def get_by_uuid(cls, context, aggregate_uuid):
        return cls._from_db_object(
            context, cls(), _get_from_db(context, uuid=aggregate_uuid))

    @base.remotable
    def create(self):
        if self.obj_attr_is_set('id'):
            raise exception.ObjectActionError(action='create',
                                              reason='already created')
        if not self.obj_attr_is_set('uuid'):
            self.uuid = uuidutils.generate_uuid()
        metadata = self.metadata if self.obj_attr_is_set('metadata') else {}
        self._refresh(_create_in_db(
            self._context, {'uuid': self.uuid, 'name': self.name},
            metadata))

    @base.remotable
    def save(self):
        """Store a new name (metadata changes go by update_metadata)."""
        name = self.obj_get_changes().get('name')
        self._refresh(_update_in_db(self._context, self.id, name=name))

    @base.remotable
    def update_metadata(self, updates):
        """Set keys; a None value removes the key."""
        self._refresh(_update_in_db(self._context, self.id,
                                    metadata=updates))

    @base.remotable
    def destroy(self):
        _destroy_in_db(self._context, self.id)

    @base.remotable
    def add_host(self, host):
        self._refresh(_add_host_in_db(self._context, self.id, host))

    @base.remotable
    def delete_host(self, host):
        self._refresh(_delete_host_in_db(self._context, self.id, host))


@base.NovaObjectRegistry.register
class AggregateList(base.ObjectListBase, base.NovaObject):
    VERSION = '1.3'

    fields = {
        'objects': fields.ListOfObjectsField('Aggregate'),
    }

    @classmethod
    def _make(cls, context, rows):
        return cls(context, objects=[
            Aggregate._from_db_object(context, Aggregate(), row)
            for row in rows])

    @base.remotable_classmethod
    def get_all(cls, context):
        return cls._make(context, _get_all_from_db(context))

    @base.remotable_classmethod
    def get_by_host(cls, context, host, key=None):
        return cls._make(context, _get_all_from_db(context, host=host,
                                                   key=key))

    @base.remotable_classmethod
    def get_by_metadata_key(cls, context, key, hosts=None):
        aggregates = cls._make(context, _get_all_from_db(context, key=key))
        if hosts is not None:
            aggregates.objects = [a for a in aggregates
                                  if set(hosts) & set(a.hosts)]
        return aggregates

    @base.remotable_classmethod
    def get_by_metadata(cls, context, key=None, value=None):
        return cls._make(context, _get_all_from_db(context, key=key,
                                                   value=value))

