"""Where the stand-ins keep their state: one SQL table per kind of resource.

Each row holds the resource's id, owning project, a creation sequence (for
stable ordering and markers) and the resource document as JSON.  The
stand-ins are not Nova's schema, so tables are made with create_all.
Writes are serialised by a per-process lock: a stand-in is one process and
its traffic is small, and this keeps IP allocation and state changes
atomic on SQLite and MariaDB alike.
"""

import contextlib
import os
import threading

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


class Store:
    """JSON documents in per-kind tables of one database."""

    def __init__(self, url, tables):
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
        self.lock = threading.RLock()

    def create_all(self):
        self.metadata.create_all(self.engine)

    def dispose(self):
        self.engine.dispose()

    @contextlib.contextmanager
    def transaction(self):
        """Serialise a read-modify-write sequence."""
        with self.lock:
            yield self

    def add(self, table, doc, project_id=None):
        with self.lock, self.engine.begin() as conn:
            conn.execute(self.tables[table].insert().values(
                id=doc['id'], project_id=project_id,
                data=jsonutils.dumps(doc)))
        return doc

    def get(self, table, ident):
        tbl = self.tables[table]
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(tbl.c.data).where(
                tbl.c.id == str(ident))).first()
        return jsonutils.loads(row[0]) if row else None

    def put(self, table, doc):
        tbl = self.tables[table]
        with self.lock, self.engine.begin() as conn:
            conn.execute(tbl.update().where(tbl.c.id == doc['id']).values(
                data=jsonutils.dumps(doc)))
        return doc

    def delete(self, table, ident):
        tbl = self.tables[table]
        with self.lock, self.engine.begin() as conn:
            return conn.execute(
                tbl.delete().where(tbl.c.id == str(ident))).rowcount

    def _count_query(self, table, project_id):
        tbl = self.tables[table]
        query = sa.select(sa.func.count()).select_from(tbl)
        if project_id is not None:
            query = query.where(tbl.c.project_id == project_id)
        return query

    def count(self, table, project_id=None):
        """How many documents ``table`` holds (of ``project_id``)."""
        with self.engine.connect() as conn:
            return conn.execute(
                self._count_query(table, project_id)).scalar() or 0

    def counts(self, tables, project_id=None):
        """{table: count} for several tables in one statement."""
        tables = list(tables)
        query = sa.select(*[self._count_query(t, project_id).scalar_subquery()
                            for t in tables])
        with self.engine.connect() as conn:
            row = conn.execute(query).one()
        return {t: n or 0 for t, n in zip(tables, row)}

    def all(self, table, project_id=None, where=None):
        """Every document of ``table`` in creation order.

        ``where`` ({key: [values]}) keeps the documents whose top-level
        ``key`` is one of ``values`` (strings); the database drops the
        others by their JSON text, so they are never parsed.
        """
        tbl = self.tables[table]
        query = sa.select(tbl.c.data).order_by(tbl.c.seq)
        if project_id is not None:
            query = query.where(tbl.c.project_id == project_id)
        for key, values in (where or {}).items():
            query = query.where(sa.or_(*[tbl.c.data.contains(
                '%s: %s' % (jsonutils.dumps(key), jsonutils.dumps(value)),
                autoescape=True) for value in values]))
        with self.engine.connect() as conn:
            docs = [jsonutils.loads(r[0]) for r in conn.execute(query)]
        for key, values in (where or {}).items():
            docs = [d for d in docs if d.get(key) in values]
        return docs
