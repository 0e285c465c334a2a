"""Where the stand-ins keep their state: one SQL table per kind of resource.

Each row holds the resource's id, owning project, a creation sequence (for
stable ordering and markers) and the resource document as JSON.  The
stand-ins are not Nova's schema, so tables are made with create_all.
Writes are serialised by a per-process lock: a stand-in is one process and
its traffic is small, and this keeps IP allocation and state changes
atomic on SQLite and MariaDB alike.  A stand-in that is its database's
only writer may keep the rows in memory too (``cache=True``), so that its
reads need neither SQL nor JSON parsing.
"""

import contextlib
import json
import os
import threading
import time
import weakref

import sqlalchemy as sa
from sqlalchemy.dialects import mysql
from oslo_serialization import jsonutils
from sqlalchemy.engine import url as sa_url


def _engine(url):
    parsed = sa_url.make_url(url)
    if parsed.get_backend_name() == 'sqlite':
        if parsed.database and parsed.database != ':memory:':
            os.makedirs(os.path.dirname(os.path.abspath(parsed.database)),
                        exist_ok=True)
        kwargs = {}
        if not parsed.database or parsed.database == ':memory:':
            # One shared connection, or every thread sees its own empty DB.
            kwargs['poolclass'] = sa.pool.StaticPool
        engine = sa.create_engine(
            url, connect_args={'check_same_thread': False, 'timeout': 30},
            **kwargs)

        @sa.event.listens_for(engine, 'connect')
        def _wal(dbapi_conn, _record):
            # Readers never wait for the writer, nor the writer for them.
            cur = dbapi_conn.cursor()
            try:
                cur.execute('PRAGMA journal_mode=WAL')
            finally:
                cur.close()
        return engine
    return sa.create_engine(url, pool_pre_ping=True, pool_recycle=3600,
                            pool_size=10)


def default_data_dir(url, state_path=None):
    """Directory for files, next to a SQLite file or under state_path."""
    parsed = sa_url.make_url(url)
    if (parsed.get_backend_name() == 'sqlite' and parsed.database and
            parsed.database != ':memory:'):
        return os.path.join(
            os.path.dirname(os.path.abspath(parsed.database)), 'peers-data')
    return os.path.join(state_path or os.getcwd(), 'peers-data')


def field(name):
    """An index on the documents' top-level ``name``, usable by ``where``."""
    def keys(doc):
        return (doc.get(name),)
    keys.field = name
    return keys


def _shared_key(url):
    """Stores of one database in this process share their cached rows."""
    parsed = sa_url.make_url(url)
    if parsed.get_backend_name() == 'sqlite':
        if not parsed.database or parsed.database == ':memory:':
            return None  # every engine has a database of its own
        return ('sqlite', os.path.abspath(parsed.database))
    return parsed.render_as_string(hide_password=False)


class _Shared:
    """What every Store of one database in this process shares."""

    def __init__(self):
        # Serialises writes and read-modify-write sequences.
        self.lock = threading.RLock()
        # Held only while the in-memory maps change or are copied, so that
        # readers never wait for the database.
        self.mu = threading.Lock()
        self.tables = {}     # name -> _Table, once loaded
        self.watchers = {}   # name -> [fn(old_doc, new_doc)]


_REGISTRY = weakref.WeakValueDictionary()
_REGISTRY_LOCK = threading.Lock()


def _shared_for(url):
    key = _shared_key(url)
    if key is None:
        return _Shared()
    with _REGISTRY_LOCK:
        shared = _REGISTRY.get(key)
        if shared is None:
            shared = _REGISTRY[key] = _Shared()
        return shared


class _Row:
    __slots__ = ('ident', 'ordinal', 'project_id', 'text', 'doc', 'keys')

    def __init__(self, ident, ordinal, project_id, text):
        self.ident = ident
        self.ordinal = ordinal
        self.project_id = project_id
        self.text = text
        # A private copy: the caller's dict may change after the write.
        self.doc = json.loads(text)
        self.keys = None


def _ordinal(row):
    return row.ordinal


