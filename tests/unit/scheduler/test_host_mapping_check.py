"""The scheduler's check that a chosen host still has a cell mapping.

The cached host view may be HOST_STATE_TTL old, so each chosen host is
looked up once more before the claim: a host removed meanwhile is not
used, and the server is not buried in cell0 for it.
"""

from nova_clone import exception
from nova_clone import objects
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


def test_every_choice_checks_the_mapping(monkeypatch):
    # A compute retired (os-services DELETE) right after a refresh is
    # still in the cached view; only a fresh lookup keeps servers off it.
    lookups = _Lookups(monkeypatch)
    mgr, refreshes = _manager(monkeypatch)
    hs = fakes.host_state('h1')
    assert mgr._still_mapped(None, hs)
    lookups.missing.add('h1')
    assert not mgr._still_mapped(None, hs)
    assert lookups.hosts == ['h1', 'h1']
    assert refreshes == [True]


def test_a_lost_mapping_is_not_used_and_forces_a_refresh(monkeypatch):
    lookups = _Lookups(monkeypatch, missing=['h1'])
    mgr, refreshes = _manager(monkeypatch)
    hs = fakes.host_state('h1')
    assert not mgr._still_mapped(None, hs)
    assert not mgr._still_mapped(None, hs)
    # Never cached while missing: each choice of it asks again.
    assert lookups.hosts == ['h1', 'h1']
    assert refreshes == [True, True]
