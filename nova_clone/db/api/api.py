"""Transactions on the API database.

The API-database objects run their queries in ``context_manager``'s
transactions (``@api_db_api.context_manager.reader`` / ``.writer``); the
one-row helpers below serve the mapping objects, whose queries differ only
in model, filters and the error a miss raises.
"""

from sqlalchemy import orm

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
