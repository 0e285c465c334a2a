"""Waiting for external instance events (network-vif-plugged...)."""

import threading
import time
import types

import pytest

from nova_clone.compute.host import events
from nova_clone import exception
from tests.unit.compute import fakes


def _collaborators():
    """The collaborators the event code uses."""
    return types.SimpleNamespace(instance_events=events.InstanceEvents(),
                                 network_api=fakes.FakeNetworkAPI(),
                                 driver=None)


def _event(inst, name='network-vif-plugged', tag='p1', status='completed'):
    return {'instance_uuid': inst.uuid, 'name': name, 'tag': tag,
            'status': status}


class _Receiver:
    """external_instance_event as the manager calls it."""

    def __init__(self, compute):
        self.collab = compute

    def external_instance_event(self, context, instances, evts):
        events.external_instance_event(self.collab, context, instances, evts)


def test_event_sent_during_the_body_is_received():
    compute = _collaborators()
    virtapi = events.ComputeVirtAPI(compute.instance_events)
    inst = fakes.FakeInstance()
    receiver = _Receiver(compute)
    with virtapi.wait_for_instance_event(
            inst, [('network-vif-plugged', 'p1')], deadline=5):
        threading.Timer(0.05, receiver.external_instance_event,
                        (None, [inst], [_event(inst)])).start()


def test_missing_event_times_out_naming_it():
    virtapi = events.ComputeVirtAPI(events.InstanceEvents())
    inst = fakes.FakeInstance()
    start = time.monotonic()
    with pytest.raises(events.EventWaitTimeout) as err:
        with virtapi.wait_for_instance_event(
                inst, [('network-vif-plugged', 'p1')], deadline=0.2):
            pass
    assert 0.15 < time.monotonic() - start < 2
    assert err.value.missing == ['network-vif-plugged-p1']


def test_failed_event_calls_the_error_callback():
    compute = _collaborators()
    virtapi = events.ComputeVirtAPI(compute.instance_events)
    inst = fakes.FakeInstance()
    seen = []
    with virtapi.wait_for_instance_event(
            inst, [('network-vif-plugged', 'p1')], deadline=5,
            error_callback=lambda name, i: seen.append((name, i.uuid))):
        _Receiver(compute).external_instance_event(
            None, [inst], [_event(inst, status='failed')])
    assert seen == [('network-vif-plugged', inst.uuid)]


def test_early_event_is_kept_only_for_an_expected_instance():
    compute = _collaborators()
    virtapi = events.ComputeVirtAPI(compute.instance_events)
    receiver = _Receiver(compute)
    expected, other = fakes.FakeInstance(), fakes.FakeInstance()
    compute.instance_events.expect_events_for(expected.uuid)
    receiver.external_instance_event(
        None, [expected, other], [_event(expected), _event(other)])
    with virtapi.wait_for_instance_event(
            expected, [('network-vif-plugged', 'p1')], deadline=0.5):
        pass
    with pytest.raises(events.EventWaitTimeout):
        with virtapi.wait_for_instance_event(
                other, [('network-vif-plugged', 'p1')], deadline=0.1):
            pass


def test_cancelled_wait_reports_a_deleting_instance():
    compute = _collaborators()
    virtapi = events.ComputeVirtAPI(compute.instance_events)
    inst = fakes.FakeInstance()
    with pytest.raises(exception.UnexpectedDeletingTaskStateError):
        with virtapi.wait_for_instance_event(
                inst, [('network-vif-plugged', 'p1')], deadline=5):
            for w in compute.instance_events.clear_events_for_instance(
                    inst.uuid).values():
                w.send({'status': events.CANCELLED})


def test_network_changed_refreshes_the_cache_and_bad_events_are_skipped():
    compute = _collaborators()
    inst = fakes.FakeInstance()
    receiver = _Receiver(compute)
    receiver.external_instance_event(None, [inst], [
        {'instance_uuid': 'not-mine', 'name': 'network-changed'},
        _event(inst, name='network-changed', tag='p9')])
    assert compute.network_api.refreshed == [(inst.uuid, 'p9')]


def test_vif_deleted_drops_the_port_from_the_info_cache():
    compute = _collaborators()
    inst = fakes.FakeInstance()
    inst.info_cache.network_info = [{'id': 'p1'}, {'id': 'p2'}]
    receiver = _Receiver(compute)
    detached = []
    compute.driver = type('D', (), {
        'detach_interface': lambda s, c, i, vif: detached.append(vif['id'])
    })()
    receiver.external_instance_event(
        None, [inst], [_event(inst, name='network-vif-deleted', tag='p1')])
    assert detached == ['p1']
    assert [v['id'] for v in inst.info_cache.network_info] == ['p2']


def test_only_inactive_ports_are_waited_for(conf):
    nw = [{'id': 'a', 'active': False}, {'id': 'b', 'active': True},
          {'id': 'c'}]
    assert events.vif_events_to_wait_for(nw) == [
        ('network-vif-plugged', 'a'), ('network-vif-plugged', 'c')]
    conf.set_override('vif_plugging_timeout', 0)
    assert events.vif_events_to_wait_for(nw) == []


def test_event_in_the_api_body_form_is_delivered():
    compute = _collaborators()
    virtapi = events.ComputeVirtAPI(compute.instance_events)
    inst = fakes.FakeInstance()
    compute.instance_events.expect_events_for(inst.uuid)
    _Receiver(compute).external_instance_event(None, [inst], [
        {'server_uuid': inst.uuid, 'name': 'network-vif-plugged',
         'tag': 'p1'}])
    with virtapi.wait_for_instance_event(
            inst, [('network-vif-plugged', 'p1')], deadline=0.5):
        pass


def test_vif_deleted_for_a_vanished_instance_is_logged_not_raised(caplog):
    """Neutron deletes the port of a server being deleted after its row
    is gone: the event is noted at INFO, without a traceback."""
    compute = _collaborators()
    inst = fakes.FakeInstance()
    inst.info_cache.network_info = [{'id': 'p1'}]

    def gone():
        raise exception.InstanceNotFound(instance_id=inst.uuid)
    inst.info_cache.save = gone
    receiver = _Receiver(compute)
    compute.driver = type('D', (), {
        'detach_interface': lambda s, c, i, vif: None})()
    with caplog.at_level('INFO', logger='nova_clone.compute.host.events'):
        receiver.external_instance_event(
            None, [inst],
            [_event(inst, name='network-vif-deleted', tag='p1')])
    records = [r for r in caplog.records if inst.uuid in r.getMessage()]
    assert records and all(r.levelname == 'INFO' for r in records)
    assert not any(r.exc_info for r in records)
    assert 'could not be found' in records[-1].getMessage()
