"""A local delete (no compute involved) that a compute overtakes."""

import types
from unittest import mock

from nova_clone.compute.api import delete
from nova_clone.compute import task_states
from nova_clone.compute import vm_states
from nova_clone import exception

UUID = '0b8f0d3e-6f0c-4b53-9d4e-1c2b3a4d5e6f'


class _Instance(object):
    """Read without a host; a compute claims it before the destroy."""

    def __init__(self):
        self.uuid = UUID
        self.host = None
        self.vm_state = vm_states.BUILDING
        self.task_state = task_states.SCHEDULING
        self.saved = []

    def save(self):
        self.saved.append((self.vm_state, self.task_state))

    def destroy(self):
        raise exception.ObjectActionError(action='destroy',
                                          reason='host changed')

    def refresh(self):
        self.host = 'compute1'


def test_claimed_during_local_delete_goes_to_its_compute(monkeypatch):
    objects = types.SimpleNamespace(
        InstanceAction=mock.Mock(),
        BlockDeviceMappingList=mock.Mock(**{
            'get_by_instance_uuid.return_value': []}))
    monkeypatch.setattr(delete, '_objects', lambda: objects)
    compute_api = mock.Mock()
    instance = _Instance()

    delete._local_delete(compute_api, mock.Mock(), instance)

    # Not a 500 ("host changed"): the compute that now builds it deletes it.
    assert instance.task_state == task_states.DELETING
    compute_api.compute_rpcapi.terminate_instance.assert_called_once()
    assert compute_api.compute_rpcapi.terminate_instance.call_args[0][1] \
        is instance
