"""Transactions on the API database.

The API-database objects embed their queries and use ``context_manager``
directly (``@api_db_api.context_manager.reader`` / ``.writer``).
"""

from nova_clone.db import facade

context_manager = facade.make_context_manager(group='api_database')


def get_engine():
    return context_manager.writer.get_engine()


def reset():
    """Forget the engine; the next use reads [api_database] again."""
    facade.reset_context_manager(context_manager, group='api_database')
