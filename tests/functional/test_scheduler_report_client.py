"""The report client against the real Placement app served in-process."""

import os
import tempfile
import uuid

import pytest
from keystoneauth1 import adapter as ks_adapter
from keystoneauth1 import session as ks_session

from nova_clone import context as nova_context
from nova_clone import exception
from nova_clone.placement import client as report
from nova_clone.scheduler import utils as sched_utils


@pytest.fixture(scope='module')
def placement_url():
    from nova_clone.embedded import placement as embedded_placement
    from nova_clone import wsgi_server
    tmp = tempfile.mkdtemp(prefix='nc_flow_placement_')
    app = embedded_placement.make_app(
        'sqlite:///%s' % os.path.join(tmp, 'placement.db'))
    handle = wsgi_server.serve(app, port=0, name='placement-test')
    yield handle.url
    handle.stop()


@pytest.fixture
def client(placement_url):
    sess = ks_session.Session(additional_headers={'X-Auth-Token': 'admin'})
    adap = ks_adapter.Adapter(sess, endpoint_override=placement_url,
                              service_type='placement', raise_exc=False)
    return report.SchedulerReportClient(adapter=adap)


@pytest.fixture
def ctx():
    return nova_context.get_admin_context()


def _inventory(vcpus=8, ram=8192, disk=100):
    return {'VCPU': {'total': vcpus, 'allocation_ratio': 1.0},
            'MEMORY_MB': {'total': ram, 'reserved': 0},
            'DISK_GB': {'total': disk}}


def _make_host(client, ctx, name, **inv):
    rp = str(uuid.uuid4())
    tree = client.get_provider_tree_and_ensure_root(ctx, rp, name)
    tree.update_inventory(rp, _inventory(**inv))
    tree.add_traits(rp, 'COMPUTE_STATUS_DISABLED')
    tree.remove_traits(rp, 'COMPUTE_STATUS_DISABLED')
    tree.add_traits(rp, 'HW_CPU_X86_AVX2')
    client.update_from_provider_tree(ctx, tree)
    return rp


def test_provider_tree_sync_creates_root_inventory_and_traits(client, ctx):
    rp = _make_host(client, ctx, 'host-a-%s' % uuid.uuid4().hex[:6])
    providers = client.get_providers_in_tree(ctx, rp)
    assert [p['uuid'] for p in providers] == [rp]
    inv = client.get('/resource_providers/%s/inventories' % rp).json()
    assert inv['inventories']['VCPU']['total'] == 8
    traits = client.get('/resource_providers/%s/traits' % rp,
                        version='1.6').json()['traits']
    assert 'HW_CPU_X86_AVX2' in traits and 'OWNER_NOVA' in traits
    # A second sync with nothing changed sends no write: generation stays.
    gen = client.get('/resource_providers/%s' % rp).json()['generation']
    tree = client.get_provider_tree_and_ensure_root(ctx, rp)
    client.update_from_provider_tree(ctx, tree)
    assert client.get('/resource_providers/%s' % rp).json()[
        'generation'] == gen


def test_candidates_claim_read_and_delete(client, ctx):
    rp = _make_host(client, ctx, 'host-b-%s' % uuid.uuid4().hex[:6],
                    vcpus=2, ram=2048, disk=20)
    req = sched_utils.ResourceRequest(
        resources={'VCPU': 2, 'MEMORY_MB': 1024, 'DISK_GB': 10},
        required_traits={'HW_CPU_X86_AVX2'}, limit=50)
    reqs, summaries, version = client.get_allocation_candidates(ctx, req)
    mine = [r for r in reqs if rp in r['allocations']]
    assert mine and rp in summaries and version == '1.36'
    consumer = str(uuid.uuid4())
    assert client.claim_resources(ctx, consumer, mine[0], 'p1', 'u1',
                                  version)
    allocs = client.get_allocs_for_consumer(ctx, consumer)
    assert allocs['allocations'][rp]['resources']['VCPU'] == 2
    assert allocs['project_id'] == 'p1'
    # The host is now full: a second claim of the same candidate fails
    # cleanly (the scheduler then tries the next candidate).
    assert not client.claim_resources(ctx, str(uuid.uuid4()), mine[0],
                                      'p1', 'u1', version)
    usages = client.get_usages_counts_for_quota(ctx, 'p1', 'u1')
    assert usages['project']['cores'] >= 2
    assert client.delete_allocation_for_instance(ctx, consumer)
    assert client.get_allocs_for_consumer(ctx, consumer)['allocations'] == {}
    # Deleting what is already gone is fine.
    assert client.delete_allocation_for_instance(ctx, consumer)


def test_move_allocations_and_remove_tree(client, ctx):
    rp = _make_host(client, ctx, 'host-c-%s' % uuid.uuid4().hex[:6])
    inst, mig = str(uuid.uuid4()), str(uuid.uuid4())
    alloc = {'allocations': {rp: {'resources': {'VCPU': 1}}}}
    assert client.claim_resources(ctx, inst, alloc, 'p2', 'u2')
    assert client.move_allocations(ctx, inst, mig)
    assert client.get_allocations_for_consumer(ctx, inst) == {}
    assert client.get_allocations_for_consumer(ctx, mig)[rp][
        'resources'] == {'VCPU': 1}
    assert client.remove_provider_tree_from_instance_allocation(ctx, mig, rp)
    assert client.get_allocations_for_consumer(ctx, mig) == {}


def test_delete_provider_cascade(client, ctx):
    rp = _make_host(client, ctx, 'host-d-%s' % uuid.uuid4().hex[:6])
    consumer = str(uuid.uuid4())
    assert client.claim_resources(
        ctx, consumer, {'allocations': {rp: {'resources': {'VCPU': 1}}}},
        'p3', 'u3')
    client.delete_resource_provider(ctx, rp, cascade=True)
    assert client.get('/resource_providers/%s' % rp).status_code == 404
    assert client.get_allocations_for_consumer(ctx, consumer) == {}


def test_unreachable_placement_names_what_to_check(ctx):
    sess = ks_session.Session()
    adap = ks_adapter.Adapter(sess, endpoint_override='http://127.0.0.1:9',
                              service_type='placement', raise_exc=False)
    client = report.SchedulerReportClient(adapter=adap)
    with pytest.raises(exception.PlacementAPIConnectFailure) as err:
        client.delete_allocation_for_instance(ctx, str(uuid.uuid4()))
    assert 'Placement' in str(err.value)
    assert '[placement]' in str(err.value)
