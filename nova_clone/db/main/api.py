"""Transactions on a cell database.

``main_context_manager`` serves [database] connection (the cell this
service lives in); ``create_context_manager(url)`` serves another cell
and is what ``nova_clone.context.set_target_cell`` stores on a targeted
context as ``db_connection``.  The ``pick_context_manager_*`` decorators
choose between the two per call, so query functions written once work in
every cell.
"""

import functools
import threading

from nova_clone.db import facade

main_context_manager = facade.make_context_manager(group='database')

_CELL_MANAGERS = {}
_CELL_MANAGERS_LOCK = threading.Lock()


def create_context_manager(connection=None):
    """The transaction context manager of the database at ``connection``.

    One per URL per process, so every targeted context shares its pool.
    Without a URL, the [database] one.
    """
    if not connection:
        return main_context_manager
    with _CELL_MANAGERS_LOCK:
        manager = _CELL_MANAGERS.get(connection)
        if manager is None:
            manager = facade.make_context_manager(url=connection)
            _CELL_MANAGERS[connection] = manager
        return manager


def get_context_manager(context):
    """The manager for ``context``: its target cell's, else the default."""
    if context is not None and getattr(context, 'db_connection', None):
        return context.db_connection
    return main_context_manager


def _picker(mode, connection=False):
    def decorator(f):
        @functools.wraps(f)
        def wrapped(context, *args, **kwargs):
            manager = get_context_manager(context)
            if mode == 'reader_allow_async':
                txn = manager.reader.allow_async
            else:
                txn = getattr(manager, mode)
            if connection:
                txn = txn.connection
            with txn.using(context):
                return f(context, *args, **kwargs)
        return wrapped
    return decorator


def pick_context_manager_writer(f):
    """Run ``f(context, ...)`` in a write transaction of the right cell."""
    return _picker('writer')(f)


def pick_context_manager_reader(f):
    """Run ``f(context, ...)`` in a read transaction of the right cell."""
    return _picker('reader')(f)


def pick_context_manager_connection_writer(f):
    """pick_context_manager_writer for a function that runs Core statements
    only: the transaction holds a Connection and no ORM Session (cheaper
    to open and commit).  ORM code it calls gets a Session on it."""
    return _picker('writer', connection=True)(f)


def pick_context_manager_connection_reader(f):
    """pick_context_manager_reader, holding a Connection (as above)."""
    return _picker('reader', connection=True)(f)


def pick_context_manager_reader_allow_async(f):
    """A read that may also join an async-reader transaction."""
    return _picker('reader_allow_async')(f)


def get_engine(use_slave=False, context=None):
    manager = get_context_manager(context)
    if use_slave:
        return manager.reader.get_engine()
    return manager.writer.get_engine()


def reset():
    """Forget every engine; the next use reads [database] again."""
    facade.reset_context_manager(main_context_manager, group='database')
    with _CELL_MANAGERS_LOCK:
        for url, manager in _CELL_MANAGERS.items():
            facade.reset_context_manager(manager, url=url)
