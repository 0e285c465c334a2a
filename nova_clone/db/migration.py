"""Schema migrations of the API and cell databases (alembic).

``db_sync('api')`` / ``db_sync('main')`` bring a database to a revision
(head by default); ``db_version`` reports where it is.  The alembic
configuration is built here, so nothing outside the package is needed.
"""

import os

from alembic import command as alembic_command
from alembic import config as alembic_config
from alembic import migration as alembic_migration
from alembic import script as alembic_script
from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import engines
from oslo_log import log as logging

from nova_clone import exception

LOG = logging.getLogger(__name__)

DATABASES = ('api', 'main')
_GROUPS = {'api': 'api_database', 'main': 'database'}


def _check_database(database):
    if database not in DATABASES:
        raise exception.InvalidInput(
            reason='database must be one of %s, not %r'
            % (', '.join(DATABASES), database))


def _script_location(database):
    return os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        database, 'migrations')


def _alembic_config(database):
    config = alembic_config.Config()
    config.set_main_option('script_location', _script_location(database))
    return config


def _url(database, url):
    if url:
        return url
    from nova_clone.conf import CONF
    group = _GROUPS[database]
    url = getattr(CONF, group).connection
    if not url:
        raise exception.DBNotConfigured(group=group)
    return url


def _engine(database, url):
    from nova_clone.conf import CONF
    group = getattr(CONF, _GROUPS[database])
    try:
        return engines.create_engine(
            url, max_retries=group.max_retries,
            retry_interval=group.retry_interval,
            mysql_sql_mode=group.mysql_sql_mode,
            sqlite_fk=True)
    except db_exc.DBError:
        raise
    except Exception as exc:
        # Unknown dialect, malformed URL, missing driver...
        raise exception.InvalidInput(
            reason='invalid database connection URL: %s' % exc)


def get_head(database):
    """The newest revision shipped for ``database``."""
    _check_database(database)
    scripts = alembic_script.ScriptDirectory.from_config(
        _alembic_config(database))
    return scripts.get_current_head()


def db_sync(database='main', version=None, url=None):
    """Migrate ``database`` to ``version`` (default: head)."""
    _check_database(database)
    url = _url(database, url)
    engine = _engine(database, url)
    config = _alembic_config(database)
    revision = version or 'head'
    try:
        with engine.begin() as connection:
            config.attributes['connection'] = connection
            LOG.info('Migrating the %s database to %s', database, revision)
            alembic_command.upgrade(config, revision)
    finally:
        engine.dispose()


def db_version(database='main', url=None):
    """The current revision of ``database``, or None if never migrated."""
    _check_database(database)
    url = _url(database, url)
    engine = _engine(database, url)
    try:
        with engine.connect() as connection:
            ctx = alembic_migration.MigrationContext.configure(connection)
            return ctx.get_current_revision()
    finally:
        engine.dispose()
