"""Instance actions and their events: the server's action log.

An action (``create``, ``delete``, ``resize``...) is recorded once per
request; services add events (``compute_terminate_instance``...) to it with
a result, a traceback and the host that ran them (around a block or a
method: nova_clone.compute.utils.EventReporter and wrap_instance_event).
"""

import functools
import traceback

from oslo_log import log as logging
from oslo_utils import timeutils
import sqlalchemy as sa

from nova_clone.db.main import api as main_db_api
from nova_clone.db.main import models
from nova_clone.db.main import queries
from nova_clone import exception
from nova_clone.objects import base
from nova_clone.objects import fields

LOG = logging.getLogger(__name__)

# The message column of an action is short.
MESSAGE_MAX = 255


# -- queries ----------------------------------------------------------------

def _action_by_request_id(context, instance_uuid, request_id):
    return queries.model_query(context, models.InstanceAction).filter_by(
        instance_uuid=instance_uuid, request_id=request_id).order_by(
        models.InstanceAction.created_at.desc(),
        models.InstanceAction.id.desc()).first()


def _action_for_event(context, values, with_event=False):
    """The action an event belongs to (id, message and, ``with_event``,
    the id of its newest event of that name or None), and whether to
    touch its updated_at.

    A restarted compute finishes work under a new request id; with no
    project (a service context) the newest action of the instance is used.
    Core statements, the event found in the same one: events are
    recorded around most compute work.
    """
    actions = models.InstanceAction.__table__
    columns = [actions.c.id, actions.c.message]
    source = actions
    order = [actions.c.created_at.desc(), actions.c.id.desc()]
    if with_event:
        events = models.InstanceActionEvent.__table__
        source = actions.outerjoin(events, sa.and_(
            events.c.action_id == actions.c.id,
            events.c.event == values['event'],
            *queries.read_deleted_clauses(context, events)))
        columns.append(events.c.id.label('event_id'))
        # The newest action first, then its newest such event.
        order += [events.c.created_at.desc(), events.c.id.desc()]
    query = sa.select(*columns).select_from(source).where(
        actions.c.instance_uuid == values['instance_uuid'],
        *queries.read_deleted_clauses(context, actions)).order_by(
        *order).limit(1)
    action = queries.connection(context).execute(query.where(
        actions.c.request_id == values['request_id'])).first()
    if action is not None:
        return action, True
    if not getattr(context, 'project_id', None):
        action = queries.connection(context).execute(query).first()
        if action is not None:
            return action, False
    raise exception.InstanceActionNotFound(
        request_id=values['request_id'],
        instance_uuid=values['instance_uuid'])


def _event_row(context, event_id):
    events = models.InstanceActionEvent.__table__
    return queries.connection(context).execute(sa.select(events).where(
        events.c.id == event_id)).first()


@queries.connection_writer
def _action_start(context, values):
    return queries.insert_row(queries.connection(context),
                              models.InstanceAction,
                              queries.naive_datetimes(values))


@queries.writer
def _action_finish(context, values):
    queries.naive_datetimes(values)
    action = _action_by_request_id(context, values['instance_uuid'],
                                   values['request_id'])
    if action is None:
        raise exception.InstanceActionNotFound(
            request_id=values['request_id'],
            instance_uuid=values['instance_uuid'])
    action.update(values)
    action.save(context.session)
    return action


@main_db_api.pick_context_manager_reader
def _actions_get(context, instance_uuid, limit=None, marker=None,
                 filters=None):
    query = queries.model_query(context, models.InstanceAction).filter_by(
        instance_uuid=instance_uuid)
    filters = filters or {}
    if filters.get('changes-since'):
        query = query.filter(models.InstanceAction.updated_at >=
                             timeutils.normalize_time(
                                 filters['changes-since']))
    if filters.get('changes-before'):
        query = query.filter(models.InstanceAction.updated_at <=
                             timeutils.normalize_time(
                                 filters['changes-before']))
    order = (models.InstanceAction.created_at.desc(),
             models.InstanceAction.id.desc())
    if marker is not None:
        marker_row = _action_by_request_id(context, instance_uuid, marker)
        if marker_row is None:
            raise exception.MarkerNotFound(marker=marker)
        # Newest first: continue with the rows older than the marker.
        query = query.filter(
            (models.InstanceAction.created_at < marker_row.created_at) |
            ((models.InstanceAction.created_at == marker_row.created_at) &
             (models.InstanceAction.id < marker_row.id)))
    query = query.order_by(*order)
    if limit is not None:
        query = query.limit(limit)
    return query.all()


