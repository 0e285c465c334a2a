"""Scenario 3 (resize, cold migration, confirm, revert) through the REST
API of the in-process cloud (two fake computes)."""

from nova_clone import context as nova_context
from nova_clone.placement import client as report

OLD_FLAVOR = '1'     # m1.tiny: 512 MiB, 1 GiB, 1 vCPU (the default)
NEW_FLAVOR = 'd2'    # ds1G: 1024 MiB, 10 GiB, 1 vCPU
SMALL_DISK = '42'    # m1.nano: 128 MiB, 1 GiB
BIG_DISK_ONLY = 'd1'  # ds512M: 512 MiB, 5 GiB


def _placement():
    return report.SchedulerReportClient()


def _allocations(consumer):
    """{provider name: resources} of a consumer."""
    client = _placement()
    allocs = client.get_allocations_for_consumer(
        nova_context.get_admin_context(), consumer)
    return {_rp_name(client, rp): a['resources'] for rp, a in allocs.items()}


def _rp_name(client, rp_uuid):
    return client.get('/resource_providers/%s' % rp_uuid,
                      version='1.14').json()['name']


def _host(api, server_id):
    return api.get_server(server_id)['OS-EXT-SRV-ATTR:host']


def _action(api, server_id, body, expected=202, microversion=None):
    return api.post('/servers/%s/action' % server_id, body,
                    expected=expected, microversion=microversion)


def _events(api, server_id, action_name):
    for action in api.get_instance_actions(server_id, microversion='2.84'):
        if action['action'] == action_name:
            details = api.get_instance_action_details(
                server_id, action['request_id'], microversion='2.84')
            return {e['event']: e['result'] for e in details['events']}
    return {}


def _migration(api, server_id):
    (migration,) = api.get('/os-migrations', microversion='2.80', params={
        'instance_uuid': server_id}).json()['migrations']
    return migration


def _port_hosts(api, server_id):
    return {p['binding:host_id'] for p in api.get_ports(device_id=server_id)}


def _resize_to_verify(api, server_id):
    _action(api, server_id, {'resize': {'flavorRef': NEW_FLAVOR}})
    return api.wait_for_state(server_id, 'VERIFY_RESIZE')


def test_resize_then_confirm(cloud, admin_api):
    server = admin_api.create_server()
    source = _host(admin_api, server['id'])

    resized = _resize_to_verify(admin_api, server['id'])
    dest = resized['OS-EXT-SRV-ATTR:host']
    assert dest != source
    assert resized['flavor']['original_name'] == 'ds1G'
    assert resized['OS-EXT-STS:task_state'] is None
    migration = _migration(admin_api, server['id'])
    assert (migration['status'], migration['migration_type'],
            migration['source_compute'], migration['dest_compute']) == (
        'finished', 'resize', source, dest)
    # The new flavor is the instance's on the destination; the old one
    # stays held on the source by the migration until the confirm.
    assert _allocations(server['id']) == {
        dest: {'VCPU': 1, 'MEMORY_MB': 1024, 'DISK_GB': 10}}
    assert _allocations(migration['uuid']) == {
        source: {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 1}}
    assert _port_hosts(admin_api, server['id']) == {dest}
    assert _events(admin_api, server['id'], 'resize') == {
        'conductor_migrate_server': 'Success', 'cold_migrate': 'Success',
        'compute_prep_resize': 'Success',
        'compute_resize_instance': 'Success',
        'compute_finish_resize': 'Success'}

    _action(admin_api, server['id'], {'confirmResize': None}, expected=204)
    admin_api.wait_for_migration_status(server['id'], ['confirmed'])
    confirmed = admin_api.wait_for_state(server['id'], 'ACTIVE')
    assert confirmed['OS-EXT-SRV-ATTR:host'] == dest
    assert _allocations(migration['uuid']) == {}
    assert _allocations(server['id']) == {
        dest: {'VCPU': 1, 'MEMORY_MB': 1024, 'DISK_GB': 10}}
    admin_api.wait_for_instance_action_event(
        server['id'], 'confirmResize', 'compute_confirm_resize', 'Success')


def test_resize_then_revert(cloud, admin_api):
    server = admin_api.create_server()
    source = _host(admin_api, server['id'])
    _resize_to_verify(admin_api, server['id'])
    migration = _migration(admin_api, server['id'])

    _action(admin_api, server['id'], {'revertResize': None})
    admin_api.wait_for_migration_status(server['id'], ['reverted'])
    reverted = admin_api.wait_for_state(server['id'], 'ACTIVE')
    assert reverted['OS-EXT-SRV-ATTR:host'] == source
    assert reverted['flavor']['original_name'] == 'm1.tiny'
    assert _allocations(server['id']) == {
        source: {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 1}}
    assert _allocations(migration['uuid']) == {}
    assert _port_hosts(admin_api, server['id']) == {source}
    assert _events(admin_api, server['id'], 'revertResize') == {
        'compute_revert_resize': 'Success',
        'compute_finish_revert_resize': 'Success'}
