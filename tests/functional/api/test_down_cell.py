"""A cell whose database fails: server lists follow
``[api] list_records_by_skipping_down_cells`` as in Nova; from 2.69 servers
and compute services of that cell show as minimal records built from the
API database."""

import os

from oslo_utils import uuidutils
import pytest

from nova_clone.conf import CONF
from nova_clone import context as nova_context
from nova_clone import objects
from tests.functional.api import apifixture as af
from tests.functional.api import cellrecords
from tests.functional.api import samples


@pytest.fixture(scope='module')
def down_cell(bed):
    af.install_compute_api(bed)
    # A database file in a directory that does not exist: every query of
    # this cell fails.
    missing = os.path.join(bed.dir, 'gone', 'cell2.sqlite')
    cell = objects.CellMapping(
        context=nova_context.get_admin_context(),
        uuid='4c0d5f0e-7d53-4f3c-9a61-2b0f3c8e9d21', name='cell2',
        transport_url='fake://', database_connection='sqlite:///' + missing)
    cell.create()
    nova_context.forget_cell_list()
    yield cell
    from nova_clone.api.controllers import servers
    servers.set_compute_api(None)


@pytest.fixture
def fail_on_down_cells():
    CONF.set_override('list_records_by_skipping_down_cells', False,
                      group='api')
    yield
    CONF.clear_override('list_records_by_skipping_down_cells', group='api')


def test_list_leaves_out_a_failing_cell_by_default(down_cell, bed, demo):
    inst = cellrecords.add_instance(bed, demo.project, demo.user)[0]
    for path in ('/servers', '/servers/detail'):
        reply = demo.get(path, version='2.1')
        assert reply.status == 200, reply
        assert [s['id'] for s in reply.body['servers']] == [inst.uuid]


def test_list_fails_when_told_not_to_skip(down_cell, bed, demo,
                                          fail_on_down_cells):
    for path in ('/servers', '/servers/detail'):
        reply = demo.get(path, version='2.1')
        assert reply.status == 500, reply
        fault = reply.body['computeFault']
        assert fault['code'] == 500
        assert down_cell.uuid in fault['message']
        assert 'Traceback' not in reply.text


# -- 2.69: partial records of the servers of a down cell ---------------------

MINIMAL_LIST_KEYS = {'id', 'status', 'links'}
MINIMAL_DETAIL_KEYS = {'created', 'id', 'status', 'tenant_id', 'links'}


def _project_client(bed):
    """A client of a project of its own: the module's records do not
    mix between tests."""
    project = uuidutils.generate_uuid(dashed=False)
    return bed.client(user='u-' + project[:8], project=project)


def _mapping(uuid):
    return objects.InstanceMapping.get_by_instance_uuid(
        nova_context.get_admin_context(), uuid)


def _isotime(value):
    return value.strftime('%Y-%m-%dT%H:%M:%SZ')


def _minimal(servers):
    return [s for s in servers if s.get('status') == 'UNKNOWN']


def test_list_at_2_69_shows_down_cell_servers_as_minimal(down_cell, bed):
    client = _project_client(bed)
    up = cellrecords.add_instance(bed, client.project, client.user)[0]
    down = {cellrecords.add_unreachable_instance(
        bed, down_cell, client.project, client.user).instance_uuid
        for _ in range(2)}
    # Neither another project's server nor one queued for delete.
    cellrecords.add_unreachable_instance(bed, down_cell, 'other-project',
                                         'other-user')
    cellrecords.add_unreachable_instance(bed, down_cell, client.project,
                                         client.user, queued_for_delete=True)

    reply = client.get('/servers', version='2.69')
    assert reply.status == 200, reply
    servers = reply.body['servers']
    assert {s['id'] for s in servers} == down | {up.uuid}
    minimal = _minimal(servers)
    assert {s['id'] for s in minimal} == down
    for item in minimal:
        assert set(item) == MINIMAL_LIST_KEYS
        assert [link['rel'] for link in item['links']] == ['self',
                                                           'bookmark']
        assert item['links'][0]['href'].endswith(
            '/v2.1/%s/servers/%s' % (client.project, item['id']))
    [full] = [s for s in servers if s['id'] == up.uuid]
    assert full['name'] == 'vm'
    samples.assert_matches('servers/v2.69/servers-list-resp.json',
                           {'servers': minimal})
    # Before 2.69 the down cell's servers are left out.
    for path in ('/servers', '/servers/detail'):
        reply = client.get(path, version='2.68')
        assert reply.status == 200, reply
        assert [s['id'] for s in reply.body['servers']] == [up.uuid]