@main_db_api.pick_context_manager_reader
def _action_get_by_request_id(context, instance_uuid, request_id):
    return _action_by_request_id(context, instance_uuid, request_id)


def _event_columns(values):
    return {k: v for k, v in values.items()
            if k not in ('instance_uuid', 'request_id')}


# On MySQL an event is recorded in two statements instead of three: one
# UPDATE ... ORDER BY ... LIMIT 1 both touches the request's newest action
# and, through LAST_INSERT_ID(id), tells its id, then the event is written.
# Starting with the action's row lock also makes concurrent events of one
# action queue on it (with the INSERT first, its foreign key check takes a
# shared lock on the action row, which the UPDATE then has to upgrade).

_NEWEST_FIRST = 'ORDER BY created_at DESC, id DESC LIMIT 1'


_READ_DELETED_SQL = {'no': ' AND deleted = 0', 'only': ' AND deleted != 0',
                     'yes': ''}


def _deleted_sql(context):
    """The context's read_deleted_clauses() as SQL text."""
    read_deleted = getattr(context, 'read_deleted', 'no') or 'no'
    if read_deleted not in _READ_DELETED_SQL:
        queries.read_deleted_clauses(context,
                                     models.InstanceAction.__table__)
    return _READ_DELETED_SQL[read_deleted]


@functools.lru_cache(maxsize=None)
def _touch_action_sql(deleted, error):
    message = ", message = 'Error'" if error else ''
    return sa.text(
        'UPDATE instance_actions SET updated_at = :updated_at%s, '
        'id = LAST_INSERT_ID(id) WHERE instance_uuid = :instance_uuid '
        'AND request_id = :request_id%s %s' % (message, deleted,
                                              _NEWEST_FIRST))


@functools.lru_cache(maxsize=None)
def _finish_event_sql(deleted, columns):
    sets = ', '.join('%s = :%s' % (column, column) for column in columns)
    return sa.text(
        'UPDATE instance_actions_events SET %s, id = LAST_INSERT_ID(id) '
        'WHERE action_id = :action_id AND event = :event%s %s' % (
            sets, deleted, _NEWEST_FIRST))


def _touch_action(context, values, time, error=False):
    """MySQL: the id of the request's newest action, its updated_at set
    to ``time`` (and its message to Error); None when there is none."""
    result = queries.connection(context).execute(
        _touch_action_sql(_deleted_sql(context), error),
        {'updated_at': time, 'instance_uuid': values['instance_uuid'],
         'request_id': values['request_id']})
    return result.lastrowid if result.rowcount else None


def _is_mysql(context):
    return queries.connection(context).dialect.name == 'mysql'


@queries.connection_writer
def _event_start(context, values, want_row=True):
    queries.naive_datetimes(values)
    action_id = None
    if _is_mysql(context):
        action_id = _touch_action(context, values, values['start_time'])
    if action_id is None:
        action, touch = _action_for_event(context, values)
        action_id = action.id
        if touch:
            actions = models.InstanceAction.__table__
            queries.connection(context).execute(sa.update(actions).where(
                actions.c.id == action.id).values(
                updated_at=values['start_time']))
    row = _event_columns(values)
    row['action_id'] = action_id
    event = queries.insert_row(queries.connection(context),
                               models.InstanceActionEvent, row)
    if want_row:
        return _event_row(context, event['id'])


def _finish_event_mysql(context, values, error):
    """_event_finish's writes in two statements; None when the request
    has no action (the caller then looks further)."""
    action_id = _touch_action(context, values, values['finish_time'],
                              error=error)
    if action_id is None:
        return None
    columns = _event_columns(values)
    # A Core UPDATE sets updated_at by itself (the column's onupdate).
    columns.setdefault('updated_at', timeutils.utcnow())
    params = dict(columns, action_id=action_id, event=values['event'])
    result = queries.connection(context).execute(_finish_event_sql(
        _deleted_sql(context), tuple(sorted(columns))), params)
    if not result.rowcount:
        raise exception.InstanceActionEventNotFound(
            action_id=action_id, event=values['event'])
    return result.lastrowid


