"""Transaction context managers that find their database lazily.

oslo.db's enginefacade builds its engine on first use.  We hook that first
use so that the URL comes from a config group ([api_database] or
[database]) read at that moment, or from a URL fixed at creation (a cell
database), and so that an unset URL gives a clear DBNotConfigured instead
of oslo.db's generic error.

SQLite files (tests, embedded mode) get WAL journaling and a busy timeout,
enforce foreign keys like InnoDB does, read through their own engine and
write through an engine whose transactions start with BEGIN IMMEDIATE, so
concurrent threads queue for the write lock instead of failing on a lock
upgrade.
"""

import threading

from oslo_db.sqlalchemy import enginefacade
from oslo_log import log as logging
import sqlalchemy as sa
from sqlalchemy.engine import url as sa_url

from nova_clone import exception

LOG = logging.getLogger(__name__)

# oslo.db options that map onto enginefacade configure() keywords.
_ENGINE_OPTS = ('connection_recycle_time', 'connection_debug',
                'max_pool_size', 'max_overflow', 'pool_timeout',
                'max_retries', 'retry_interval', 'mysql_sql_mode',
                'connection_trace', 'connection_parameters',
                'sqlite_synchronous', 'slave_connection')

SQLITE_BUSY_TIMEOUT_MS = 30000


def is_sqlite_file(url):
    try:
        parsed = sa_url.make_url(url)
    except Exception:
        return False
    return (parsed.get_backend_name() == 'sqlite' and
            parsed.database not in (None, '', ':memory:'))


def _sqlite_on_connect(dbapi_con, con_record):
    dbapi_con.execute('PRAGMA busy_timeout = %d' % SQLITE_BUSY_TIMEOUT_MS)
    dbapi_con.execute('PRAGMA journal_mode = WAL')


# Per thread: the SQLite connections it opened write transactions on.
_writers = threading.local()


def _holds_write_lock(dbapi_con):
    try:
        return dbapi_con.in_transaction
    except Exception:  # closed meanwhile
        return False


def _sqlite_begin_immediate(conn):
    # oslo.db's own 'begin' listener has just sent a deferred BEGIN, which
    # holds no lock yet; swap it for BEGIN IMMEDIATE so a writer that reads
    # first queues for the write lock instead of failing on the upgrade.
    if conn.info.get('immediate'):
        return
    path = conn.engine.url.database
    mine = conn.connection.dbapi_connection
    held = getattr(_writers, 'by_file', None)
    if held is None:
        held = _writers.by_file = {}
    # Asked of SQLite itself, so a transaction that ended unseen counts
    # as ended.
    held[path] = [c for c in held.get(path, ())
                  if c is not mine and _holds_write_lock(c)]
    if held[path]:
        # An independent transaction opened inside one of this thread's
        # own write transactions (Placement re-reads provider generations
        # that way): queueing for the lock would wait on ourselves for the
        # whole busy timeout.  Deferred, it reads the last committed state
        # without any lock.
        return
    conn.exec_driver_sql('ROLLBACK')
    conn.exec_driver_sql('BEGIN IMMEDIATE')
    conn.info['immediate'] = True
    held[path].append(mine)


def _sqlite_end_transaction(conn):
    conn.info.pop('immediate', None)


def tune_sqlite_connections(engine):
    """WAL and a busy timeout on every connection ``engine`` opens."""
    sa.event.listen(engine, 'connect', _sqlite_on_connect)


def serialize_sqlite_writes(engine):
    """Start every transaction of ``engine`` with BEGIN IMMEDIATE."""
    sa.event.listen(engine, 'begin', _sqlite_begin_immediate)
    for name in ('commit', 'rollback'):
        sa.event.listen(engine, name, _sqlite_end_transaction)


class _LazyFactory(enginefacade._TransactionFactory):
    """A transaction factory that reads its URL when first started."""

    def __init__(self, group=None, url=None):
        super().__init__()
        self._group = group
        self._url = url
        self._lazy_lock = threading.Lock()

    def _group_conf(self):
        from nova_clone.conf import CONF
        return getattr(CONF, self._group) if self._group else None

    def _engine_conf(self):
        # A cell database reached by URL pools like this service's own
        # [database]: the same max_pool_size, max_overflow and so on.
        from nova_clone.conf import CONF
        return getattr(CONF, self._group or 'database')

    def _start(self, conf=False, connection=None, slave_connection=None):
        with self._lazy_lock:
            if self._started:
                return
            self._start_lazily()

    def _start_lazily(self):
        group = self._group_conf()
        url = self._url or (group.connection if group is not None else None)
        if not url:
            raise exception.DBNotConfigured(group=self._group or 'database')
        settings = {'sqlite_fk': True}
        engine_conf = self._engine_conf()
        for name in _ENGINE_OPTS:
            value = getattr(engine_conf, name, None)
            if value is not None:
                settings[name] = value
        if self._url:
            # Another cell: [database] slave_connection is ours, not its.
            settings.pop('slave_connection', None)
        sqlite_file = is_sqlite_file(url)
        if sqlite_file:
            settings['slave_connection'] = url
            settings['synchronous_reader'] = False
        self._configure(False, settings)
        super()._start(conf=None, connection=url)
        if sqlite_file:
            for engine in {self._writer_engine, self._reader_engine}:
                tune_sqlite_connections(engine)
            serialize_sqlite_writes(self._writer_engine)
        LOG.debug('Database engine started for %s',
                  self._group or 'a cell database')


def make_context_manager(group=None, url=None):
    """A transaction context manager bound to a config group or a URL."""
    manager = enginefacade.transaction_context()
    manager._root_factory = _LazyFactory(group=group, url=url)
    return manager


def reset_context_manager(manager, group=None, url=None):
    """Drop a manager's engines so that its next use reads the URL again.

    Decorators built from ``manager.reader``/``manager.writer`` keep
    working: they look the factory up through the manager each time.
    """
    old = manager._root_factory
    if old._started:
        try:
            old.dispose_pool()
        except Exception:  # pragma: no cover - best effort
            LOG.debug('Ignoring error while disposing an engine pool')
    manager._root_factory = _LazyFactory(group=group, url=url)