def test_detail_at_2_69_shows_down_cell_servers_as_minimal(down_cell, bed):
    client = _project_client(bed)
    up = cellrecords.add_instance(bed, client.project, client.user)[0]
    down = cellrecords.add_unreachable_instance(
        bed, down_cell, client.project, client.user).instance_uuid

    reply = client.get('/servers/detail', version='2.69')
    assert reply.status == 200, reply
    servers = reply.body['servers']
    assert {s['id'] for s in servers} == {up.uuid, down}
    [item] = _minimal(servers)
    assert set(item) == MINIMAL_DETAIL_KEYS
    assert item['id'] == down
    assert item['tenant_id'] == client.project
    assert item['created'] == _isotime(_mapping(down).created_at)
    [full] = [s for s in servers if s['id'] == up.uuid]
    assert full['status'] == 'ACTIVE' and 'flavor' in full
    samples.assert_matches('servers/v2.69/servers-details-resp.json',
                           {'servers': [item]})


def test_all_tenants_at_2_69_lists_every_project(down_cell, bed, admin):
    one, two = _project_client(bed), _project_client(bed)
    down_one = cellrecords.add_unreachable_instance(
        bed, down_cell, one.project, one.user).instance_uuid
    down_two = cellrecords.add_unreachable_instance(
        bed, down_cell, two.project, two.user).instance_uuid

    for path in ('/servers', '/servers/detail'):
        reply = admin.get(path + '?all_tenants=1', version='2.69')
        assert reply.status == 200, reply
        minimal = {s['id']: s for s in _minimal(reply.body['servers'])}
        assert {down_one, down_two} <= set(minimal)
        keys = MINIMAL_DETAIL_KEYS if path.endswith('detail') else \
            MINIMAL_LIST_KEYS
        assert set(minimal[down_two]) == keys
        if path.endswith('detail'):
            assert minimal[down_one]['tenant_id'] == one.project
            assert minimal[down_two]['tenant_id'] == two.project
        # Without all_tenants the admin sees its own project only.
        reply = admin.get(path, version='2.69')
        assert reply.status == 200, reply
        ids = {s['id'] for s in reply.body['servers']}
        assert not ids & {down_one, down_two}


@pytest.mark.parametrize('query', ['?limit=10', '?name=vm',
                                   '?sort_key=display_name',
                                   '?sort_dir=asc'])
def test_paging_or_filters_at_2_69_leave_the_down_cell_out(
        down_cell, bed, query):
    # Partial records cannot be filtered, sorted or paged: such a list
    # leaves the down cell out as before 2.69.
    client = _project_client(bed)
    up = cellrecords.add_instance(bed, client.project, client.user)[0]
    down = cellrecords.add_unreachable_instance(
        bed, down_cell, client.project, client.user).instance_uuid
    reply = client.get('/servers/detail', version='2.69')
    assert {s['id'] for s in reply.body['servers']} == {up.uuid, down}
    reply = client.get('/servers/detail' + query, version='2.69')
    assert reply.status == 200, reply
    assert [s['id'] for s in reply.body['servers']] == [up.uuid]