@queries.connection_writer
def _event_finish(context, values, want_row=True):
    queries.naive_datetimes(values)
    error = (values.get('result') or '').lower() == 'error'
    event_id = None
    if _is_mysql(context):
        event_id = _finish_event_mysql(context, values, error)
    if event_id is None:
        event_id = _finish_event(context, values, error)
    if want_row:
        return _event_row(context, event_id)


def _finish_event(context, values, error):
    action, touch = _action_for_event(context, values, with_event=True)
    events = models.InstanceActionEvent.__table__
    event_id = action.event_id
    if event_id is None:
        raise exception.InstanceActionEventNotFound(
            action_id=action.id, event=values['event'])
    conn = queries.connection(context)
    conn.execute(sa.update(events).where(
        events.c.id == event_id).values(_event_columns(values)))
    changes = {}
    if error and action.message != 'Error':
        changes['message'] = 'Error'
    if touch:
        changes['updated_at'] = values['finish_time']
    if changes:
        actions = models.InstanceAction.__table__
        conn.execute(sa.update(actions).where(
            actions.c.id == action.id).values(changes))
    return event_id


@main_db_api.pick_context_manager_reader
def _events_get(context, action_id):
    return queries.model_query(context, models.InstanceActionEvent).filter_by(
        action_id=action_id).order_by(
        models.InstanceActionEvent.created_at.desc(),
        models.InstanceActionEvent.id.desc()).all()


@main_db_api.pick_context_manager_reader
def _event_get(context, action_id, event_id):
    return queries.model_query(context, models.InstanceActionEvent).filter_by(
        action_id=action_id, id=event_id).first()


def _from_db(obj, context, row):
    for name in obj.fields:
        value = getattr(row, name)
        if name == 'deleted':
            value = bool(value)
        setattr(obj, name, value)
    obj._context = context
    obj.obj_reset_changes()
    return obj


def _failure_text(exc_val, exc_tb):
    """(details, traceback text) of a failure, as the API shows them."""
    details = None
    if exc_val is not None:
        if isinstance(exc_val, exception.NovaException):
            details = exc_val.format_message()
        elif isinstance(exc_val, BaseException):
            details = type(exc_val).__name__
        else:
            details = str(exc_val)
    if exc_tb is not None and not isinstance(exc_tb, str):
        exc_tb = ''.join(traceback.format_tb(exc_tb))
    return details, exc_tb


# -- objects ----------------------------------------------------------------

@base.NovaObjectRegistry.register
class InstanceAction(base.NovaPersistentObject, base.NovaObject,
                     base.NovaObjectDictCompat):
    VERSION = '1.2'

    fields = {
        'id': fields.IntegerField(),
        'action': fields.StringField(nullable=True),
        'instance_uuid': fields.UUIDField(nullable=True),
        'request_id': fields.StringField(nullable=True),
        'user_id': fields.StringField(nullable=True),
        'project_id': fields.StringField(nullable=True),
        'start_time': fields.DateTimeField(nullable=True),
        'finish_time': fields.DateTimeField(nullable=True),
        'message': fields.StringField(nullable=True),
    }

    @staticmethod
    def _from_db_object(context, obj, row):
        return _from_db(obj, context, row)

    @staticmethod
    def pack_action_start(context, instance_uuid, action_name):
        return {'request_id': context.request_id,
                'user_id': context.user_id,
                'project_id': context.project_id,
                'instance_uuid': instance_uuid,
                'action': action_name,
                'start_time': context.timestamp,
                'updated_at': context.timestamp}

    @staticmethod
    def pack_action_finish(context, instance_uuid):
        now = timeutils.utcnow()
        return {'request_id': context.request_id,
                'instance_uuid': instance_uuid,
                'finish_time': now,
                'updated_at': now}

    @base.remotable_classmethod
    def get_by_request_id(cls, context, instance_uuid, request_id):
        row = _action_get_by_request_id(context, instance_uuid, request_id)
        if row is None:
            return None
        return _from_db(cls(), context, row)

    @base.remotable_classmethod
    def action_start(cls, context, instance_uuid, action_name,
                     want_result=True):
        row = _action_start(context, cls.pack_action_start(
            context, instance_uuid, action_name))
        if want_result:
            return _from_db(cls(), context, row)

    @base.remotable_classmethod
    def action_finish(cls, context, instance_uuid, want_result=True):
        row = _action_finish(context, cls.pack_action_finish(
            context, instance_uuid))
        if want_result:
            return _from_db(cls(), context, row)

    @base.remotable
    def finish(self):
        row = _action_finish(self._context, self.pack_action_finish(
            self._context, self.instance_uuid))
        _from_db(self, self._context, row)


