"""Transaction context managers: lazy configuration, cell targeting."""

import threading

import pytest
import sqlalchemy as sa

from nova_clone.conf import CONF
from nova_clone import context as nova_context
from nova_clone.db.api import api as api_db_api
from nova_clone.db.main import api as main_db_api
from nova_clone.db.main import models
from nova_clone.db import migration
from nova_clone import exception


@main_db_api.pick_context_manager_writer
def _add_service(context, host):
    context.session.add(models.Service(host=host, binary='nova-compute',
                                       topic='compute', report_count=0))


@main_db_api.pick_context_manager_reader
def _hosts(context):
    return sorted(s.host for s in context.session.query(models.Service))


@main_db_api.pick_context_manager_reader_allow_async
def _count(context):
    return context.session.query(models.Service).count()


@pytest.fixture
def two_cells(tmp_path):
    urls = []
    for name in ('main', 'other'):
        url = 'sqlite:///%s' % (tmp_path / ('%s.db' % name))
        migration.db_sync('main', url=url)
        urls.append(url)
    CONF.set_override('connection', urls[0], group='database')
    main_db_api.reset()
    yield urls
    CONF.clear_override('connection', group='database')
    main_db_api.reset()


def test_decorators_follow_the_targeted_cell(two_cells):
    ctx = nova_context.get_admin_context()
    _add_service(ctx, 'main-host')
    cell_ctx = nova_context.get_admin_context()
    cell_ctx.db_connection = main_db_api.create_context_manager(
        two_cells[1])
    _add_service(cell_ctx, 'cell-host')
    assert _hosts(ctx) == ['main-host']
    assert _hosts(cell_ctx) == ['cell-host']
    assert _count(cell_ctx) == 1


def test_context_managers_are_cached_per_url(two_cells):
    first = main_db_api.create_context_manager(two_cells[1])
    assert main_db_api.create_context_manager(two_cells[1]) is first
    assert main_db_api.create_context_manager(two_cells[0]) is not first
    assert main_db_api.create_context_manager(None) is \
        main_db_api.main_context_manager


def test_soft_delete_mixin_sets_deleted_to_the_id(two_cells):
    ctx = nova_context.get_admin_context()
    _add_service(ctx, 'h1')
    with main_db_api.main_context_manager.writer.using(ctx):
        service = ctx.session.query(models.Service).one()
        service.soft_delete(ctx.session)
    with main_db_api.main_context_manager.reader.using(ctx):
        service = ctx.session.query(models.Service).one()
        assert service.deleted == service.id and service.deleted_at


def test_sqlite_enforces_foreign_keys(two_cells):
    ctx = nova_context.get_admin_context()
    with pytest.raises(Exception) as info:
        with main_db_api.main_context_manager.writer.using(ctx):
            ctx.session.add(models.InstanceExtra(instance_uuid='missing'))
    assert 'FOREIGN KEY' in str(info.value)


def test_concurrent_writes_to_one_sqlite_file(two_cells):
    errors = []

    def worker(n):
        try:
            for i in range(10):
                _add_service(nova_context.get_admin_context(),
                             'h%d-%d' % (n, i))
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert _count(nova_context.get_admin_context()) == 80


def test_unset_connections_say_which_option(tmp_path):
    CONF.set_override('connection', None, group='database')
    CONF.set_override('connection', None, group='api_database')
    main_db_api.reset()
    api_db_api.reset()
    try:
        with pytest.raises(exception.DBNotConfigured) as info:
            _hosts(nova_context.get_admin_context())
        assert '[database] connection' in str(info.value)
        with pytest.raises(exception.DBNotConfigured) as info:
            api_db_api.get_engine()
        assert '[api_database] connection' in str(info.value)
    finally:
        CONF.clear_override('connection', group='database')
        CONF.clear_override('connection', group='api_database')
        main_db_api.reset()
        api_db_api.reset()


def test_reset_reads_the_connection_again(tmp_path):
    urls = []
    for name in ('a', 'b'):
        url = 'sqlite:///%s' % (tmp_path / ('%s.db' % name))
        migration.db_sync('api', url=url)
        urls.append(url)
    try:
        for url in urls:
            CONF.set_override('connection', url, group='api_database')
            api_db_api.reset()
            assert str(api_db_api.get_engine().url) == url
            with api_db_api.get_engine().connect() as conn:
                conn.execute(sa.text('SELECT 1 FROM cell_mappings'))
    finally:
        CONF.clear_override('connection', group='api_database')
        api_db_api.reset()
