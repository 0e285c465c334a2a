"""The scheduler's choice under a storm: in-flight claims spread the load."""

import collections
import concurrent.futures
import time
import uuid

import pytest

from nova_clone import exception
from nova_clone.scheduler import manager as sched_manager
from nova_clone.scheduler import utils as sched_utils
from tests.unit.scheduler import fakes


class Spec:
    def __init__(self, ram=512, vcpus=1, disk=1, zone=None, num=1,
                 extra_specs=None):
        self.flavor = type('F', (), {'memory_mb': ram, 'vcpus': vcpus,
                                     'root_gb': disk, 'ephemeral_gb': 0,
                                     'swap': 0,
                                     'extra_specs': extra_specs or {}})()
        self.availability_zone = zone
        self.num_instances = num
        self.project_id = 'p'
        self.user_id = 'u'
        self.image = None


def _scheduler(hosts, placement):
    mgr = sched_manager.SchedulerManager(host='sched-test')
    mgr.report_client = placement
    mgr._still_mapped = lambda ctxt, host_state: True  # no API DB here
    hm = mgr.host_manager
    hm._base = {h.uuid: h for h in hosts}
    hm._refreshed_at = time.monotonic() + 3600  # no DB refresh in tests
    return mgr


def _schedule(mgr, placement, spec, summaries, fetched_at, uuids,
              alternates=False):
    rr = sched_utils.ResourceRequest.from_request_spec(spec)
    return mgr._schedule(None, spec, uuids, rr,
                         placement.alloc_reqs(rr.resources), summaries,
                         fetched_at, alternates, ar_version='1.36')


@pytest.mark.parametrize('servers', [30, 31])
def test_storm_over_equal_hosts_spreads_within_one(servers):
    hosts = [fakes.host_state('h%d' % i) for i in range(3)]
    placement = fakes.FakePlacement(hosts)
    mgr = _scheduler(hosts, placement)
    spec = Spec()
    # Every request saw the same Placement answer: the worst case of a
    # storm, where nothing of the others' claims is visible yet.
    summaries, fetched_at = placement.summaries(), time.monotonic()

    def one(_):
        result = _schedule(mgr, placement, spec, summaries, fetched_at,
                           [str(uuid.uuid4())])
        return result[0][0][0].host

    with concurrent.futures.ThreadPoolExecutor(10) as pool:
        chosen = list(pool.map(one, range(servers)))
    counts = collections.Counter(chosen)
    assert sum(counts.values()) == servers
    assert max(counts.values()) - min(counts.values()) <= 1, counts
    assert len(placement.allocations) == servers


def test_multi_instance_request_spreads_and_returns_alternates():
    hosts = [fakes.host_state('h%d' % i) for i in range(3)]
    placement = fakes.FakePlacement(hosts)
    mgr = _scheduler(hosts, placement)
    uuids = [str(uuid.uuid4()) for _ in range(3)]
    result = _schedule(mgr, placement, Spec(num=3), placement.summaries(),
                       time.monotonic(), uuids, alternates=True)
    assert sorted(r[0][0].host for r in result) == ['h0', 'h1', 'h2']
    for r in result:
        # max_attempts 3 -> the selected host and two alternates.
        assert len(r) == 3
        assert r[0][0].host not in [h.host for h, _ in r[1:]]


def test_full_hosts_give_no_valid_host_and_no_claim():
    hosts = [fakes.host_state('h%d' % i, ram=1024) for i in range(2)]
    placement = fakes.FakePlacement(hosts)
    mgr = _scheduler(hosts, placement)
    summaries, fetched_at = placement.summaries(), time.monotonic()
    spec = Spec(ram=1024)
    _schedule(mgr, placement, spec, summaries, fetched_at, ['a'])
    _schedule(mgr, placement, spec, summaries, fetched_at, ['b'])
    with pytest.raises(exception.NoValidHost) as err:
        _schedule(mgr, placement, spec, summaries, fetched_at, ['c'])
    assert 'There are not enough hosts available.' in str(err.value)
    assert set(placement.allocations) == {'a', 'b'}


def test_partial_multi_create_gives_back_its_claims():
    hosts = [fakes.host_state('h0', ram=1024)]
    placement = fakes.FakePlacement(hosts)
    mgr = _scheduler(hosts, placement)
    with pytest.raises(exception.NoValidHost):
        _schedule(mgr, placement, Spec(ram=1024, num=2),
                  placement.summaries(), time.monotonic(), ['a', 'b'])
    assert placement.allocations == {}
    assert mgr.host_manager.in_flight_count() == 0


def test_claim_conflict_moves_to_next_host():
    hosts = [fakes.host_state('h0', ram=4096), fakes.host_state('h1')]
    placement = fakes.FakePlacement(hosts)
    mgr = _scheduler(hosts, placement)
    summaries, fetched_at = placement.summaries(), time.monotonic()
    # Another scheduler filled h1 behind our back (not in our summaries).
    placement.used[hosts[1].uuid]['MEMORY_MB'] = 16384
    result = _schedule(mgr, placement, Spec(ram=2048), summaries,
                       fetched_at, ['x'])
    assert result[0][0][0].host == 'h0'


def test_down_and_disabled_hosts_are_skipped():
    hosts = [fakes.host_state('down', up=False),
             fakes.host_state('off', disabled=True),
             fakes.host_state('ok', ram=1024)]
    placement = fakes.FakePlacement(hosts)
    mgr = _scheduler(hosts, placement)
    result = _schedule(mgr, placement, Spec(), placement.summaries(),
                       time.monotonic(), ['x'])
    assert result[0][0][0].host == 'ok'


def test_negative_ram_multiplier_stacks():
    from nova_clone.conf import CONF
    CONF.set_override('ram_weight_multiplier', -1.0, 'filter_scheduler')
    CONF.set_override('cpu_weight_multiplier', 0.0, 'filter_scheduler')
    CONF.set_override('disk_weight_multiplier', 0.0, 'filter_scheduler')
    try:
        hosts = [fakes.host_state('h%d' % i) for i in range(3)]
        placement = fakes.FakePlacement(hosts)
        mgr = _scheduler(hosts, placement)
        chosen = [_schedule(mgr, placement, Spec(), placement.summaries(),
                            time.monotonic(), [str(uuid.uuid4())])[0][0][0]
                  .host for _ in range(4)]
        assert len(set(chosen)) == 1
    finally:
        CONF.clear_override('ram_weight_multiplier', 'filter_scheduler')
        CONF.clear_override('cpu_weight_multiplier', 'filter_scheduler')
        CONF.clear_override('disk_weight_multiplier', 'filter_scheduler')
