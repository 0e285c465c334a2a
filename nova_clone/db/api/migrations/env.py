"""Alembic environment: run the migrations on the connection we are given.

``nova_clone.db.migration`` builds the alembic Config in code and passes an
open connection in ``config.attributes['connection']``; there is no
alembic.ini and no offline (SQL script) mode.
"""

from alembic import context

config = context.config


def run_migrations_online():
    connection = config.attributes['connection']
    context.configure(connection=connection, target_metadata=None,
                      render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


run_migrations_online()
