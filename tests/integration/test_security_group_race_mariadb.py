"""Concurrent first boots of a project on real MariaDB share its
``default`` security group instead of failing the loser's build."""

import threading
import time
import uuid

import pytest
import sqlalchemy as sa

from nova_clone import context as nova_context
from nova_clone.db.main import api as main_db_api
from nova_clone.db.main import models
from nova_clone.db import migration
from nova_clone import objects

pytestmark = pytest.mark.integration

ROOT = 'mysql+pymysql://root@127.0.0.1/%s?charset=utf8mb4'


@pytest.fixture
def cell_url():
    name = 'nc_perf_%s' % uuid.uuid4().hex[:12]
    engine = sa.create_engine(ROOT % '')
    with engine.begin() as conn:
        conn.execute(sa.text('CREATE DATABASE `%s` CHARACTER SET utf8mb4'
                             % name))
    try:
        migration.db_sync('main', url=ROOT % name)
        yield ROOT % name
    finally:
        with engine.begin() as conn:
            conn.execute(sa.text('DROP DATABASE IF EXISTS `%s`' % name))
        engine.dispose()


def _flavor():
    return objects.Flavor(id=1, name='m1.tiny', memory_mb=512, vcpus=1,
                          root_gb=1, ephemeral_gb=0, flavorid='1', swap=0,
                          rxtx_factor=1.0, vcpu_weight=None, disabled=False,
                          is_public=True, extra_specs={}, projects=[],
                          description=None)


def test_boot_that_loses_the_default_group_race_uses_the_winners(cell_url):
    objects.register_all()
    ctx = nova_context.get_admin_context()
    ctx.db_connection = main_db_api.create_context_manager(cell_url)
    project = 'p-%s' % uuid.uuid4().hex[:8]

    # Another boot's transaction has created "default" but not committed:
    # ours reads no group, then its INSERT waits on that row's key.
    other = sa.create_engine(cell_url)
    conn = other.connect()
    trans = conn.begin()
    conn.execute(models.SecurityGroup.__table__.insert().values(
        name='default', description='default', project_id=project,
        user_id='u1', deleted=0))

    result = {}

    def boot():
        try:
            inst = objects.Instance(
                ctx, project_id=project, user_id='u2', display_name='vm',
                vm_state='building', memory_mb=512, vcpus=1,
                flavor=_flavor(), security_groups=['default'])
            inst.create()
            result['uuid'] = inst.uuid
        except Exception as exc:  # reported by the assertion below
            result['error'] = exc

    thread = threading.Thread(target=boot)
    thread.start()
    time.sleep(1.0)
    trans.commit()
    conn.close()
    thread.join(30)
    other.dispose()

    assert 'error' not in result, result.get('error')
    got = objects.Instance.get_by_uuid(ctx, result['uuid'],
                                       expected_attrs=['security_groups'])
    assert got.security_groups == ['default']
    with sa.create_engine(cell_url).connect() as check:
        groups = check.execute(sa.text(
            'SELECT COUNT(*) FROM security_groups WHERE project_id = :p'),
            {'p': project}).scalar()
    assert groups == 1