@base.NovaObjectRegistry.register
class InstanceActionList(base.ObjectListBase, base.NovaObject):
    VERSION = '1.1'

    fields = {
        'objects': fields.ListOfObjectsField('InstanceAction'),
    }

    @base.remotable_classmethod
    def get_by_instance_uuid(cls, context, instance_uuid, limit=None,
                             marker=None, filters=None):
        rows = _actions_get(context, instance_uuid, limit=limit,
                            marker=marker, filters=filters)
        return base.obj_make_list(context, cls(), InstanceAction, rows)


@base.NovaObjectRegistry.register
class InstanceActionEvent(base.NovaPersistentObject, base.NovaObject,
                          base.NovaObjectDictCompat):
    VERSION = '1.4'

    fields = {
        'id': fields.IntegerField(),
        'event': fields.StringField(nullable=True),
        'action_id': fields.IntegerField(nullable=True),
        'start_time': fields.DateTimeField(nullable=True),
        'finish_time': fields.DateTimeField(nullable=True),
        'result': fields.StringField(nullable=True),
        'traceback': fields.StringField(nullable=True),
        'host': fields.StringField(nullable=True),
        'details': fields.StringField(nullable=True),
    }

    @staticmethod
    def _from_db_object(context, obj, row):
        return _from_db(obj, context, row)

    @staticmethod
    def pack_action_event_start(context, instance_uuid, event_name,
                                host=None):
        return {'event': event_name,
                'instance_uuid': instance_uuid,
                'request_id': context.request_id,
                'start_time': timeutils.utcnow(),
                'host': host}

    @staticmethod
    def pack_action_event_finish(context, instance_uuid, event_name,
                                 exc_val=None, exc_tb=None):
        values = {'event': event_name,
                  'instance_uuid': instance_uuid,
                  'request_id': context.request_id,
                  'finish_time': timeutils.utcnow()}
        if exc_tb is None and exc_val is None:
            values['result'] = 'Success'
        else:
            values['result'] = 'Error'
            values['details'], values['traceback'] = _failure_text(
                exc_val, exc_tb)
        return values

    @base.remotable_classmethod
    def get_by_id(cls, context, action_id, event_id):
        row = _event_get(context, action_id, event_id)
        if row is None:
            raise exception.InstanceActionEventNotFound(action_id=action_id,
                                                        event=event_id)
        return _from_db(cls(), context, row)

    @base.remotable_classmethod
    def event_start(cls, context, instance_uuid, event_name,
                    want_result=True, host=None):
        row = _event_start(context, cls.pack_action_event_start(
            context, instance_uuid, event_name, host=host),
            want_row=want_result)
        if want_result:
            return _from_db(cls(), context, row)

    @classmethod
    def event_finish_with_failure(cls, context, instance_uuid, event_name,
                                  exc_val=None, exc_tb=None,
                                  want_result=None):
        # Exceptions and tracebacks do not travel over RPC: send text.
        details, tb_text = _failure_text(exc_val, exc_tb)
        return cls._event_finish(context, instance_uuid, event_name,
                                 details, tb_text, want_result)

    @classmethod
    def event_finish(cls, context, instance_uuid, event_name,
                     want_result=True):
        return cls._event_finish(context, instance_uuid, event_name,
                                 None, None, want_result)

    @base.remotable_classmethod
    def _event_finish(cls, context, instance_uuid, event_name, details,
                      tb_text, want_result):
        values = cls.pack_action_event_finish(context, instance_uuid,
                                              event_name)
        if details is not None or tb_text is not None:
            values.update(result='Error', details=details,
                          traceback=tb_text)
        row = _event_finish(context, values, want_row=want_result)
        if want_result:
            return _from_db(cls(), context, row)


@base.NovaObjectRegistry.register
class InstanceActionEventList(base.ObjectListBase, base.NovaObject):
    VERSION = '1.1'

    fields = {
        'objects': fields.ListOfObjectsField('InstanceActionEvent'),
    }

    @base.remotable_classmethod
    def get_by_action(cls, context, action_id):
        rows = _events_get(context, action_id)
        return base.obj_make_list(context, cls(context), InstanceActionEvent,
                                  rows)