class _Table:
    """One table in memory: rows by id in creation order, and indexes."""

    def __init__(self, index_fns):
        self.rows = {}          # id -> _Row, in creation order
        self.by_project = {}    # project_id -> {id: None}, in creation order
        self.index_fns = dict(index_fns or {})
        self.indexes = {name: {} for name in self.index_fns}
        self.next_ordinal = 0

    def field_index(self, key):
        fn = self.index_fns.get(key)
        if fn is not None and getattr(fn, 'field', None) == key:
            return self.indexes[key]
        return None

    def _file(self, row):
        row.keys = {}
        for name, fn in self.index_fns.items():
            keys = []
            index = self.indexes[name]
            for key in fn(row.doc):
                try:
                    index.setdefault(key, {})[row.ident] = None
                except TypeError:
                    continue  # unhashable: no string lookup can match it
                keys.append(key)
            row.keys[name] = keys

    def _unfile(self, row):
        for name, keys in row.keys.items():
            index = self.indexes[name]
            for key in keys:
                bucket = index.get(key)
                if bucket is not None:
                    bucket.pop(row.ident, None)
                    if not bucket:
                        del index[key]

    def insert(self, row):
        self.rows[row.ident] = row
        self.by_project.setdefault(row.project_id, {})[row.ident] = None
        self._file(row)

    def replace(self, row):
        old = self.rows[row.ident]
        self._unfile(old)
        row.ordinal, row.project_id = old.ordinal, old.project_id
        self.rows[row.ident] = row   # keeps its place in creation order
        self._file(row)
        return old

    def remove(self, ident):
        row = self.rows.pop(ident, None)
        if row is None:
            return None
        bucket = self.by_project.get(row.project_id)
        if bucket is not None:
            bucket.pop(ident, None)
            if not bucket:
                del self.by_project[row.project_id]
        self._unfile(row)
        return row


class _ConnectionLost(Exception):
    """The writer's connection broke under a statement."""


class _Writer:
    """One DBAPI connection in autocommit mode for a cached store's writes.

    Writes happen under the store's lock, one at a time, so they need no
    pool: this saves the pool's ping, transaction and reset round trips,
    and SQLAlchemy's statement building, on every write.
    """

    # Ping a connection idle for longer, as the pool's pre-ping would.
    IDLE_PING = 10.0

    def __init__(self, engine):
        self.engine = engine
        self.conn = None
        self.last = 0.0
        self.sql = {}

    def close(self):
        conn, self.conn = self.conn, None
        if conn is not None:
            try:
                conn.close()
            except Exception:
                pass

    def _drop(self):
        conn, self.conn = self.conn, None
        if conn is not None:
            try:
                conn.invalidate()
            except Exception:
                pass

    def _connection(self):
        now = time.monotonic()
        if self.conn is not None and now - self.last > self.IDLE_PING:
            try:
                self.engine.dialect.do_ping(self.conn.dbapi_connection)
            except Exception:
                self._drop()
        if self.conn is None:
            conn = self.engine.raw_connection()
            if not isinstance(self.engine.pool, sa.pool.StaticPool):
                # Ours alone: the pool never hands it out in autocommit.
                conn.detach()
            self.engine.dialect.set_isolation_level(conn.dbapi_connection,
                                                    'AUTOCOMMIT')
            self.conn = conn
        self.last = now
        return self.conn

    def _statement(self, tbl, op):
        found = self.sql.get((tbl.name, op))
        if found is None:
            bind = sa.bindparam
            if op == 'insert':
                stmt = tbl.insert().values(id=bind('v_id'),
                                           project_id=bind('v_project'),
                                           data=bind('v_data'))
            elif op == 'update':
                stmt = tbl.update().where(tbl.c.id == bind('v_id')).values(
                    data=bind('v_data'))
            else:
                stmt = tbl.delete().where(tbl.c.id == bind('v_id'))
            compiled = stmt.compile(dialect=self.engine.dialect)
            names = (list(compiled.positiontup) if compiled.positional
                     else None)
            found = self.sql[(tbl.name, op)] = (str(compiled), names)
        return found

    def execute(self, tbl, op, params):
        sql, names = self._statement(tbl, op)
        args = params if names is None else tuple(params[n] for n in names)
        conn = self._connection()
        cursor = None
        try:
            cursor = conn.dbapi_connection.cursor()
            cursor.execute(sql, args)
            return cursor.rowcount
        except Exception as exc:
            lost = False
            try:
                lost = self.engine.dialect.is_disconnect(
                    exc, conn.dbapi_connection, cursor)
            except Exception:
                pass
            if lost:
                self._drop()
                raise _ConnectionLost(exc)
            raise
        finally:
            if cursor is not None:
                try:
                    cursor.close()
                except Exception:
                    pass


