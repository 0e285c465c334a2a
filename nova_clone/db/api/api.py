"""Transactions on the API database.

The API-database objects run their queries in ``context_manager``'s
transactions (``@api_db_api.context_manager.reader`` / ``.writer``); the
one-row helpers below serve the mapping objects, whose queries differ only
in model, filters and the error a miss raises.
"""

from oslo_db import exception as db_exc
import sqlalchemy as sa
from sqlalchemy import orm

from nova_clone.db.api import models
from nova_clone.db import facade
from nova_clone.db.main import queries

context_manager = facade.make_context_manager(group='api_database')


def get_engine():
    return context_manager.writer.get_engine()


def reset():
    """Forget the engine; the next use reads [api_database] again."""
    facade.reset_context_manager(context_manager, group='api_database')


# -- row helpers --------------------------------------------------------------
# The mapping objects differ only in model, filters and the error a miss
# raises; ``relations`` names relationships the caller reads after the
# transaction ends, so they are loaded inside it.

def _query(context, model, filters, relations=()):
    query = context.session.query(model)
    if relations:
        query = query.options(*[orm.joinedload(getattr(model, name))
                                for name in relations])
    return query.filter_by(**filters)


def _load(row, relations):
    for name in relations:
        getattr(row, name)


@context_manager.reader
def get_row(context, model, filters, not_found, relations=()):
    """The ``model`` row matching ``filters``; raises ``not_found``."""
    row = _query(context, model, filters, relations).first()
    if row is None:
        raise not_found
    return row


@context_manager.reader
def get_rows(context, model, filters=None, relations=()):
    """``model`` rows by id whose columns equal ``filters`` (or are in a
    list given there)."""
    query = _query(context, model, {}, relations)
    for key, value in (filters or {}).items():
        column = getattr(model, key)
        if isinstance(value, (list, tuple, set)):
            query = query.filter(column.in_(list(value)))
        else:
            query = query.filter(column == value)
    return query.order_by(model.id).all()


@context_manager.writer
def create_row(context, model, values, duplicate=None, relations=()):
    """Insert a ``model`` row; a duplicate key raises ``duplicate``."""
    row = queries.save_new(context.session, model, values, duplicate)
    _load(row, relations)
    return row


@context_manager.writer
def update_row(context, model, filters, values, not_found, relations=()):
    """Write ``values`` into the ``model`` row matching ``filters``."""
    row = _query(context, model, filters).first()
    if row is None:
        raise not_found
    row.update(values)
    context.session.flush()
    _load(row, relations)
    return row


@context_manager.writer
def delete_row(context, model, filters, not_found):
    """Delete the ``model`` rows matching ``filters``; none raises."""
    if not _query(context, model, filters).delete():
        raise not_found


@context_manager.writer
def delete_rows(context, model, key, values):
    """Delete the ``model`` rows whose ``key`` is in ``values``."""
    query = context.session.query(model).filter(
        getattr(model, key).in_(list(values)))
    return query.delete(synchronize_session=False)


# -- Core helpers ------------------------------------------------------------
# Every boot, show, delete and event reads or writes these rows: a Core
# statement costs a fraction of an ORM query or unit-of-work flush.  The
# statements are built once (with bind parameters) and kept, so SQLAlchemy
# neither rebuilds them nor recomputes their cache keys.  Rows come back as
# queries.Row (dicts readable as attributes) holding what the ORM rows
# would.  The transactions are connection-level (``.connection``): no ORM
# Session is built for them, and inside a caller's session transaction
# they run on its connection.

_STATEMENTS = {}


def _statement(key, build):
    stmt = _STATEMENTS.get(key)
    if stmt is None:
        stmt = _STATEMENTS[key] = build()
    return stmt


def _insert_values(table, values):
    """``values`` plus the Python-side column defaults the ORM would add
    (created_at, boolean defaults...), so the row is known in full."""
    row = dict(values)
    for column in table.columns:
        default = column.default
        if column.name in row or default is None:
            continue
        if default.is_scalar:
            row[column.name] = default.arg
        elif default.is_callable:
            row[column.name] = default.arg(None)
    return row


def insert(context, model, values, duplicate=None):
    """INSERT one ``model`` row in ``context``'s open connection-level
    transaction; returns
    it as a Row with every column (id included, None where unset)."""
    table = model.__table__
    row = _insert_values(table, values)
    stmt = _statement(('insert', table), table.insert)
    try:
        result = context.connection.execute(stmt, row)
    except db_exc.DBDuplicateEntry:
        if duplicate is None:
            raise
        raise duplicate
    row.setdefault('id', result.inserted_primary_key[0])
    return queries.Row((c.name, row.get(c.name)) for c in table.columns)


