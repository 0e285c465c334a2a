"""A migrated SQLite cell database for the cell-object tests."""

import sqlalchemy as sa

from nova_clone import context as nova_context
from nova_clone.db.main import api as main_db_api
from nova_clone.db import migration
from nova_clone import objects


def make_cell_db(path):
    """Migrate a fresh SQLite cell DB; returns (url, context manager)."""
    objects.register_all()
    url = 'sqlite:///%s' % path
    migration.db_sync('main', url=url)
    return url, main_db_api.create_context_manager(url)


def admin_ctx(manager):
    ctx = nova_context.get_admin_context()
    ctx.db_connection = manager
    return ctx


def user_ctx(manager, project_id='p1', user_id='u1'):
    ctx = nova_context.RequestContext(user_id=user_id, project_id=project_id,
                                      roles=['member'])
    ctx.db_connection = manager
    return ctx


class StatementCounter:
    """Counts SQL statements run on the engine of ``manager``."""

    def __init__(self, manager):
        self.engine = manager.reader.get_engine()
        self.count = 0

    def _on_execute(self, *args, **kwargs):
        self.count += 1

    def __enter__(self):
        self.count = 0
        sa.event.listen(self.engine, 'before_cursor_execute',
                        self._on_execute)
        return self

    def __exit__(self, *exc):
        sa.event.remove(self.engine, 'before_cursor_execute',
                        self._on_execute)
