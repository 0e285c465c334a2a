"""A storm's requests share Placement's allocation candidates."""

import collections
import concurrent.futures
import time
import uuid

import oslo_messaging as messaging
import pytest

from nova_clone.conf import CONF
from nova_clone import exception
from tests.unit.scheduler import fakes
from tests.unit.scheduler.test_host_choice import Spec
from tests.unit.scheduler.test_host_choice import _scheduler


class CountingPlacement(fakes.FakePlacement):
    """Answers like Placement: only providers with room, counted."""

    def __init__(self, hosts):
        super().__init__(hosts, latency=0.005)
        self.gets = 0

    def get_allocation_candidates(self, ctxt, resource_request):
        time.sleep(self.latency)
        with self.lock:
            self.gets += 1
            res = resource_request.resources
            rps = [rp for rp, cap in self.capacity.items()
                   if all(self.used[rp][rc] + n <= cap[rc]
                          for rc, n in res.items() if rc in cap)]
        reqs = [{'allocations': {rp: {'resources': dict(res)}}}
                for rp in rps]
        return reqs, self.summaries(), '1.36'


@pytest.fixture
def reuse():
    def set_ttl(seconds):
        CONF.set_override('allocation_candidates_reuse_seconds', seconds,
                          'scheduler')
    yield set_ttl
    CONF.clear_override('allocation_candidates_reuse_seconds', 'scheduler')


def _boot(mgr, spec, server=None):
    server = server or str(uuid.uuid4())
    return mgr.select_destinations(None, spec_obj=spec,
                                   instance_uuids=[server])[0]['host']


def test_a_storm_asks_placement_a_few_times_and_still_spreads(reuse):
    reuse(30)
    hosts = [fakes.host_state('h%d' % i, vcpus=32) for i in range(3)]
    placement = CountingPlacement(hosts)
    mgr = _scheduler(hosts, placement)
    spec = Spec()
    with concurrent.futures.ThreadPoolExecutor(10) as pool:
        chosen = list(pool.map(lambda _: _boot(mgr, spec), range(60)))
    counts = collections.Counter(chosen)
    assert max(counts.values()) - min(counts.values()) <= 1, counts
    assert len(placement.allocations) == 60
    # One answer served the whole storm (the first fetch held the rest).
    assert placement.gets == 1


def test_without_reuse_every_request_asks(reuse):
    reuse(0)
    hosts = [fakes.host_state('h%d' % i) for i in range(3)]
    placement = CountingPlacement(hosts)
    mgr = _scheduler(hosts, placement)
    for _ in range(5):
        _boot(mgr, Spec())
    assert placement.gets == 5


def test_an_answer_older_than_the_window_is_not_used(reuse):
    reuse(0.2)
    hosts = [fakes.host_state('h0')]
    placement = CountingPlacement(hosts)
    mgr = _scheduler(hosts, placement)
    _boot(mgr, Spec())
    _boot(mgr, Spec())
    assert placement.gets == 1
    time.sleep(0.25)
    _boot(mgr, Spec())
    assert placement.gets == 2
    # Another question (another flavor) is never answered by the first.
    _boot(mgr, Spec(ram=1024))
    assert placement.gets == 3


def _one_host_filled(reuse):
    """One host, filled by server 'first' through a shared answer."""
    reuse(30)
    hosts = [fakes.host_state('h0', ram=1024)]
    placement = CountingPlacement(hosts)
    mgr = _scheduler(hosts, placement)
    spec = Spec(ram=1024)
    _boot(mgr, spec, 'first')
    return mgr, placement, spec


def test_room_freed_after_the_answer_is_found_by_asking_again(reuse):
    mgr, placement, spec = _one_host_filled(reuse)
    placement.delete_allocation_for_instance(None, 'first')
    # The shared answer still shows h0 full; Placement says otherwise.
    assert _boot(mgr, spec, 'second') == 'h0'
    assert placement.gets == 2
    assert set(placement.allocations) == {'second'}


def test_no_room_anywhere_is_still_no_valid_host(reuse):
    mgr, placement, spec = _one_host_filled(reuse)
    with pytest.raises(messaging.ExpectedException) as err:
        _boot(mgr, spec, 'second')
    assert isinstance(err.value.exc_info[1], exception.NoValidHost)
    # The shared answer was full, so Placement was asked once more.
    assert placement.gets == 2
    assert set(placement.allocations) == {'first'}
