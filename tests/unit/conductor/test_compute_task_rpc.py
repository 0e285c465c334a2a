"""The conductor's compute_task endpoint, reached through its RPC client.

A conductor service runs on the in-process bus; a reschedule a compute
casts with ``ComputeTaskAPI.build_instances`` goes through the real flow
module, with Placement and the compute RPC API replaced by recorders.
"""

import inspect
import json
import time

import oslo_messaging as messaging
from oslo_utils import uuidutils
import pytest

from nova_clone.conductor import api as conductor_api
from nova_clone.conductor import manager as conductor_manager
from nova_clone.conductor import rpcapi as conductor_rpcapi
from nova_clone import context as nova_context
from nova_clone import exception
from nova_clone import objects
from nova_clone import rpc
from tests.unit import rpc_bus
from tests.unit.rpc_bus import bus  # noqa: F401


class Placement:
    def __init__(self):
        self.claims = []
        self.deleted = []

    def claim_resources(self, ctxt, consumer_uuid, alloc, project_id,
                        user_id, allocation_request_version=None):
        self.claims.append((consumer_uuid, sorted(alloc['allocations'])))
        return True

    def delete_allocation_for_instance(self, ctxt, uuid, **kwargs):
        self.deleted.append(uuid)
        return True


class Compute:
    def __init__(self):
        self.builds = []

    def build_and_run_instance(self, ctxt, instance, host, **kwargs):
        self.builds.append((instance.uuid, host, kwargs['node'],
                            kwargs['filter_properties']['retry']['hosts']))


@pytest.fixture
def conductor(bus):  # noqa: F811
    svc = rpc_bus.start('nova-conductor', 'conductor',
                        conductor_manager.ConductorManager, 'cond-host')
    tasks = svc.manager.compute_task_mgr
    tasks.report_client = Placement()
    tasks.compute_rpcapi = Compute()
    yield tasks
    svc.stop(timeout=5)


def _instance(ctxt):
    inst = objects.Instance(ctxt, project_id='p', user_id='u',
                            vm_state='building', task_state='spawning',
                            host='h0', node='h0')
    inst.create()
    return inst


def _selection(host):
    alloc = {'allocations': {host + '-rp': {'resources': {'VCPU': 1}}}}
    return objects.Selection(
        compute_node_uuid=uuidutils.generate_uuid(), service_host=host,
        nodename=host, cell_uuid=uuidutils.generate_uuid(), limits=None,
        allocation_request=json.dumps(alloc),
        allocation_request_version='1.36', availability_zone=None)


def _reschedule(ctxt, instance, alternates):
    """What a compute casts after a retryable failure on host h0."""
    conductor_api.ComputeTaskAPI().build_instances(
        ctxt, instances=[instance], image={'id': 'img'},
        filter_properties={'retry': {'num_attempts': 1,
                                     'hosts': [['h0', 'h0']]}},
        admin_password=None, injected_files=[], requested_networks=None,
        security_groups=['default'], block_device_mapping=[],
        request_spec=None, host_lists=[alternates])


def _wait_for(predicate, timeout=10):
    deadline = time.time() + timeout
    while not predicate() and time.time() < deadline:
        time.sleep(0.05)
    assert predicate()


def test_reschedule_claims_and_builds_on_the_next_alternate(conductor):
    ctxt = nova_context.get_admin_context()
    inst = _instance(ctxt)
    _reschedule(ctxt, inst, [_selection('h1'), _selection('h2')])
    _wait_for(lambda: conductor.compute_rpcapi.builds)
    assert conductor.report_client.claims == [(inst.uuid, ['h1-rp'])]
    assert conductor.compute_rpcapi.builds == [
        (inst.uuid, 'h1', 'h1', [['h0', 'h0'], ['h1', 'h1']])]
    got = objects.Instance.get_by_uuid(ctxt, inst.uuid)
    assert (got.task_state, got.host, got.node) == ('scheduling', None, None)


def test_reschedule_without_alternates_ends_in_error_with_a_fault(
        conductor):
    ctxt = nova_context.get_admin_context()
    inst = _instance(ctxt)
    _reschedule(ctxt, inst, [])

    def faulted():
        got = objects.Instance.get_by_uuid(ctxt, inst.uuid,
                                           expected_attrs=['fault'])
        return got if got.fault is not None else None

    _wait_for(faulted)
    got = faulted()
    assert (got.vm_state, got.task_state) == ('error', None)
    assert got.fault.message.startswith(
        'Exceeded maximum number of retries.')
    assert conductor.report_client.deleted == [inst.uuid]
    assert conductor.compute_rpcapi.builds == []


def test_flows_that_have_not_landed_are_not_served(conductor):
    """A compute_task method the conductor does not implement is refused
    by the dispatcher, and the client cannot send past the served
    version."""
    ctxt = nova_context.get_admin_context()
    client = rpc.get_client(messaging.Target(
        topic=conductor_rpcapi.RPC_TOPIC,
        namespace=conductor_rpcapi.COMPUTE_TASK_NAMESPACE, version='1.0'))
    with pytest.raises(messaging.NoSuchMethod) as err:
        client.prepare(timeout=5).call(ctxt, 'attach_volume',
                                       instance=None)
    assert err.value.method == 'attach_volume'
    with pytest.raises(messaging.UnsupportedVersion):
        client.prepare(version='1.26', timeout=5).call(
            ctxt, 'build_instances', instances=[])
    task_api = conductor_api.ComputeTaskAPI()
    assert task_api.client.can_send_version(
        conductor_rpcapi.COMPUTE_TASK_VERSION)
    assert not task_api.client.can_send_version('1.26')
    assert not hasattr(task_api, 'attach_volume')


def test_migrate_server_is_served(conductor):
    """migrate_server reaches the migrate task through the RPC client: a
    rebuild, which that task does not run, comes back as the task's own
    Invalid, not as a method the conductor lacks."""
    ctxt = nova_context.get_admin_context()
    task_api = conductor_api.ComputeTaskAPI()
    assert task_api.client.can_send_version('1.20')
    with pytest.raises(exception.Invalid) as err:
        task_api.migrate_server(
            ctxt, instance=None, scheduler_hint={}, live=False,
            rebuild=True, flavor=None, block_migration=False,
            disk_over_commit=False)
    assert 'cold migrations and resizes only' in str(err.value)


def test_client_and_endpoint_offer_the_same_methods():
    def methods(cls):
        return {name for name, value in vars(cls).items()
                if inspect.isfunction(value) and not name.startswith('_')}

    assert methods(conductor_manager.ComputeTaskManager) == methods(
        conductor_rpcapi.ComputeTaskAPI) == {
        'build_instances', 'cache_images', 'live_migrate_instance',
        'migrate_server', 'rebuild_instance', 'schedule_and_build_instances',
        'unshelve_instance'}
    assert conductor_manager.ComputeTaskManager.target.version == (
        conductor_rpcapi.COMPUTE_TASK_VERSION)
    assert conductor_manager.ConductorManager.target.version == (
        conductor_rpcapi.CONDUCTOR_VERSION)
