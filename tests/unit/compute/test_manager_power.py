"""The power and state RPC methods of the compute manager on the fake
driver: states, notifications, events, and what a failure leaves."""

import pytest

from nova_clone.compute import power_state
from nova_clone import exception


def _active(c, ctxt):
    c.network.active = True
    inst = c.new_instance()
    c.reportclient.allocations[inst.uuid] = {'rp': {}}
    c.build(ctxt, inst)
    assert inst.vm_state == 'active'
    return inst


def _with_task(inst, task_state):
    # As the API leaves it before its cast.
    inst.task_state = inst.db_task_state = task_state
    return inst


@pytest.mark.parametrize('method, task, vm_state, power, action', [
    ('stop_instance', 'powering-off', 'stopped', power_state.SHUTDOWN,
     'power_off'),
    ('pause_instance', 'pausing', 'paused', power_state.PAUSED, 'pause'),
    ('suspend_instance', 'suspending', 'suspended', power_state.SUSPENDED,
     'suspend'),
])
def test_action_reaches_its_state_with_notifications(
        compute, ctxt, fake_objects, notifications, method, task, vm_state,
        power, action):
    c = compute()
    inst = _with_task(_active(c, ctxt), task)
    del notifications[:]
    getattr(c.manager, method)(ctxt, instance=inst)
    assert (inst.vm_state, inst.task_state, inst.power_state) == (
        vm_state, None, power)
    assert [n[2] for n in notifications] == [
        'instance.%s.start' % action, 'instance.%s.end' % action]
    assert fake_objects.events[-1][1:3] == ['compute_%s' % method,
                                            'Success']


def test_start_unpause_resume_bring_it_back(compute, ctxt, fake_objects):
    c = compute()
    inst = _active(c, ctxt)
    for off, off_task, on, on_task in (
            ('stop_instance', 'powering-off', 'start_instance',
             'powering-on'),
            ('pause_instance', 'pausing', 'unpause_instance', 'unpausing'),
            ('suspend_instance', 'suspending', 'resume_instance',
             'resuming')):
        getattr(c.manager, off)(ctxt, instance=_with_task(inst, off_task))
        getattr(c.manager, on)(ctxt, instance=_with_task(inst, on_task))
        assert (inst.vm_state, inst.task_state, inst.power_state) == (
            'active', None, power_state.RUNNING)


def test_reboot_walks_the_reboot_task_states(compute, ctxt, fake_objects):
    c = compute()
    inst = _with_task(_active(c, ctxt), 'rebooting_hard')
    saves = len(inst.history)
    c.manager.reboot_instance(ctxt, instance=inst, block_device_info=None,
                              reboot_type='HARD')
    assert inst.history[saves:] == [('active', 'reboot_pending_hard'),
                                     ('active', 'reboot_started_hard'),
                                     ('active', None)]


def test_failed_reboot_of_a_running_guest_is_only_a_fault(
        compute, ctxt, fake_objects, notifications, monkeypatch):
    c = compute()
    inst = _with_task(_active(c, ctxt), 'rebooting')

    def broken(*args, **kwargs):
        raise exception.InstanceRebootFailure(reason='no')

    monkeypatch.setattr(c.manager.driver, 'reboot', broken)
    c.manager.reboot_instance(ctxt, instance=inst, block_device_info=None,
                              reboot_type='SOFT')
    assert (inst.vm_state, inst.task_state) == ('active', None)
    assert len(fake_objects.faults) == 1
    assert 'instance.reboot.error' in [n[2] for n in notifications]


def test_failed_reboot_that_leaves_the_guest_down_is_error(
        compute, ctxt, fake_objects, monkeypatch):
    c = compute()
    inst = _with_task(_active(c, ctxt), 'rebooting_hard')

    def broken(*args, **kwargs):
        c.manager.driver.power_off(inst)
        raise exception.InstanceRebootFailure(reason='no')

    monkeypatch.setattr(c.manager.driver, 'reboot', broken)
    with pytest.raises(exception.InstanceRebootFailure):
        c.manager.reboot_instance(ctxt, instance=inst,
                                  block_device_info=None, reboot_type='HARD')
    assert (inst.vm_state, inst.task_state) == ('error', None)
    assert fake_objects.events[-1][1:3] == ['compute_reboot_instance',
                                            'Error']


def test_failed_suspend_clears_the_task_and_keeps_the_state(
        compute, ctxt, fake_objects, monkeypatch):
    c = compute()
    inst = _with_task(_active(c, ctxt), 'suspending')
    monkeypatch.setattr(c.manager.driver, 'suspend',
                        lambda *a: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        c.manager.suspend_instance(ctxt, instance=inst)
    assert (inst.vm_state, inst.task_state) == ('active', None)
    assert fake_objects.faults[-1].message == 'ZeroDivisionError'


def test_console_output_tail_and_diagnostics(compute, ctxt, fake_objects):
    c = compute()
    inst = _active(c, ctxt)
    full = c.manager.get_console_output(ctxt, instance=inst,
                                        tail_length=None)
    assert full.splitlines()[-1] == 'LAST LINE'
    assert c.manager.get_console_output(ctxt, instance=inst,
                                        tail_length=2) == \
        'ANOTHER\nLAST LINE'
    assert c.manager.get_console_output(ctxt, instance=inst,
                                        tail_length=0) == ''
    assert c.manager.get_instance_diagnostics(
        ctxt, instance=inst)['state'] == 'running'
    c.manager.driver.power_off(inst)
    with pytest.raises(exception.InstanceInvalidState):
        c.manager.get_diagnostics(ctxt, instance=inst)
