"""KeyPair (+KeyPairList): a user's SSH or x509 public keys (API DB)."""

from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import utils as sqlalchemyutils

from nova_clone.db.api import api as api_db_api
from nova_clone.db.api import models as api_models
from nova_clone import exception
from nova_clone.objects import base
from nova_clone.objects import fields

KEYPAIR_TYPE_SSH = fields.KeypairType.SSH
KEYPAIR_TYPE_X509 = fields.KeypairType.X509


@api_db_api.context_manager.reader
def _get_from_db(context, user_id, name=None, limit=None, marker=None):
    query = context.session.query(api_models.KeyPair).filter(
        api_models.KeyPair.user_id == user_id)
    if name is not None:
        db_keypair = query.filter(api_models.KeyPair.name == name).first()
        if not db_keypair:
            raise exception.KeypairNotFound(user_id=user_id, name=name)
        return db_keypair
    marker_row = None
    if marker is not None:
        marker_row = context.session.query(api_models.KeyPair).filter_by(
            name=marker, user_id=user_id).first()
        if not marker_row:
            raise exception.MarkerNotFound(marker=marker)
    query = sqlalchemyutils.paginate_query(
        query, api_models.KeyPair, limit, ['id'], marker=marker_row)
    return query.all()


@api_db_api.context_manager.reader
def _get_count_from_db(context, user_id):
    return context.session.query(api_models.KeyPair).filter(
        api_models.KeyPair.user_id == user_id).count()


@api_db_api.context_manager.writer
def _create_in_db(context, values):
    db_keypair = api_models.KeyPair()
    db_keypair.update(values)
    try:
        db_keypair.save(context.session)
    except db_exc.DBDuplicateEntry:
        raise exception.KeyPairExists(key_name=values['name'])
    return db_keypair


@api_db_api.context_manager.writer
def _destroy_in_db(context, user_id, name):
    result = context.session.query(api_models.KeyPair).filter_by(
        user_id=user_id, name=name).delete()
    if not result:
        raise exception.KeypairNotFound(user_id=user_id, name=name)


@base.NovaObjectRegistry.register
class KeyPair(base.NovaPersistentObject, base.NovaObject,
              base.NovaObjectDictCompat):
    VERSION = '1.4'

    fields = {
        'id': fields.IntegerField(),
        'name': fields.StringField(nullable=False),
        'user_id': fields.StringField(nullable=True),
        'fingerprint': fields.StringField(nullable=True),
        'public_key': fields.StringField(nullable=True),
        'type': fields.KeypairTypeField(nullable=False),
    }

    @staticmethod
    def _from_db_object(context, keypair, db_keypair):
        for key in keypair.fields:
            if key in ('deleted_at', 'deleted'):
                continue
            setattr(keypair, key, getattr(db_keypair, key))
        keypair.deleted_at = None
        keypair.deleted = False
        keypair._context = context
        keypair.obj_reset_changes()
        return keypair

    @base.remotable_classmethod
    def get_by_name(cls, context, user_id, name, localonly=False):
        db_keypair = _get_from_db(context, user_id, name=name)
        return cls._from_db_object(context, cls(), db_keypair)

    @base.remotable_classmethod
    def destroy_by_name(cls, context, user_id, name):
        _destroy_in_db(context, user_id, name)

    @base.remotable
    def create(self):
        if self.obj_attr_is_set('id'):
            raise exception.ObjectActionError(action='create',
                                              reason='already created')
        updates = self.obj_get_changes()
        for key in ('created_at', 'updated_at', 'deleted_at', 'deleted'):
            updates.pop(key, None)
        updates.setdefault('type', KEYPAIR_TYPE_SSH)
        db_keypair = _create_in_db(self._context, updates)
        self._from_db_object(self._context, self, db_keypair)

    @base.remotable
    def destroy(self):
        _destroy_in_db(self._context, self.user_id, self.name)


@base.NovaObjectRegistry.register
class KeyPairList(base.ObjectListBase, base.NovaObject):
    VERSION = '1.3'

    fields = {
        'objects': fields.ListOfObjectsField('KeyPair'),
    }

    @base.remotable_classmethod
    def get_by_user(cls, context, user_id, limit=None, marker=None):
        db_keypairs = _get_from_db(context, user_id, limit=limit,
                                   marker=marker)
        return base.obj_make_list(context, cls(context), KeyPair,
                                  db_keypairs)

    @base.remotable_classmethod
    def get_count_by_user(cls, context, user_id):
        return _get_count_from_db(context, user_id)
