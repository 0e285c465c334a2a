"""The scheduler's check that a chosen host still has a cell mapping.

One API-DB lookup per scheduled server made a storm pay for a race that
the cached view (HOST_STATE_TTL old at most) already bounds: a mapping
seen that recently is trusted, an older one is looked up again.
"""

import time

from nova_clone import exception
from nova_clone import objects
from nova_clone.scheduler import host_manager
from nova_clone.scheduler import manager as sched_manager
from tests.unit.scheduler import fakes


class _Lookups:
    def __init__(self, monkeypatch, missing=()):
        self.hosts = []
        self.missing = set(missing)

        def get_by_host(ctxt, host):
            self.hosts.append(host)
            if host in self.missing:
                raise exception.HostMappingNotFound(name=host)
            return object()
        monkeypatch.setattr(objects.HostMapping, 'get_by_host',
                            staticmethod(get_by_host))


def setup_module():
    objects.register_all()


def _manager(monkeypatch):
    mgr = sched_manager.SchedulerManager(host='sched-test')
    refreshes = []
    monkeypatch.setattr(mgr.host_manager, 'refresh',
                        lambda ctxt=None, force=False: refreshes.append(
                            force))
    return mgr, refreshes


def test_a_mapping_is_looked_up_once_per_ttl(monkeypatch):
    lookups = _Lookups(monkeypatch)
    mgr, _ = _manager(monkeypatch)
    hs = fakes.host_state('h1')
    for _ in range(5):
        assert mgr._still_mapped(None, hs)
    assert lookups.hosts == ['h1']
    # Older than the TTL: checked again.
    hm = mgr.host_manager
    hm._mapping_seen['h1'] -= host_manager.HOST_STATE_TTL + 1
    assert mgr._still_mapped(None, hs)
    assert lookups.hosts == ['h1', 'h1']


def test_hosts_mapped_at_the_last_refresh_need_no_lookup(monkeypatch):
    lookups = _Lookups(monkeypatch)
    mgr, _ = _manager(monkeypatch)
    hm = mgr.host_manager
    now = time.monotonic()
    hm._mapping_seen = {'h1': now, 'h2': now}
    assert mgr._still_mapped(None, fakes.host_state('h1'))
    assert mgr._still_mapped(None, fakes.host_state('h3'))
    assert lookups.hosts == ['h3']


def test_a_lost_mapping_is_not_used_and_forces_a_refresh(monkeypatch):
    lookups = _Lookups(monkeypatch, missing=['h1'])
    mgr, refreshes = _manager(monkeypatch)
    hs = fakes.host_state('h1')
    assert not mgr._still_mapped(None, hs)
    assert not mgr._still_mapped(None, hs)
    # Never cached while missing: each choice of it asks again.
    assert lookups.hosts == ['h1', 'h1']
    assert refreshes == [True, True]
    assert not mgr.host_manager.mapping_seen_recently('h1')