def test_at_2_69_only_paging_fails_when_told_not_to_skip(
        down_cell, bed, fail_on_down_cells):
    # Without paging the partial records answer for the down cell: there
    # is nothing to fail.
    client = _project_client(bed)
    down = cellrecords.add_unreachable_instance(
        bed, down_cell, client.project, client.user).instance_uuid
    reply = client.get('/servers/detail', version='2.69')
    assert reply.status == 200, reply
    assert [s['id'] for s in reply.body['servers']] == [down]
    reply = client.get('/servers?limit=5', version='2.69')
    assert reply.status == 500, reply
    assert down_cell.uuid in reply.body['computeFault']['message']


# -- GET /servers/{id} of a server in a down cell ----------------------------

SHOW_KEYS_V269 = {'OS-EXT-AZ:availability_zone', 'OS-EXT-STS:power_state',
                  'created', 'flavor', 'id', 'image', 'status', 'tenant_id',
                  'user_id', 'links'}


def test_show_at_2_69_is_built_from_the_request_spec(down_cell, bed):
    client = _project_client(bed)
    mapping = cellrecords.add_unreachable_instance(
        bed, down_cell, client.project, client.user)
    reply = client.get('/servers/%s' % mapping.instance_uuid,
                       version='2.69')
    assert reply.status == 200, reply
    server = reply.body['server']
    assert set(server) == SHOW_KEYS_V269
    spec = objects.RequestSpec.get_by_instance_uuid(
        nova_context.get_admin_context(), mapping.instance_uuid)
    flavor = spec.flavor
    assert server['id'] == mapping.instance_uuid
    assert server['status'] == 'UNKNOWN'
    assert server['OS-EXT-AZ:availability_zone'] == 'UNKNOWN'
    assert server['OS-EXT-STS:power_state'] == 0
    assert server['tenant_id'] == client.project
    assert server['user_id'] == client.user
    assert server['created'] == _isotime(
        _mapping(mapping.instance_uuid).created_at)
    assert server['flavor'] == {
        'disk': flavor.root_gb, 'ephemeral': flavor.ephemeral_gb,
        'extra_specs': dict(flavor.extra_specs), 'original_name':
        flavor.name, 'ram': flavor.memory_mb, 'swap': flavor.swap,
        'vcpus': flavor.vcpus}
    assert server['image']['id'] == '155d900f-4e14-4e4c-a73d-069cbf4541e6'
    assert server['image']['links'][0]['href'].endswith(
        '/%s/images/155d900f-4e14-4e4c-a73d-069cbf4541e6' % client.project)
    samples.assert_matches('servers/v2.69/server-get-resp.json',
                           reply.body, free=('server.flavor.extra_specs',))


def test_show_at_2_69_of_a_volume_backed_server_in_a_zone(down_cell, bed):
    client = _project_client(bed)
    mapping = cellrecords.add_unreachable_instance(
        bed, down_cell, client.project, client.user, image_id=None,
        availability_zone='az-down')
    reply = client.get('/servers/%s' % mapping.instance_uuid,
                       version='2.69')
    assert reply.status == 200, reply
    server = reply.body['server']
    assert server['image'] == ''
    assert server['OS-EXT-AZ:availability_zone'] == 'az-down'


def test_show_at_2_71_names_the_server_group(down_cell, bed):
    client = _project_client(bed)
    reply = client.post('/os-server-groups', {'server_group': {
        'name': 'g', 'policies': ['anti-affinity']}})
    assert reply.status == 200, reply
    group = objects.InstanceGroup.get_by_uuid(
        nova_context.get_admin_context(), reply.body['server_group']['id'])
    in_group = cellrecords.add_unreachable_instance(
        bed, down_cell, client.project, client.user, group=group)
    alone = cellrecords.add_unreachable_instance(
        bed, down_cell, client.project, client.user)

    reply = client.get('/servers/%s' % in_group.instance_uuid,
                       version='2.71')
    assert reply.status == 200, reply
    assert set(reply.body['server']) == SHOW_KEYS_V269 | {'server_groups'}
    assert reply.body['server']['server_groups'] == [group.uuid]
    samples.assert_matches('servers/v2.71/server-get-down-cell-resp.json',
                           reply.body, free=('server.flavor.extra_specs',))
    reply = client.get('/servers/%s' % alone.instance_uuid, version='2.71')
    assert reply.status == 200, reply
    assert reply.body['server']['server_groups'] == []
    # 2.69 and 2.70 do not show groups.
    reply = client.get('/servers/%s' % in_group.instance_uuid,
                       version='2.70')
    assert 'server_groups' not in reply.body['server']


