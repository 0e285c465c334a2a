"""SQLite writers queue for the lock, and never wait on themselves.

Embedded Placement runs on such an engine: a PUT /allocations that meets
a generation conflict re-reads the providers in an independent
transaction while its own write transaction is open.
"""

import sqlite3
import threading
import time

from oslo_db.sqlalchemy import engines
import pytest

from nova_clone.db import facade


@pytest.fixture
def engine(tmp_path, monkeypatch):
    # A regression then fails in a second instead of the 30 s default.
    monkeypatch.setattr(facade, 'SQLITE_BUSY_TIMEOUT_MS', 1000)
    engine = engines.create_engine('sqlite:///%s' % (tmp_path / 'db.sqlite'))
    facade.tune_sqlite_connections(engine)
    facade.serialize_sqlite_writes(engine)
    engine.dispose()
    with engine.begin() as conn:
        conn.exec_driver_sql('CREATE TABLE t (v INTEGER)')
    yield engine
    engine.dispose()


def _values(conn):
    return [r[0] for r in conn.exec_driver_sql('SELECT v FROM t')]


def test_independent_read_inside_own_write_does_not_wait(engine):
    with engine.begin() as writer:
        writer.exec_driver_sql('INSERT INTO t VALUES (1)')
        started = time.monotonic()
        with engine.begin() as reader:
            # The last committed state: not the outer, uncommitted row.
            assert _values(reader) == []
        assert time.monotonic() - started < 0.5
    with engine.begin() as conn:
        assert _values(conn) == [1]


def test_writers_of_two_threads_queue_for_the_lock(engine):
    holding = threading.Event()
    release = threading.Event()
    errors = []

    def first():
        with engine.begin() as conn:
            conn.exec_driver_sql('INSERT INTO t VALUES (1)')
            holding.set()
            release.wait(5)

    def second():
        try:
            with engine.begin() as conn:
                # Read first, write after: only a queued lock makes the
                # upgrade safe.
                seen = _values(conn)
                conn.exec_driver_sql('INSERT INTO t VALUES (%d)'
                                     % (len(seen) + 1))
        except Exception as exc:
            errors.append(exc)

    a = threading.Thread(target=first)
    a.start()
    assert holding.wait(5)
    b = threading.Thread(target=second)
    b.start()
    time.sleep(0.2)
    release.set()
    a.join(5)
    b.join(5)
    assert errors == []
    with engine.begin() as conn:
        assert sorted(_values(conn)) == [1, 2]


def _lock_is_taken(path):
    """Whether another connection would have to wait for the write lock."""
    other = sqlite3.connect(path, timeout=0, isolation_level=None)
    try:
        other.execute('BEGIN IMMEDIATE')
    except sqlite3.OperationalError:
        return True
    finally:
        other.close()
    return False


def test_each_transaction_after_a_write_takes_the_lock_again(engine):
    path = engine.url.database
    with engine.begin() as conn:
        conn.exec_driver_sql('INSERT INTO t VALUES (1)')
    with engine.begin() as conn:
        _values(conn)
        assert _lock_is_taken(path)
        with engine.begin() as nested:
            _values(nested)
        assert _lock_is_taken(path)
    assert not _lock_is_taken(path)
