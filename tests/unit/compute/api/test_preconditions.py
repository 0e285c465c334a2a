"""The table of which vm_state / task_state each action accepts, and the
lock, as a caller of the compute API sees them."""

import types

from oslo_utils import timeutils
import pytest

from nova_clone.api import faults
from nova_clone.compute.api import preconditions
from nova_clone.compute import task_states
from nova_clone.compute import vm_states
from nova_clone import exception

UUID = '4f2ab1a4-5d51-4b6a-a8a7-6a0f1d3c0e11'


def _server(vm_state=vm_states.ACTIVE, task_state=None, launched=True,
            locked=False):
    return types.SimpleNamespace(
        uuid=UUID, vm_state=vm_state, task_state=task_state, locked=locked,
        launched_at=timeutils.utcnow() if launched else None)


def _user(is_admin=False):
    return types.SimpleNamespace(is_admin=is_admin)


def _refusal(action, server, context=None):
    with pytest.raises(exception.NovaException) as info:
        preconditions.check(context or _user(), server, action)
    return info.value


@pytest.mark.parametrize('action,accepted,refused', [
    ('resize', ['active', 'stopped'],
     ['building', 'paused', 'suspended', 'resized', 'error', 'shelved']),
    ('migrate', ['active', 'stopped'], ['building', 'error']),
    ('confirmResize', ['resized'], ['active', 'stopped']),
    ('revertResize', ['resized'], ['active']),
    ('os-stop', ['active', 'error'], ['stopped', 'paused', 'building']),
    ('os-start', ['stopped'], ['active', 'error']),
    ('pause', ['active'], ['paused', 'stopped']),
    ('unpause', ['paused'], ['active']),
    ('suspend', ['active'], ['suspended', 'paused']),
    ('resume', ['suspended'], ['active']),
    ('rescue', ['active', 'stopped', 'error'], ['rescued', 'paused']),
    ('unrescue', ['rescued'], ['active']),
    ('rebuild', ['active', 'stopped', 'error'], ['paused', 'shelved']),
    ('shelve', ['active', 'stopped', 'paused', 'suspended'],
     ['shelved', 'error']),
    ('shelveOffload', ['shelved'], ['shelved_offloaded', 'active']),
    ('unshelve', ['shelved', 'shelved_offloaded'], ['active']),
    ('attach_volume', ['active', 'paused', 'stopped', 'resized',
                       'soft-delete', 'shelved', 'shelved_offloaded'],
     ['building', 'error', 'suspended', 'rescued']),
    ('detach_volume', ['shelved_offloaded'], ['error']),
    ('os-migrateLive', ['active', 'paused'], ['stopped', 'suspended']),
    ('reboot', ['active'], ['stopped', 'error']),
    ('reboot:HARD', ['active', 'stopped', 'paused', 'suspended', 'error'],
     ['rescued', 'shelved']),
    ('update metadata', ['active', 'paused', 'suspended', 'stopped'],
     ['building', 'error', 'shelved']),
    ('update tags', ['active', 'shelved', 'shelved_offloaded'],
     ['building', 'error']),
    ('delete', list(vm_states.ALL_STATES), []),
    ('lock', list(vm_states.ALL_STATES), []),
])
def test_vm_states_each_action_accepts(action, accepted, refused):
    for state in accepted:
        preconditions.check(_user(), _server(state), action)
    for state in refused:
        exc = _refusal(action, _server(state))
        assert isinstance(exc, exception.InstanceInvalidState)
        assert exc.kwargs['attr'] == 'vm_state'
        assert exc.kwargs['state'] == state


def test_a_task_in_progress_refuses_most_actions():
    server = _server(task_state=task_states.RESIZE_PREP)
    exc = _refusal('resize', server)
    assert (exc.kwargs['attr'], exc.kwargs['state']) == \
        ('task_state', 'resize_prep')
    # Metadata, tags, delete and lock do not wait for the task.
    for action in ('update metadata', 'update tag', 'delete', 'lock'):
        preconditions.check(_user(), server, action)


def test_hard_reboot_interrupts_a_soft_one_and_says_reboot():
    rebooting = _server(task_state=task_states.REBOOTING)
    preconditions.check(_user(), rebooting, 'reboot:HARD')
    assert _refusal('reboot', rebooting).kwargs['method'] == 'reboot'
    exc = _refusal('reboot:HARD', _server(vm_states.RESCUED))
    assert exc.kwargs['method'] == 'reboot'


def test_force_complete_needs_a_live_migration():
    preconditions.check(_user(), _server(task_state=task_states.MIGRATING),
                        'force_complete')
    assert _refusal('force_complete', _server()).kwargs['attr'] == \
        'task_state'


def test_a_server_that_never_launched():
    never = _server(vm_states.ERROR, launched=False)
    exc = _refusal('rebuild', never)
    assert (exc.kwargs['attr'], exc.kwargs['state']) == ('launched_at', None)
    preconditions.check(_user(), never, 'delete')
    preconditions.check(_user(), never, 'forceDelete')


def test_the_lock_stops_users_not_admins():
    locked = _server(locked=True)
    exc = _refusal('pause', locked)
    assert isinstance(exc, exception.InstanceIsLocked)
    assert exc.format_message() == 'Instance %s is locked' % UUID
    preconditions.check(_user(is_admin=True), locked, 'pause')
    # Snapshots and tags are allowed on a locked server.
    for action in ('createImage', 'createBackup', 'update tag', 'unlock'):
        preconditions.check(_user(), locked, action)


def test_the_lock_is_checked_before_the_state():
    exc = _refusal('unpause', _server(locked=True))
    assert isinstance(exc, exception.InstanceIsLocked)


def test_decorated_method_runs_only_when_the_table_allows():
    calls = []

    class API:
        @preconditions.checked('resize')
        def resize(self, context, instance, flavor):
            calls.append(flavor)
            return 'cast'

    assert API().resize(_user(), _server(), 'm1.small') == 'cast'
    with pytest.raises(exception.InstanceInvalidState):
        API().resize(_user(), _server(vm_states.BUILDING), 'm1.small')
    assert calls == ['m1.small']


def test_an_action_missing_from_the_table_fails_at_import():
    with pytest.raises(KeyError):
        preconditions.checked('resise')


def test_every_state_named_is_a_real_state():
    for action, rule in preconditions.ACTIONS.items():
        for state in rule.vm_states or ():
            assert state in vm_states.ALL_STATES, action
        for state in rule.task_states or ():
            assert state is None or state in task_states.ALL_STATES, action


def test_the_api_answers_nova_409():
    exc = _refusal('resize', _server(vm_states.BUILDING))
    resp = faults.from_exception(exc)
    assert resp.status_int == 409
    assert resp.json == {'conflictingRequest': {
        'code': 409,
        'message': "Cannot 'resize' instance %s while it is in vm_state "
                   "building" % UUID}}