def test_show_below_2_69_fails_naming_the_cell(down_cell, bed):
    client = _project_client(bed)
    mapping = cellrecords.add_unreachable_instance(
        bed, down_cell, client.project, client.user)
    reply = client.get('/servers/%s' % mapping.instance_uuid,
                       version='2.68')
    assert reply.status == 500, reply
    fault = reply.body['computeFault']
    assert fault['code'] == 500
    assert fault['message'] == (
        'Cell %s is not responding or returned an exception, hence '
        'instance info is not available.' % down_cell.uuid)
    assert 'Traceback' not in reply.text


@pytest.mark.parametrize('kind', ['no request spec', 'queued for delete'])
def test_show_at_2_69_of_a_server_known_as_gone_is_404(down_cell, bed,
                                                       kind):
    # Nova: a server without a spec (archived) or queued for delete is a
    # deleted server, not a partial one.
    client = _project_client(bed)
    mapping = cellrecords.add_unreachable_instance(
        bed, down_cell, client.project, client.user,
        with_spec=kind != 'no request spec',
        queued_for_delete=kind == 'queued for delete')
    reply = client.get('/servers/%s' % mapping.instance_uuid,
                       version='2.69')
    assert reply.status == 404, reply


def test_show_at_2_69_of_another_projects_server_is_404(down_cell, bed):
    owner, other = _project_client(bed), _project_client(bed)
    mapping = cellrecords.add_unreachable_instance(
        bed, down_cell, owner.project, owner.user)
    reply = other.get('/servers/%s' % mapping.instance_uuid,
                      version='2.69')
    assert reply.status == 404, reply


# -- GET /os-services ---------------------------------------------------------

@pytest.fixture(scope='module')
def down_cell_hosts(down_cell, bed):
    admin = nova_context.get_admin_context()
    hosts = ['down-host1', 'down-host2']
    for host in hosts:
        objects.HostMapping(context=admin, host=host,
                            cell_mapping=down_cell).create()
    cellrecords.add_compute(bed, 'up-host1')
    return hosts


def test_services_at_2_69_list_down_cell_computes(down_cell_hosts, admin):
    reply = admin.get('/os-services', version='2.69')
    assert reply.status == 200, reply
    services = reply.body['services']
    unknown = [s for s in services if s['status'] == 'UNKNOWN']
    assert unknown == [{'binary': 'nova-compute', 'host': host,
                        'status': 'UNKNOWN'} for host in down_cell_hosts]
    [up] = [s for s in services if s['host'] == 'up-host1']
    assert up['status'] == 'enabled' and up['state'] == 'up'
    samples.assert_matches('os-services/v2.69/services-list-get-resp.json',
                           {'services': unknown})
    # The host and binary filters apply to them too.
    reply = admin.get('/os-services?host=down-host2', version='2.69')
    assert reply.body['services'] == [{'binary': 'nova-compute',
                                       'host': 'down-host2',
                                       'status': 'UNKNOWN'}]
    reply = admin.get('/os-services?binary=nova-scheduler', version='2.69')
    assert reply.body['services'] == []
    # Before 2.69 they are left out.
    reply = admin.get('/os-services', version='2.68')
    assert reply.status == 200, reply
    hosts = {s['host'] for s in reply.body['services']}
    assert 'up-host1' in hosts
    assert not hosts & set(down_cell_hosts)
