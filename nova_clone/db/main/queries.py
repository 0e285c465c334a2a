"""Small query helpers shared by the cell-database objects.

``model_query`` applies the context's ``read_deleted`` to soft-deleted
tables; ``soft_delete`` marks rows deleted the way oslo.db's
SoftDeleteMixin expects (``deleted`` = id, ``deleted_at`` = now).
"""

import functools

from oslo_db import exception as db_exc
from oslo_utils import timeutils
import sqlalchemy as sa

from nova_clone.db.main import api as main_db_api
from nova_clone import exception


def model_query(context, model, *columns, read_deleted=None,
                project_only=False):
    """A query on ``model`` in the session of ``context``'s transaction."""
    query = context.session.query(*(columns or (model,)))
    if hasattr(model, 'deleted'):
        query = query.filter(*read_deleted_clauses(
            context, model.__table__, read_deleted))
    if project_only and getattr(context, 'project_id', None) and not (
            getattr(context, 'is_admin', False)):
        query = query.filter(model.project_id == context.project_id)
    return query


def read_deleted_clauses(context, table, read_deleted=None):
    """model_query's filter on soft-deleted rows, as Core clauses."""
    if read_deleted is None:
        read_deleted = getattr(context, 'read_deleted', 'no') or 'no'
    if read_deleted == 'no':
        return [table.c.deleted == 0]
    if read_deleted == 'only':
        return [table.c.deleted != 0]
    if read_deleted != 'yes':
        raise exception.InvalidInput(
            reason='read_deleted must be no, yes or only, not %r'
            % read_deleted)
    return []


def soft_delete(query, model):
    """Soft-delete the rows ``query`` selects; returns how many."""
    return query.update({'deleted': model.id,
                         'deleted_at': timeutils.utcnow(),
                         'updated_at': model.updated_at},
                        synchronize_session=False)


def soft_delete_where(session, model, *where):
    """soft_delete in one Core UPDATE of the live rows ``where`` selects
    (no ORM query to build): returns how many."""
    table = model.__table__
    return session.execute(sa.update(table).where(
        table.c.deleted == 0, *where).values(
        deleted=table.c.id, deleted_at=timeutils.utcnow(),
        updated_at=table.c.updated_at)).rowcount


class Row(dict):
    """A row read with Core, its columns also readable as attributes
    (the way code written for ORM rows reads them)."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


def chunks(items, size=1000):
    """Split a long IN list so no statement grows without bound."""
    items = list(items)
    for start in range(0, len(items), size):
        yield items[start:start + size]


def naive_datetimes(values, *keys):
    """Make the datetimes in ``values`` naive UTC, as the columns store."""
    import datetime
    for key in keys or list(values):
        value = values.get(key)
        if isinstance(value, str) and key.endswith(('_at', '_time', '_up')):
            value = timeutils.parse_isotime(value)
        if isinstance(value, datetime.datetime) and value.tzinfo:
            values[key] = timeutils.normalize_time(value)
        elif isinstance(value, datetime.datetime):
            values[key] = value
    return values


def _take_sqlite_write_lock(context):
    # SQLite under WAL refuses (at once, "database is locked") to turn a
    # transaction that has read into a writing one if another writer
    # committed meanwhile.  Taking the write lock before the first read
    # makes such transactions queue on the busy timeout instead.
    session = context.session
    if session.get_bind().dialect.name == 'sqlite':
        session.execute(sa.text('UPDATE instances SET id = id WHERE 0 = 1'))


def writer(f):
    """pick_context_manager_writer, safe for read-then-write on SQLite."""
    @functools.wraps(f)
    def locked(context, *args, **kwargs):
        _take_sqlite_write_lock(context)
        return f(context, *args, **kwargs)
    return main_db_api.pick_context_manager_writer(locked)


# -- one-row helpers ----------------------------------------------------------
# The cell objects differ only in model, filters and the error a miss
# raises; errors come in built (``not_found``, ``duplicate``) so that one
# helper serves every object.

def _found(row, not_found):
    if row is None and not_found is not None:
        raise not_found
    return row


@main_db_api.pick_context_manager_reader
def get_row(context, model, filters, order_by=None, not_found=None):
    """The first ``model`` row whose columns equal ``filters``.

    None when there is none, unless ``not_found`` is given to raise.
    """
    query = model_query(context, model)
    for key, value in filters.items():
        query = query.filter(getattr(model, key) == value)
    if order_by is not None:
        query = query.order_by(order_by)
    return _found(query.first(), not_found)


def save_new(session, model, values, duplicate=None):
    """Insert a ``model`` row made of ``values`` through ``session``.

    A duplicate key raises ``duplicate`` when given, else oslo.db's error.
    Session-level, so the API database's helpers use it too.
    """
    row = model()
    row.update(values)
    try:
        row.save(session)
    except db_exc.DBDuplicateEntry:
        if duplicate is None:
            raise
        raise duplicate
    return row


@writer
def create_row(context, model, values, duplicate=None):
    """save_new() in a write transaction of ``context``'s cell."""
    return save_new(context.session, model, values, duplicate)


@writer
def update_row(context, model, row_id, values, not_found, prepare=None):
    """Write ``values`` into the ``model`` row of id ``row_id``.

    ``prepare(row, values)`` runs first, inside the same transaction.
    """
    row = _found(model_query(context, model).filter_by(id=row_id).first(),
                 not_found)
    if prepare is not None:
        prepare(row, values)
    row.update(values)
    row.save(context.session)
    return row


@writer
def soft_delete_row(context, model, filters, not_found):
    """Soft-delete the ``model`` rows matching ``filters``; none raises."""
    if not soft_delete(model_query(context, model).filter_by(**filters),
                       model):
        raise not_found
