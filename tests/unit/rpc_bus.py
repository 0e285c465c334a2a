"""An in-process RPC bus for unit tests that run services.

oslo.messaging's fake driver, a fresh exchange per test (so no message
reaches another test's servers) and a migrated SQLite cell database as
[database] connection.
"""

import uuid

import oslo_messaging as messaging
import pytest

from nova_clone.conf import CONF
from nova_clone.db.main import api as main_db_api
from nova_clone.objects import base as objects_base
from nova_clone import rpc
from nova_clone import service
from tests.unit.objects import cell_db


@pytest.fixture
def bus(tmp_path, monkeypatch):
    url, _ = cell_db.make_cell_db(tmp_path / 'cell.db')
    CONF.set_override('connection', url, group='database')
    main_db_api.reset()
    exchange = 'nc_svc_%s' % uuid.uuid4().hex
    transport = messaging.get_rpc_transport(CONF, url='fake:///')
    monkeypatch.setattr(rpc, 'TRANSPORT', transport)
    monkeypatch.setattr(messaging.Target, '__init__',
                        _with_exchange(messaging.Target.__init__, exchange))
    yield transport
    monkeypatch.setattr(objects_base.NovaObject, 'indirection_api', None)
    CONF.clear_override('connection', group='database')
    main_db_api.reset()
    transport.cleanup()


def _with_exchange(init, exchange):
    def patched(self, *args, **kwargs):
        if kwargs.get('exchange') is None:
            kwargs['exchange'] = exchange
        init(self, *args, **kwargs)
    return patched


def start(binary, topic, manager, host, report_interval=1):
    """Create and start a service on the bus; the caller stops it."""
    svc = service.Service.create(binary=binary, topic=topic, host=host,
                                 manager=manager,
                                 report_interval=report_interval,
                                 periodic_enable=False)
    svc.start()
    return svc
