"""Small query helpers shared by the cell-database objects.

``model_query`` applies the context's ``read_deleted`` to soft-deleted
tables; ``soft_delete`` marks rows deleted the way oslo.db's
SoftDeleteMixin expects (``deleted`` = id, ``deleted_at`` = now).
"""

import datetime
import functools
import json

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


class Row(dict):
    """A row read with Core, its columns also readable as attributes
    (the way code written for ORM rows reads them)."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


def rows_of(result):
    """A result's rows as Rows; its keys read once (a row's own keys()
    builds a view each time)."""
    keys = tuple(result.keys())
    return [Row(zip(keys, row)) for row in result]


def _decode_datetime(value):
    # pymysql's conversion: a text it cannot read stays text.
    try:
        return datetime.datetime.fromisoformat(value)
    except ValueError:
        return value


def _decoder(column_type):
    """How a value of ``column_type`` read from JSON becomes what a plain
    SELECT returns; None: as JSON has it; False: not readable from JSON."""
    if isinstance(column_type, sa.TypeDecorator):
        column_type = column_type.impl_instance
    if isinstance(column_type, sa.DateTime):
        return _decode_datetime
    if isinstance(column_type, sa.Boolean):
        return bool
    if isinstance(column_type, sa.Float):
        return float
    if isinstance(column_type, (sa.Integer, sa.String)):
        return None
    return False


class WideRow:
    """SELECT of every column of the one row ``where`` finds.

    On MySQL the row travels as a single JSON_OBJECT column: PyMySQL
    (DevStack's driver) decodes, in Python, the description of each
    column of each result, which for a 50-column row costs more CPU than
    the rest of the statement (mysqlclient, the stack's driver, reads
    both forms at the same cost).  The values are decoded back to what
    the plain SELECT gives (datetimes, booleans, floats).  Other
    databases run the plain SELECT.
    """

    def __init__(self, table, *where):
        self.plain = sa.select(table).where(*where)
        self.json = None
        decoders = [(column.key, _decoder(column.type))
                    for column in table.c]
        if all(decoder is not False for _, decoder in decoders):
            pairs = []
            for column in table.c:
                pairs += [sa.literal_column("'%s'" % column.key), column]
            self.json = sa.select(sa.func.json_object(*pairs)).where(*where)
        self.decoders = [(key, decoder) for key, decoder in decoders
                         if decoder is not None]

    def first(self, conn, params):
        """The row as a Row, or None (``conn``: a Connection)."""
        if self.json is None or conn.dialect.name != 'mysql':
            row = conn.execute(self.plain, params).first()
            return None if row is None else Row(row._mapping)
        text = conn.execute(self.json, params).scalar()
        if text is None:
            return None
        row = Row(json.loads(text))
        for key, decode in self.decoders:
            value = row[key]
            if value is not None:
                row[key] = decode(value)
        return row


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


def connection(context):
    """The Connection of the transaction ``context`` is in, begun by a
    connection writer/reader or by a session one (then the Session's)."""
    transaction = context.transaction_ctx
    if transaction.connection is not None:
        return transaction.connection
    return transaction.session.connection()


def _take_sqlite_write_lock(context):
    # SQLite under WAL refuses (at once, "database is locked") to turn a
    # transaction that has read into a writing one if another writer
    # committed meanwhile.  Taking the write lock before the first read
    # makes such transactions queue on the busy timeout instead.
    conn = connection(context)
    if conn.dialect.name == 'sqlite':
        conn.execute(sa.text('UPDATE instances SET id = id WHERE 0 = 1'))


def writer(f):
    """pick_context_manager_writer, safe for read-then-write on SQLite."""
    @functools.wraps(f)
    def locked(context, *args, **kwargs):
        _take_sqlite_write_lock(context)
        return f(context, *args, **kwargs)
    return main_db_api.pick_context_manager_writer(locked)


def connection_writer(f):
    """writer() for a function of Core statements only, which reaches
    the database through connection(context)."""
    @functools.wraps(f)
    def locked(context, *args, **kwargs):
        _take_sqlite_write_lock(context)
        return f(context, *args, **kwargs)
    return main_db_api.pick_context_manager_connection_writer(locked)


connection_reader = main_db_api.pick_context_manager_connection_reader


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


# -- Core versions of the one-row writes --------------------------------------
# The same rows, stored values and returned values as the ORM helpers
# above, without the ORM's unit of work (a flush costs several times the
# statement it runs).

@functools.lru_cache(maxsize=None)
def _insert_statement(table):
    # Compiled once per set of columns given (SQLAlchemy's statement cache).
    return sa.insert(table)


def insert_row(conn, model, values):
    """INSERT a ``model`` row made of ``values``; returns it as a Row.

    As an ORM flush would: keys that are not columns are ignored, None
    values are left out (so a column's default applies), and the row
    holds every column: the value given, else its default, else None,
    and the new id.
    """
    columns = model.__table__.c
    values = {key: value for key, value in values.items()
              if value is not None and key in columns}
    result = conn.execute(_insert_statement(model.__table__), values)
    row = Row.fromkeys(columns.keys())
    row.update(result.last_inserted_params())
    for column, value in zip(model.__table__.primary_key.columns,
                             result.inserted_primary_key):
        row[column.key] = value
    return row


def insert_rows(conn, model, rows):
    """insert_row() for many rows of the same columns, one statement."""
    if rows:
        conn.execute(_insert_statement(model.__table__), rows)


@functools.lru_cache(maxsize=None)
def _row_by_id(table, read_deleted):
    where = [table.c.id == sa.bindparam('id')]
    if 'deleted' in table.c:
        where += read_deleted_clauses(None, table, read_deleted)
    return WideRow(table, *where)


@functools.lru_cache(maxsize=256)
def _update_by_id(table, columns):
    return sa.update(table).where(table.c.id == sa.bindparam('w_id')).values(
        {column: sa.bindparam('v_' + column) for column in columns})


@connection_writer
def create_row_core(context, model, values, duplicate=None):
    """create_row() with one Core INSERT; returns a Row."""
    try:
        return insert_row(connection(context), model, values)
    except db_exc.DBDuplicateEntry:
        if duplicate is None:
            raise
        raise duplicate


@connection_writer
def update_row_core(context, model, row_id, values, not_found):
    """update_row() with Core statements; returns a Row.

    The row is read as update_row's query reads it; like the ORM's flush,
    only the columns whose value differs are written, with updated_at
    (unless given), and nothing at all when none differs; the row returned
    holds the values given over the ones read.
    """
    table = model.__table__
    conn = connection(context)
    read_deleted = getattr(context, 'read_deleted', 'no') or 'no'
    row = _found(_row_by_id(table, read_deleted).first(
        conn, {'id': row_id}), not_found)
    values = {key: value for key, value in values.items()
              if key in table.c}
    changed = {key: value for key, value in values.items()
               if row[key] != value}
    row.update(values)
    if changed:
        if 'updated_at' in table.c and 'updated_at' not in changed:
            changed['updated_at'] = row['updated_at'] = timeutils.utcnow()
        params = {'v_' + key: value for key, value in changed.items()}
        params['w_id'] = row_id
        conn.execute(_update_by_id(table, tuple(sorted(changed))), params)
    return row


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
