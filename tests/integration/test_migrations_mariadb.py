"""Both schemas on real MariaDB: empty -> head, idempotent, equal to the
models."""

import uuid

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
import pytest
import sqlalchemy as sa

from nova_clone.db.api import models as api_models
from nova_clone.db.main import models as main_models
from nova_clone.db import migration

pytestmark = pytest.mark.integration

ROOT = 'mysql+pymysql://root@127.0.0.1/%s?charset=utf8mb4'


@pytest.fixture
def database():
    name = 'nc_data_%s' % uuid.uuid4().hex[:12]
    engine = sa.create_engine(ROOT % '')
    with engine.begin() as conn:
        conn.execute(sa.text('CREATE DATABASE `%s` CHARACTER SET utf8mb4'
                             % name))
    yield ROOT % name
    with engine.begin() as conn:
        conn.execute(sa.text('DROP DATABASE IF EXISTS `%s`' % name))
    engine.dispose()


@pytest.mark.parametrize('which,metadata,count', [
    ('api', api_models.BASE.metadata, 20),
    ('main', main_models.BASE.metadata, 30),
])
def test_migrate_empty_to_head_matches_models(database, which, metadata,
                                              count):
    assert migration.db_version(which, url=database) is None
    migration.db_sync(which, url=database)
    head = migration.get_head(which)
    assert migration.db_version(which, url=database) == head
    migration.db_sync(which, url=database)
    assert migration.db_version(which, url=database) == head

    engine = sa.create_engine(database)
    try:
        inspector = sa.inspect(engine)
        tables = set(inspector.get_table_names()) - {'alembic_version'}
        assert len(tables) == count
        for table in tables:
            # Transactions and foreign keys need InnoDB everywhere.
            assert inspector.get_table_options(table)[
                'mysql_engine'] == 'InnoDB'
        with engine.connect() as conn:
            ctx = MigrationContext.configure(
                conn, opts={'compare_type': True})
            diffs = [d for d in compare_metadata(ctx, metadata)
                     if not (d[0] == 'remove_table' and
                             d[1].name == 'alembic_version')]
        assert diffs == []
    finally:
        engine.dispose()


def test_soft_delete_unique_keys_allow_reuse(database):
    migration.db_sync('main', url=database)
    engine = sa.create_engine(database)
    services = main_models.Service.__table__
    try:
        with engine.begin() as conn:
            row = dict(host='h1', binary='nova-compute', topic='compute',
                       report_count=0, deleted=0)
            conn.execute(sa.insert(services).values(**row))
            with pytest.raises(sa.exc.IntegrityError):
                with conn.begin_nested():
                    conn.execute(sa.insert(services).values(**row))
            conn.execute(sa.update(services).values(deleted=services.c.id))
            conn.execute(sa.insert(services).values(**row))
            assert conn.execute(sa.select(sa.func.count()).select_from(
                services)).scalar() == 2
    finally:
        engine.dispose()


def test_quota_count_reads_live_mappings_only(database):
    """A create's quota count of a project's servers stays as cheap after
    thousands of deleted servers as before: MariaDB reads the live
    mappings through an index, not every mapping the project had."""
    from nova_clone.conf import CONF
    from nova_clone import context as nova_context
    from nova_clone.db.api import api as api_db_api
    from nova_clone import objects

    objects.register_all()
    migration.db_sync('api', url=database)
    mappings = api_models.InstanceMapping.__table__
    rows = [dict(instance_uuid=str(uuid.uuid4()), project_id='p1',
                 user_id='u1', queued_for_delete=i >= 3)
            for i in range(2000)]
    rows += [dict(instance_uuid=str(uuid.uuid4()), project_id='p2',
                  user_id='u2', queued_for_delete=False)]
    statements = []

    def seen(conn, cursor, statement, parameters, context, many):
        if 'count(' in statement:
            statements.append((statement, parameters))

    engine = sa.create_engine(database)
    CONF.set_override('connection', database, group='api_database')
    api_db_api.reset()
    try:
        with engine.begin() as conn:
            conn.execute(sa.insert(mappings), rows)
            conn.execute(sa.text('ANALYZE TABLE instance_mappings'))
        sa.event.listen(api_db_api.get_engine(), 'before_cursor_execute',
                        seen)
        ctx = nova_context.RequestContext(user_id='u1', project_id='p1')
        counts = objects.InstanceMappingList.get_counts(ctx, 'p1', 'u1')
        assert counts == {'project': {'instances': 3},
                          'user': {'instances': 3}}
        assert len(statements) == 2
        with engine.connect() as conn:
            for statement, parameters in statements:
                plan = conn.exec_driver_sql('EXPLAIN ' + statement,
                                            parameters).mappings().one()
                assert plan['key'] == ('instance_mappings_project_id_'
                                       'queued_for_delete_idx'), plan
                assert int(plan['rows']) < 50, plan
    finally:
        CONF.clear_override('connection', group='api_database')
        api_db_api.reset()
        engine.dispose()
