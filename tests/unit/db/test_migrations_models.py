"""The schema built by the migrations is the schema the models describe."""

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
import pytest
import sqlalchemy as sa

from nova_clone.db.api import models as api_models
from nova_clone.db.main import models as main_models
from nova_clone.db import migration
from nova_clone import exception


def _diff(url, metadata):
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            ctx = MigrationContext.configure(
                conn, opts={'compare_type': True,
                            'compare_server_default': False})
            diffs = compare_metadata(ctx, metadata)
    finally:
        engine.dispose()
    # alembic's own bookkeeping table is not a model.
    return [d for d in diffs if not (
        isinstance(d, tuple) and d[0] == 'remove_table' and
        d[1].name == 'alembic_version')]


@pytest.mark.parametrize('database,metadata,tables', [
    ('api', api_models.BASE.metadata, 20),
    ('main', main_models.BASE.metadata, 30),
])
def test_migrated_schema_matches_models(tmp_path, database, metadata,
                                        tables):
    url = 'sqlite:///%s' % (tmp_path / ('%s.db' % database))
    assert migration.db_version(database, url=url) is None
    migration.db_sync(database, url=url)
    assert migration.db_version(database, url=url) == \
        migration.get_head(database)
    assert _diff(url, metadata) == []
    inspector = sa.inspect(sa.create_engine(url))
    assert len(set(inspector.get_table_names()) - {'alembic_version'}) == \
        tables


def test_model_change_without_migration_is_caught(tmp_path):
    url = 'sqlite:///%s' % (tmp_path / 'api.db')
    migration.db_sync('api', url=url)
    metadata = sa.MetaData()
    for table in api_models.BASE.metadata.tables.values():
        table.to_metadata(metadata)
    metadata.tables['flavors'].append_column(sa.Column('surprise',
                                                       sa.Integer))
    diffs = _diff(url, metadata)
    assert any(d[0] == 'add_column' and d[3].name == 'surprise'
               for d in diffs)


def test_sync_twice_is_a_no_op(tmp_path):
    url = 'sqlite:///%s' % (tmp_path / 'cell.db')
    migration.db_sync('main', url=url)
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.execute(sa.text(
            "INSERT INTO services (host, `binary`, topic, report_count, "
            "deleted) VALUES ('h1', 'nova-compute', 'compute', 0, 0)"))
    migration.db_sync('main', url=url)
    with engine.connect() as conn:
        assert conn.execute(sa.text(
            'SELECT count(*) FROM services')).scalar() == 1
    engine.dispose()


def test_unknown_database_and_bad_url_are_clean_errors(tmp_path):
    with pytest.raises(exception.InvalidInput):
        migration.db_sync('cells', url='sqlite://')
    with pytest.raises(exception.InvalidInput):
        migration.db_sync('api', url='nosuchdialect://x/y')


def test_unset_connection_raises_db_not_configured():
    from nova_clone.conf import CONF
    CONF.set_override('connection', None, group='api_database')
    try:
        with pytest.raises(exception.DBNotConfigured) as info:
            migration.db_version('api')
        assert 'api_database' in str(info.value)
    finally:
        CONF.clear_override('connection', group='api_database')
