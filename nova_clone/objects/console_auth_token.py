"""ConsoleAuthToken: what a remote console's URL token lets a proxy
reach (the guest's console host, port and path), kept in the cell
database as the hash of the token, until it expires."""

import hashlib
import time
from urllib import parse

from oslo_db import exception as db_exc
from oslo_utils import uuidutils

from nova_clone.db.main import models
from nova_clone.db.main import queries
from nova_clone import exception
from nova_clone.objects import base
from nova_clone.objects import fields


def _hash(token):
    return hashlib.sha256(token.encode('utf-8')).hexdigest()


@queries.writer
def _token_create(context, values):
    row = models.ConsoleAuthToken()
    row.update(values)
    try:
        row.save(context.session)
    except db_exc.DBReferenceError:
        raise exception.InstanceNotFound(instance_id=values['instance_uuid'])
    return row


@queries.writer
def _token_get_valid(context, token_hash):
    return queries.model_query(context, models.ConsoleAuthToken).filter(
        models.ConsoleAuthToken.token_hash == token_hash,
        models.ConsoleAuthToken.expires > int(time.time())).first()


@queries.writer
def _tokens_destroy_for_instance(context, instance_uuid):
    queries.model_query(context, models.ConsoleAuthToken).filter(
        models.ConsoleAuthToken.instance_uuid == instance_uuid).delete()


@base.NovaObjectRegistry.register
class ConsoleAuthToken(base.NovaTimestampObject, base.NovaObject):
    VERSION = '1.3'

    fields = {
        'id': fields.IntegerField(),
        'console_type': fields.StringField(nullable=False),
        'host': fields.StringField(nullable=False),
        'port': fields.IntegerField(nullable=False),
        'tls_port': fields.IntegerField(nullable=True),
        'internal_access_path': fields.StringField(nullable=True),
        'instance_uuid': fields.UUIDField(nullable=False),
        'access_url_base': fields.StringField(nullable=True),
        # The token itself: known only to whoever authorized it.
        'token': fields.StringField(nullable=False),
        'expires': fields.IntegerField(nullable=False),
    }

    @property
    def access_url(self):
        """The URL a user opens: the proxy's base URL with the token in
        its query (or path, for a websocket base URL)."""
        if not self.obj_attr_is_set('id') or not self.access_url_base:
            return None
        url = self.access_url_base
        if url.startswith('ws'):
            return '%s?token=%s' % (url, self.token)
        parts = parse.urlsplit(url)
        query = parse.parse_qsl(parts.query)
        query.append(('path', '?token=%s' % self.token))
        return parse.urlunsplit(parts._replace(
            query=parse.urlencode(query)))

    @staticmethod
    def _from_db_object(context, obj, row):
        for name in obj.fields:
            if name == 'token':
                continue
            setattr(obj, name, getattr(row, name))
        obj._context = context
        obj.obj_reset_changes()
        return obj

    @base.remotable
    def authorize(self, ttl):
        """Store the token for ``ttl`` seconds; returns the token."""
        if self.obj_attr_is_set('id'):
            raise exception.ObjectActionError(action='authorize',
                                              reason='must be a new object')
        token = uuidutils.generate_uuid()
        values = {k: getattr(self, k) for k in
                  ('console_type', 'host', 'port', 'tls_port',
                   'internal_access_path', 'instance_uuid',
                   'access_url_base') if self.obj_attr_is_set(k)}
        values['token_hash'] = _hash(token)
        values['expires'] = int(time.time()) + ttl
        row = _token_create(self._context, values)
        self._from_db_object(self._context, self, row)
        self.token = token
        self.obj_reset_changes()
        return token

    @base.remotable_classmethod
    def validate(cls, context, token):
        """The token's record, or InvalidToken (unknown or expired)."""
        row = _token_get_valid(context, _hash(token))
        if row is None:
            raise exception.InvalidToken(token='***')
        obj = cls._from_db_object(context, cls(), row)
        obj.token = token
        obj.obj_reset_changes()
        return obj

    @base.remotable_classmethod
    def clean_console_auths_for_instance(cls, context, instance_uuid):
        _tokens_destroy_for_instance(context, instance_uuid)
