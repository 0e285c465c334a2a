"""Fixtures shared by the object tests."""

import pytest

from nova_clone.conf import CONF
from nova_clone import context as nova_context
from nova_clone.db.api import api as api_db_api
from nova_clone.db import migration
from nova_clone import objects


@pytest.fixture
def api_ctx(tmp_path):
    """A project user's context on a fresh migrated SQLite API database."""
    objects.register_all()
    url = 'sqlite:///%s' % (tmp_path / 'api.db')
    migration.db_sync('api', url=url)
    CONF.set_override('connection', url, group='api_database')
    api_db_api.reset()
    yield nova_context.RequestContext(user_id='u1', project_id='p1',
                                      roles=['admin'])
    CONF.clear_override('connection', group='api_database')
    api_db_api.reset()
