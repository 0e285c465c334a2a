"""Action events, instance faults and notifications of the compute."""

import pytest

from nova_clone.compute import utils as compute_utils
from nova_clone import exception
from tests.unit.compute import fakes


def test_event_reporter_records_success(fake_objects, ctxt):
    with compute_utils.EventReporter(ctxt, 'compute_x', 'h1', 'u-1'):
        pass
    assert fake_objects.events == [['u-1', 'compute_x', 'Success', 'h1']]


def test_event_reporter_records_error_and_lets_it_through(fake_objects,
                                                          ctxt):
    with pytest.raises(ValueError):
        with compute_utils.EventReporter(ctxt, 'compute_x', 'h1', 'u-1'):
            raise ValueError('boom')
    assert fake_objects.events == [['u-1', 'compute_x', 'Error', 'h1']]


class _Thing:
    host = 'hostX'

    @compute_utils.wrap_instance_event(prefix='compute')
    @compute_utils.wrap_instance_fault
    def do_it(self, context, instance, fail=False):
        if fail:
            raise exception.InstanceInvalidState(
                instance_uuid=instance.uuid, attr='vm_state',
                state='error', method='do_it')
        return 'done'

    @compute_utils.wrap_instance_event(prefix='compute')
    def _do_build_and_run_instance(self, context, instance):
        return 'built'


def test_event_names_follow_nova(fake_objects, ctxt):
    inst = fakes.FakeInstance()
    thing = _Thing()
    assert thing.do_it(ctxt, inst) == 'done'
    assert thing._do_build_and_run_instance(ctxt, instance=inst) == 'built'
    assert fake_objects.events_for(inst.uuid) == [
        ('compute_do_it', 'Success'),
        ('compute__do_build_and_run_instance', 'Success')]


def test_fault_is_recorded_with_the_exception_code(fake_objects, ctxt):
    inst = fakes.FakeInstance()
    with pytest.raises(exception.InstanceInvalidState):
        _Thing().do_it(ctxt, inst, fail=True)
    fault = fake_objects.faults[0]
    assert fault.code == 409
    assert 'Cannot do_it' in fault.message
    assert fault.details == ''
    assert fake_objects.events_for(inst.uuid) == [('compute_do_it',
                                                   'Error')]


def test_non_nova_fault_hides_the_message_but_keeps_the_traceback(
        fake_objects, ctxt):
    inst = fakes.FakeInstance()
    try:
        raise RuntimeError('secret internals')
    except RuntimeError as exc:
        import sys
        compute_utils.add_instance_fault_from_exc(ctxt, inst, exc,
                                                  sys.exc_info())
    fault = fake_objects.faults[0]
    assert (fault.code, fault.message) == (500, 'RuntimeError')
    assert 'secret internals' in fault.details
    assert fault.host == inst.host


def test_long_fault_message_is_cut_to_the_column(fake_objects, ctxt):
    compute_utils.add_instance_fault_from_exc(
        ctxt, fakes.FakeInstance(), exception.NovaException('x' * 400))
    assert len(fake_objects.faults[0].message) == 255


def test_notification_shape(notifications, ctxt):
    inst = fakes.FakeInstance()
    compute_utils.notify_about_instance_action(ctxt, inst, 'h1', 'create',
                                               phase='start')
    compute_utils.notify_about_instance_action(
        ctxt, inst, 'h1', 'create', phase='error',
        exception=exception.NovaException('bad'))
    (pub, prio, etype, payload), (_, prio2, etype2, payload2) = notifications
    assert (pub, prio, etype) == ('nova-compute:h1', 'INFO',
                                  'instance.create.start')
    assert payload['nova_object.name'] == 'InstanceActionPayload'
    assert payload['nova_object.data']['uuid'] == inst.uuid
    assert payload['nova_object.data']['power_state'] == 'pending'
    assert (prio2, etype2) == ('ERROR', 'instance.create.error')
    assert payload2['nova_object.data']['fault']['nova_object.data'][
        'exception_message'] == 'bad'


def test_no_notification_work_without_a_driver(monkeypatch, ctxt):
    from nova_clone import rpc
    monkeypatch.setattr(rpc, 'notifications_enabled', lambda: False)
    monkeypatch.setattr(rpc, 'get_notifier', pytest.fail)
    compute_utils.notify_about_instance_action(
        ctxt, fakes.FakeInstance(), 'h1', 'create', phase='start')
