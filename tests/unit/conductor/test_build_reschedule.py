"""The conductor's reschedule path: alternates, claims, giving up."""

import json

import pytest

from nova_clone.conductor.tasks import build
from nova_clone import exception
from nova_clone import objects

objects.register_all()


class Host:
    def __init__(self, name, claimable=True):
        self.service_host = name
        self.nodename = name
        self.allocation_request = json.dumps(
            {'allocations': {name + '-rp': {'resources': {'VCPU': 1}}}})
        self.allocation_request_version = '1.36'
        self.claimable = claimable


class Instance:
    def __init__(self):
        self.uuid = 'inst-1'
        self.project_id = 'p'
        self.user_id = 'u'
        self.host = 'h0'
        self.node = 'h0'
        self.vm_state = 'building'
        self.task_state = 'spawning'
        self.saved = []

    def save(self):
        self.saved.append((self.vm_state, self.task_state, self.host))


class Placement:
    def __init__(self, hosts):
        self.hosts = {h.service_host: h for h in hosts}
        self.claims = []
        self.deleted = []

    def claim_resources(self, ctxt, uuid, alloc, project_id, user_id,
                        allocation_request_version=None):
        (rp,) = alloc['allocations']
        host = self.hosts[rp[:-3]]
        if host.claimable:
            self.claims.append((uuid, host.service_host))
        return host.claimable

    def delete_allocation_for_instance(self, ctxt, uuid, **kw):
        self.deleted.append(uuid)
        return True


class Compute:
    def __init__(self):
        self.casts = []

    def build_and_run_instance(self, ctxt, instance, host, **kw):
        self.casts.append((host, [h.service_host for h in kw['host_list']]))


class Manager:
    def __init__(self, hosts):
        self.report_client = Placement(hosts)
        self.compute_rpcapi = Compute()


def _reschedule(manager, host_list, attempts=1, failed='h0'):
    instance = Instance()
    props = {'retry': {'num_attempts': attempts,
                       'hosts': [[failed, failed]]}}
    build.build_instances(manager, None, [instance], {}, props, None, [],
                          None, [], block_device_mapping=[],
                          request_spec=None, host_lists=[host_list])
    return instance


@pytest.fixture(autouse=True)
def no_bdms(monkeypatch):
    monkeypatch.setattr(objects.BlockDeviceMappingList,
                        'get_by_instance_uuid',
                        staticmethod(lambda ctxt, uuid: []))


def test_failed_host_is_skipped_and_next_alternate_claimed():
    hosts = [Host('h0'), Host('h1'), Host('h2')]
    manager = Manager(hosts)
    instance = _reschedule(manager, list(hosts))
    assert manager.report_client.claims == [('inst-1', 'h1')]
    assert manager.compute_rpcapi.casts == [('h1', ['h2'])]
    assert instance.task_state == 'scheduling' and instance.host is None


def test_unclaimable_alternate_is_passed_over():
    hosts = [Host('h0'), Host('h1', claimable=False), Host('h2')]
    manager = Manager(hosts)
    _reschedule(manager, list(hosts))
    assert manager.compute_rpcapi.casts == [('h2', [])]


def test_no_alternate_left_means_error_and_no_allocation(monkeypatch):
    faults = []
    monkeypatch.setattr(build.compute_utils, 'add_instance_fault_from_exc',
                        lambda ctxt, inst, exc: faults.append(exc))
    hosts = [Host('h0')]
    manager = Manager(hosts)
    instance = _reschedule(manager, list(hosts))
    assert manager.compute_rpcapi.casts == []
    assert instance.vm_state == 'error' and instance.task_state is None
    assert manager.report_client.deleted == ['inst-1']
    assert isinstance(faults[0], exception.MaxRetriesExceeded)
    assert 'Exceeded maximum number of retries' in str(faults[0])


def test_max_attempts_stops_rescheduling(monkeypatch):
    monkeypatch.setattr(build.compute_utils, 'add_instance_fault_from_exc',
                        lambda *a: None)
    hosts = [Host('h0'), Host('h1')]
    manager = Manager(hosts)
    instance = _reschedule(manager, list(hosts), attempts=3)
    assert manager.compute_rpcapi.casts == []
    assert instance.vm_state == 'error'


def test_placement_failure_is_an_error_with_a_fault(monkeypatch):
    faults = []
    monkeypatch.setattr(build.compute_utils, 'add_instance_fault_from_exc',
                        lambda ctxt, inst, exc: faults.append(exc))
    hosts = [Host('h0'), Host('h1')]
    manager = Manager(hosts)

    def unreachable(*args, **kwargs):
        raise exception.PlacementAPIConnectFailure(reason='connection refused')

    manager.report_client.claim_resources = unreachable
    instance = _reschedule(manager, list(hosts))
    assert manager.compute_rpcapi.casts == []
    assert instance.vm_state == 'error' and instance.task_state is None
    assert manager.report_client.deleted == ['inst-1']
    assert 'Unable to communicate with the Placement API' in str(faults[0])

