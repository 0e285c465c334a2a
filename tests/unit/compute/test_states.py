"""API status of a server from its vm_state/task_state, and back."""

import pytest

from nova_clone.compute import states
from nova_clone.compute import task_states
from nova_clone.compute import vm_states


@pytest.mark.parametrize('vm_state,task_state,status', [
    ('active', None, 'ACTIVE'),
    ('active', 'rebooting', 'REBOOT'),
    ('active', 'reboot_started_hard', 'HARD_REBOOT'),
    ('active', 'updating_password', 'PASSWORD'),
    ('active', 'rebuild_spawning', 'REBUILD'),
    ('active', 'migrating', 'MIGRATING'),
    ('active', 'resize_finish', 'RESIZE'),
    ('active', 'deleting', 'ACTIVE'),
    ('building', 'spawning', 'BUILD'),
    ('stopped', None, 'SHUTOFF'),
    ('stopped', 'resize_prep', 'RESIZE'),
    ('stopped', 'rebuilding', 'REBUILD'),
    ('resized', None, 'VERIFY_RESIZE'),
    ('resized', 'resize_reverting', 'REVERT_RESIZE'),
    ('paused', 'migrating', 'MIGRATING'),
    ('suspended', None, 'SUSPENDED'),
    ('rescued', None, 'RESCUE'),
    ('error', None, 'ERROR'),
    ('error', 'rebuild_block_device_mapping', 'REBUILD'),
    ('error', 'deleting', 'ERROR'),
    ('deleted', None, 'DELETED'),
    ('soft-delete', None, 'SOFT_DELETED'),
    ('shelved', None, 'SHELVED'),
    ('shelved_offloaded', None, 'SHELVED_OFFLOADED'),
    ('no-such-state', None, 'UNKNOWN'),
])
def test_status_from_state(vm_state, task_state, status):
    assert states.status_from_state(vm_state, task_state) == status


def test_every_state_value_matches_nova():
    assert vm_states.SOFT_DELETED == 'soft-delete'
    assert task_states.POWERING_OFF == 'powering-off'
    assert task_states.SOFT_DELETING == 'soft-deleting'
    assert len(vm_states.ALL_STATES) == 12
    assert len(task_states.ALL_STATES) == 42


def test_reverse_map_round_trips_every_pair():
    # Every (vm_state, task_state) pair must be found by the filter of the
    # status it maps to, and by no other status.
    pairs = [(vm, t) for vm in vm_states.ALL_STATES
             for t in (None,) + task_states.ALL_STATES]
    for vm, t in pairs:
        status = states.status_from_state(vm, t)
        matching = [
            s for s in states.ALL_STATUSES
            if any(f['vm_state'] == vm and (
                t in f['task_state'] if f['task_state'] is not None
                else t not in f['exclude_task_states'])
                for f in states.state_filter_for_status(s))]
        assert matching == [status], (vm, t, matching)


def test_reverse_map_of_unknown_status_matches_nothing():
    assert states.state_filter_for_status('BOGUS') == []
    assert states.task_and_vm_state_from_status(['BOGUS']) == ([], [])


def test_coarse_reverse_map_is_case_insensitive():
    vms, tasks = states.task_and_vm_state_from_status(['reboot'])
    assert vms == ['active']
    assert tasks == sorted(task_states.SOFT_REBOOT_STATES)
    vms, tasks = states.task_and_vm_state_from_status(['SHUTOFF'])
    assert vms == ['stopped'] and tasks == [states.DEFAULT_TASK_STATE]
