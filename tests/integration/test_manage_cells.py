"""nova-manage against real MariaDB: the operator's set-up sequence."""

import os
import subprocess
import uuid

import pytest
import sqlalchemy as sa

from nova_clone.db import migration
from nova_clone.db.main import models as main_models

pytestmark = pytest.mark.integration

ROOT = 'mysql+pymysql://root@127.0.0.1/%s?charset=utf8mb4'
NOVA_MANAGE = os.path.join(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))), '.venv', 'bin',
    'nova-manage')


@pytest.fixture
def dbs():
    prefix = 'nc_data_%s' % uuid.uuid4().hex[:10]
    names = {k: '%s_%s' % (prefix, k) for k in ('api', 'cell1', 'cell1_cell0')}
    engine = sa.create_engine(ROOT % '')
    with engine.begin() as conn:
        for name in names.values():
            conn.execute(sa.text('CREATE DATABASE `%s` CHARACTER SET utf8mb4'
                                 % name))
    yield names
    with engine.begin() as conn:
        for name in names.values():
            conn.execute(sa.text('DROP DATABASE IF EXISTS `%s`' % name))
    engine.dispose()


@pytest.fixture
def manage(tmp_path, dbs):
    conf = tmp_path / 'nova.conf'
    conf.write_text(
        '[DEFAULT]\n'
        'transport_url = rabbit://guest:secret@127.0.0.1:5672/\n'
        '[api_database]\nconnection = %s\n'
        '[database]\nconnection = %s\nmax_retries = 1\n'
        % (ROOT % dbs['api'], ROOT % dbs['cell1']))

    def run(*args):
        proc = subprocess.run([NOVA_MANAGE, '--config-file', str(conf)] +
                              list(args), capture_output=True, text=True,
                              timeout=120)
        return proc.returncode, proc.stdout, proc.stderr
    return run


def _tables(url):
    engine = sa.create_engine(url)
    try:
        return set(sa.inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_cells_v2_setup_sequence(manage, dbs):
    rc, out, err = manage('api_db', 'sync')
    assert rc == 0, out + err
    assert len(_tables(ROOT % dbs['api']) - {'alembic_version'}) == 20
    rc, version, _ = manage('api_db', 'version')
    assert rc == 0 and version.strip() == migration.get_head('api')
    # A second sync changes nothing and succeeds.
    assert manage('api_db', 'sync')[0] == 0

    assert manage('cell_v2', 'map_cell0')[0] == 0
    rc, out, _ = manage('cell_v2', 'map_cell0')
    assert rc == 0 and 'Cell0 is already setup' in out

    rc, out, _ = manage('cell_v2', 'create_cell', '--name', 'cell1',
                        '--verbose')
    assert rc == 0
    cell1_uuid = out.strip()
    assert len(cell1_uuid) == 36

    rc, out, err = manage('db', 'sync')
    assert rc == 0, out + err
    for name in ('cell1', 'cell1_cell0'):
        assert len(_tables(ROOT % dbs[name]) - {'alembic_version'}) == 30
    rc, version, _ = manage('db', 'version')
    assert rc == 0 and version.strip() == '8f2f1571d55b'
    assert manage('db', 'sync')[0] == 0

    rc, out, _ = manage('cell_v2', 'list_cells')
    assert rc == 0
    rows = [line for line in out.splitlines()
            if line.startswith('|') and 'UUID' not in line]
    assert [r.split('|')[1].strip() for r in rows] == ['cell0', 'cell1']
    assert '00000000-0000-0000-0000-000000000000' in rows[0]
    assert '%s_cell1_cell0' % dbs['api'][:-4] in rows[0]
    assert cell1_uuid in rows[1]
    assert 'guest:****@' in rows[1] and 'secret' not in out
    rc, out, _ = manage('cell_v2', 'list_cells', '--verbose')
    assert 'guest:secret@' in out

    # Duplicate name: one line, exit 2, nothing created.
    rc, out, err = manage('cell_v2', 'create_cell', '--name', 'cell1',
                          '--database_connection', ROOT % 'elsewhere')
    assert rc == 2 and len(out.strip().splitlines()) == 1
    assert 'cell1' in out and 'Traceback' not in out + err
    # Bad database URL: one line, non-zero, no traceback.
    rc, out, err = manage('cell_v2', 'create_cell', '--name', 'c2',
                          '--database_connection', 'nosuchdb://x/y')
    assert rc != 0 and len(out.strip().splitlines()) == 1
    assert out.startswith('ERROR:') and 'Traceback' not in out + err
    rc, out, _ = manage('cell_v2', 'delete_cell', '--cell_uuid',
                        '11111111-1111-1111-1111-111111111111')
    assert rc == 1 and 'was not found' in out

    # A compute node row in cell1 gets mapped by discover_hosts.
    engine = sa.create_engine(ROOT % dbs['cell1'])
    with engine.begin() as conn:
        conn.execute(sa.insert(main_models.ComputeNode.__table__).values(
            host='fake-host-1', hypervisor_hostname='fake-node-1',
            uuid=str(uuid.uuid4()), vcpus=4, memory_mb=1024, local_gb=10,
            vcpus_used=0, memory_mb_used=0, local_gb_used=0,
            hypervisor_type='fake', hypervisor_version=1, cpu_info='{}',
            mapped=0, deleted=0))
    rc, out, _ = manage('cell_v2', 'discover_hosts', '--verbose')
    assert rc == 0
    assert ("Creating host mapping for compute host 'fake-host-1': %s"
            % cell1_uuid) in out
    with engine.connect() as conn:
        assert conn.execute(sa.text(
            'SELECT mapped FROM compute_nodes')).scalar() == 1
    engine.dispose()
    # Nothing left to discover: --strict fails.
    assert manage('cell_v2', 'discover_hosts', '--strict')[0] == 1

    rc, out, _ = manage('cell_v2', 'list_hosts')
    assert rc == 0
    assert [[c.strip() for c in line.split('|')[1:4]]
            for line in out.splitlines() if 'fake-host-1' in line] == [
        ['cell1', cell1_uuid, 'fake-host-1']]
    rc, out, _ = manage('cell_v2', 'delete_cell', '--cell_uuid', cell1_uuid)
    assert rc == 2 and 'existing hosts' in out


def test_db_sync_without_api_db_is_a_clean_error(manage):
    rc, out, err = manage('db', 'sync')
    assert rc == 1
    assert out.startswith('ERROR: Could not access cell0')
    assert 'Traceback' not in out + err