@context_manager.writer.connection
def insert_row(context, model, values, duplicate=None):
    """insert() in a write transaction of the API database."""
    return insert(context, model, values, duplicate)


def _where_params(table, stmt, keys, many):
    for key in keys:
        if key in many:
            stmt = stmt.where(table.c[key].in_(
                sa.bindparam(key, expanding=True)))
        else:
            stmt = stmt.where(table.c[key] == sa.bindparam(key))
    return stmt


def _filter_key(filters):
    """(keys, keys given a list) of ``filters`` and their parameters."""
    keys = tuple(sorted(filters))
    many = frozenset(k for k, v in filters.items()
                     if isinstance(v, (list, tuple, set)))
    params = {k: list(v) if k in many else v for k, v in filters.items()}
    return keys, many, params


def select(context, model, filters=None):
    """``model`` rows whose columns equal ``filters`` (or are in a list
    given there), by id, as Rows, in the open connection-level transaction
    of ``context``."""
    table = model.__table__
    keys, many, params = _filter_key(filters or {})
    stmt = _statement(('select', table, keys, many), lambda: _where_params(
        table, sa.select(table), keys, many).order_by(table.c.id))
    return [queries.Row(r) for r in
            context.connection.execute(stmt, params).mappings()]


@context_manager.reader.connection
def select_rows(context, model, filters=None):
    """select() in a read transaction of the API database."""
    return select(context, model, filters)


_CELL_LABEL = 'cell__'


def _with_cell_select(table, keys, many, limit):
    cells = models.CellMapping.__table__
    stmt = sa.select(table, *[c.label(_CELL_LABEL + c.name)
                              for c in cells.columns]).select_from(
        table.outerjoin(cells, table.c.cell_id == cells.c.id))
    stmt = _where_params(table, stmt, keys, many).order_by(table.c.id)
    return stmt.limit(limit) if limit is not None else stmt


def _split_cell(mapping):
    row, cell = queries.Row(), queries.Row()
    for key, value in mapping.items():
        if key.startswith(_CELL_LABEL):
            cell[key[len(_CELL_LABEL):]] = value
        else:
            row[key] = value
    row['cell_mapping'] = cell if cell.get('id') is not None else None
    return row


def select_with_cell(context, model, filters, limit=None):
    """``model`` rows whose columns equal ``filters`` (or are in a list
    given there), by id, each with its cell as ``row.cell_mapping`` (a
    Row, or None), in the open connection-level transaction of
    ``context``."""
    table = model.__table__
    keys, many, params = _filter_key(filters or {})
    stmt = _statement(('with_cell', table, keys, many, limit),
                      lambda: _with_cell_select(table, keys, many, limit))
    return [_split_cell(r) for r in
            context.connection.execute(stmt, params).mappings()]


@context_manager.reader.connection
def get_row_with_cell(context, model, filters, not_found):
    """The ``model`` row matching ``filters`` with its cell; raises
    ``not_found``."""
    rows = select_with_cell(context, model, filters, limit=1)
    if not rows:
        raise not_found
    return rows[0]


@context_manager.reader.connection
def get_rows_with_cell(context, model, filters=None):
    return select_with_cell(context, model, filters)


@context_manager.writer.connection
def insert_row_with_cell(context, model, values, duplicate=None):
    """insert() of a row pointing at a cell; returns it with its cell."""
    row = insert(context, model, values, duplicate)
    if row.get('cell_id') is None:
        row['cell_mapping'] = None
        return row
    return select_with_cell(context, model, {'id': row['id']})[0]


_ROW_ID = '_row_id'


@context_manager.writer.connection
def update_row_with_cell(context, model, filters, values, not_found):
    """Write ``values`` into the row matching ``filters``; returns it with
    its cell.

    As the ORM does, only values that differ are written, and updated_at
    moves only when something is.
    """
    rows = select_with_cell(context, model, filters, limit=1)
    if not rows:
        raise not_found
    row = rows[0]
    table = model.__table__
    changed = {k: v for k, v in values.items()
               if k in table.c and row.get(k) != v}
    if not changed:
        return row
    column = table.c.get('updated_at')
    if column is not None and column.onupdate is not None and \
            'updated_at' not in changed:
        changed['updated_at'] = column.onupdate.arg(None)
    stmt = _statement(('update', table), lambda: table.update().where(
        table.c.id == sa.bindparam(_ROW_ID)))
    context.connection.execute(stmt, dict(changed, **{_ROW_ID: row['id']}))
    if 'cell_id' in changed:
        return select_with_cell(context, model, {'id': row['id']})[0]
    row.update(changed)
    return row