class Store:
    """JSON documents in per-kind tables of one database.

    With ``cache=True`` the store keeps every row of its tables in memory,
    written through to the database and loaded from it on first use: reads
    cost no SQL and no JSON parsing.  It requires that this process (its
    Stores of that database, which share the rows) is the database's only
    writer, as a stand-in is.  ``indexes`` ({table: {name: fn(doc) ->
    keys}}) serve ``lookup`` and, for ``field(key)`` indexes named ``key``,
    ``all(where=...)``; without the cache they fall back to scanning.
    """

    def __init__(self, url, tables, cache=False, indexes=None):
        self.engine = _engine(url)
        self.metadata = sa.MetaData()
        self.tables = {}
        for name in tables:
            self.tables[name] = sa.Table(
                name, self.metadata,
                sa.Column('seq', sa.Integer, primary_key=True,
                          autoincrement=True),
                sa.Column('id', sa.String(255), nullable=False, unique=True),
                sa.Column('project_id', sa.String(64), index=True),
                sa.Column('data', sa.Text().with_variant(
                    mysql.MEDIUMTEXT(), 'mysql'),
                    nullable=False),
                mysql_engine='InnoDB', mysql_charset='utf8mb4')
        self.cache = cache
        self.indexes = dict(indexes or {})
        self._shared = _shared_for(url) if cache else _Shared()
        self.lock = self._shared.lock
        self._writer = _Writer(self.engine) if cache else None

    def create_all(self):
        self.metadata.create_all(self.engine)
        if self.cache:
            self._reset()

    def dispose(self):
        if self._writer is not None:
            with self.lock:
                self._writer.close()
        self.engine.dispose()

    @contextlib.contextmanager
    def transaction(self):
        """Serialise a read-modify-write sequence."""
        with self.lock:
            yield self

    def watch(self, table, fn):
        """Call ``fn(old, new)`` after each write of ``table``.

        Runs under the write lock, for writes through any Store sharing
        this one's rows; ``old``/``new`` are None for an add/delete, both
        None when the rows were reloaded and anything may have changed.
        The documents are shared: read them, never change them.
        """
        with self.lock:
            self._shared.watchers.setdefault(table, []).append(fn)

    def _notify(self, table, old, new):
        for fn in self._shared.watchers.get(table, ()):
            fn(old, new)

    # -- the in-memory rows ------------------------------------------------

    def _reset(self):
        """Forget the loaded rows: the database may have been remade."""
        shared = self._shared
        with shared.lock:
            with shared.mu:
                shared.tables.clear()
            for name in list(shared.watchers):
                self._notify(name, None, None)

    def _table(self, name):
        table = self._shared.tables.get(name)
        if table is not None:
            return table
        shared = self._shared
        with shared.lock:   # no write can slip between load and publish
            table = shared.tables.get(name)
            if table is None:
                table = _Table(self.indexes.get(name))
                tbl = self.tables[name]
                with self.engine.connect() as conn:
                    result = conn.execute(sa.select(
                        tbl.c.seq, tbl.c.id, tbl.c.project_id,
                        tbl.c.data).order_by(tbl.c.seq))
                    for seq, ident, project_id, text in result:
                        table.insert(_Row(ident, seq, project_id, text))
                        table.next_ordinal = seq + 1
                with shared.mu:
                    shared.tables[name] = table
        return table

    # -- writes --------------------------------------------------------------

    def _write(self, table, op, ident, text=None, project_id=None):
        """One statement through the writer (the cached store's writes)."""
        tbl = self.tables[table]
        params = {'v_id': ident, 'v_project': project_id, 'v_data': text}
        try:
            return self._writer.execute(tbl, op, params)
        except _ConnectionLost:
            pass
        # The statement may or may not have been applied: once more on a
        # new connection (an insert only if its row is not there), and if
        # that fails too, reload the table from the database next time.
        try:
            if op == 'insert':
                with self.engine.connect() as conn:
                    if conn.execute(sa.select(tbl.c.id).where(
                            tbl.c.id == ident)).first() is not None:
                        return 1
            return self._writer.execute(tbl, op, params)
        except Exception:
            self._forget(table)
            raise

    def _forget(self, table):
        with self._shared.mu:
            self._shared.tables.pop(table, None)
        self._notify(table, None, None)

    def add(self, table, doc, project_id=None):
        text = jsonutils.dumps(doc)
        with self.lock:
            if not self.cache:
                with self.engine.begin() as conn:
                    conn.execute(self.tables[table].insert().values(
                        id=doc['id'], project_id=project_id, data=text))
                if self._shared.watchers.get(table):
                    self._notify(table, None, json.loads(text))
                return doc
            cached = self._table(table)
            ident = str(doc['id'])
            self._write(table, 'insert', ident, text, project_id)
            row = _Row(ident, cached.next_ordinal, project_id, text)
            with self._shared.mu:
                cached.next_ordinal += 1
                cached.insert(row)
            self._notify(table, None, row.doc)
        return doc

    def get(self, table, ident):
        """The document with id ``ident`` (a copy of the caller's own)."""
        if self.cache:
            row = self._table(table).rows.get(str(ident))
            return json.loads(row.text) if row is not None else None
        tbl = self.tables[table]
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(tbl.c.data).where(
                tbl.c.id == str(ident))).first()
        return jsonutils.loads(row[0]) if row else None

    def put(self, table, doc):
        tbl = self.tables[table]
        text = jsonutils.dumps(doc)
        ident = str(doc['id'])
        with self.lock:
            if not self.cache:
                watched = bool(self._shared.watchers.get(table))
                old = self.get(table, ident) if watched else None
                with self.engine.begin() as conn:
                    count = conn.execute(tbl.update().where(
                        tbl.c.id == doc['id']).values(data=text)).rowcount
                if count and watched:
                    self._notify(table, old, json.loads(text))
                return doc
            cached = self._table(table)
            self._write(table, 'update', ident, text)
            if ident in cached.rows:
                row = _Row(ident, None, None, text)
                with self._shared.mu:
                    old = cached.replace(row)
                self._notify(table, old.doc, row.doc)
        return doc

    def delete(self, table, ident):
        """Delete a document; how many there were (0 or 1)."""
        tbl = self.tables[table]
        ident = str(ident)
        with self.lock:
            if not self.cache:
                old = (self.get(table, ident)
                       if self._shared.watchers.get(table) else None)
                with self.engine.begin() as conn:
                    count = conn.execute(
                        tbl.delete().where(tbl.c.id == ident)).rowcount
                if count and old is not None:
                    self._notify(table, old, None)
                return count
            cached = self._table(table)
            self._write(table, 'delete', ident)
            with self._shared.mu:
                row = cached.remove(ident)
            if row is None:
                return 0
            self._notify(table, row.doc, None)
            return 1

    # -- reads ---------------------------------------------------------------

    def _count_query(self, table, project_id):
        tbl = self.tables[table]
        query = sa.select(sa.func.count()).select_from(tbl)
        if project_id is not None:
            query = query.where(tbl.c.project_id == project_id)
        return query

    def _cached_count(self, table, project_id):
        cached = self._table(table)
        if project_id is None:
            return len(cached.rows)
        return len(cached.by_project.get(project_id, ()))

    def count(self, table, project_id=None):
        """How many documents ``table`` holds (of ``project_id``)."""
        if self.cache:
            return self._cached_count(table, project_id)
        with self.engine.connect() as conn:
            return conn.execute(
                self._count_query(table, project_id)).scalar() or 0

    def counts(self, tables, project_id=None):
        """{table: count} for several tables in one statement."""
        tables = list(tables)
        if self.cache:
            return {t: self._cached_count(t, project_id) for t in tables}
        query = sa.select(*[self._count_query(t, project_id).scalar_subquery()
                            for t in tables])
        with self.engine.connect() as conn:
            row = conn.execute(query).one()
        return {t: n or 0 for t, n in zip(tables, row)}

    def all(self, table, project_id=None, where=None):
        """Every document of ``table`` in creation order.

        ``where`` ({key: [values]}) keeps the documents whose top-level
        ``key`` is one of ``values`` (strings).  With the cache, an index
        on ``key`` finds them, and the documents are shared: read them,
        never change them.  Without it the database drops the others by
        their JSON text, so they are never parsed.
        """
        if self.cache:
            docs = self._cached_all(table, project_id, where or {})
        else:
            docs = self._sql_all(table, project_id, where or {})
        for key, values in (where or {}).items():
            docs = [d for d in docs if d.get(key) in values]
        return docs

    def _cached_all(self, table, project_id, where):
        cached = self._table(table)
        with self._shared.mu:
            rows = None
            for key, values in where.items():
                index = cached.field_index(key)
                if index is None:
                    continue
                try:
                    idents = {i: None for v in values
                              for i in index.get(v, ())}
                except TypeError:
                    continue
                rows = [cached.rows[i] for i in idents]
                if len(rows) > 1:
                    rows.sort(key=_ordinal)
                break
            if rows is None:
                if project_id is not None:
                    rows = [cached.rows[i] for i in
                            cached.by_project.get(project_id, ())]
                else:
                    rows = list(cached.rows.values())
        return [r.doc for r in rows
                if project_id is None or r.project_id == project_id]

    def _sql_all(self, table, project_id, where):
        tbl = self.tables[table]
        query = sa.select(tbl.c.data).order_by(tbl.c.seq)
        if project_id is not None:
            query = query.where(tbl.c.project_id == project_id)
        for key, values in where.items():
            query = query.where(sa.or_(*[tbl.c.data.contains(
                '%s: %s' % (jsonutils.dumps(key), jsonutils.dumps(value)),
                autoescape=True) for value in values]))
        with self.engine.connect() as conn:
            return [jsonutils.loads(r[0]) for r in conn.execute(query)]

    def lookup(self, table, index, key):
        """Documents whose index ``index`` has ``key``, in creation order.

        With the cache they are shared: read them, never change them.
        """
        if self.cache:
            cached = self._table(table)
            with self._shared.mu:
                rows = [cached.rows[i]
                        for i in cached.indexes[index].get(key, ())]
            if len(rows) > 1:
                rows.sort(key=_ordinal)
            return [r.doc for r in rows]
        fn = self.indexes[table][index]
        return [d for d in self.all(table) if key in fn(d)]
