"""Scenario 3 (resize, cold migration, confirm, revert) through the REST
API of the in-process cloud (two fake computes)."""

import time

import pytest

from nova_clone import context as nova_context
from nova_clone.placement import client as report
from tests.functional.api import samples

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

    # Tempest confirms with an empty object, the SDK and the CLI with null.
    _action(admin_api, server['id'], {'confirmResize': {}}, expected=204)
    admin_api.wait_for_migration_status(server['id'], ['confirmed'])
    confirmed = admin_api.wait_for_state(server['id'], 'ACTIVE')
    assert confirmed['OS-EXT-SRV-ATTR:host'] == dest
    assert _allocations(migration['uuid']) == {}
    assert _allocations(server['id']) == {
        dest: {'VCPU': 1, 'MEMORY_MB': 1024, 'DISK_GB': 10}}
    admin_api.wait_for_instance_action_event(
        server['id'], 'confirmResize', 'compute_confirm_resize', 'Success')
    assert _spec_flavor(server['id']) == NEW_FLAVOR


def _spec_flavor(server_id):
    """The flavor the server's request spec schedules its next move with."""
    from nova_clone import objects
    return objects.RequestSpec.get_by_instance_uuid(
        nova_context.get_admin_context(), server_id).flavor.flavorid


def test_resize_then_revert(cloud, admin_api):
    server = admin_api.create_server()
    source = _host(admin_api, server['id'])
    _resize_to_verify(admin_api, server['id'])
    migration = _migration(admin_api, server['id'])

    _action(admin_api, server['id'], {'revertResize': {}})
    admin_api.wait_for_migration_status(server['id'], ['reverted'])
    reverted = admin_api.wait_for_state(server['id'], 'ACTIVE')
    assert reverted['OS-EXT-SRV-ATTR:host'] == source
    assert reverted['flavor']['original_name'] == 'm1.tiny'
    assert _allocations(server['id']) == {
        source: {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 1}}
    assert _allocations(migration['uuid']) == {}
    assert _port_hosts(admin_api, server['id']) == {source}
    assert _spec_flavor(server['id']) == OLD_FLAVOR
    assert _events(admin_api, server['id'], 'revertResize') == {
        'compute_revert_resize': 'Success',
        'compute_finish_revert_resize': 'Success'}


def test_cold_migrate_then_confirm(cloud, admin_api):
    server = admin_api.create_server()
    source = _host(admin_api, server['id'])

    _action(admin_api, server['id'], {'migrate': {}})
    migrated = admin_api.wait_for_state(server['id'], 'VERIFY_RESIZE')
    dest = migrated['OS-EXT-SRV-ATTR:host']
    assert dest != source
    assert migrated['flavor']['original_name'] == 'm1.tiny'
    migration = _migration(admin_api, server['id'])
    assert (migration['migration_type'], migration['status']) == (
        'migration', 'finished')
    assert _allocations(migration['uuid']) == {
        source: {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 1}}
    assert _allocations(server['id']) == {
        dest: {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 1}}
    assert set(_events(admin_api, server['id'], 'migrate')) == {
        'conductor_migrate_server', 'cold_migrate', 'compute_prep_resize',
        'compute_resize_instance', 'compute_finish_resize'}

    _action(admin_api, server['id'], {'confirmResize': None}, expected=204)
    admin_api.wait_for_migration_status(server['id'], ['confirmed'])
    admin_api.wait_for_state(server['id'], 'ACTIVE')
    assert _allocations(migration['uuid']) == {}
    assert _port_hosts(admin_api, server['id']) == {dest}


def test_cold_migrate_to_a_named_host(cloud, admin_api):
    server = admin_api.create_server()
    source = _host(admin_api, server['id'])
    (other,) = set(cloud.compute_hosts) - {source}
    resp = _action(admin_api, server['id'], {'migrate': {'host': source}},
                   expected=400, microversion='2.56')
    assert resp.json()['badRequest']['message'] == (
        'Cannot migrate to the host where the server exists.')
    resp = _action(admin_api, server['id'],
                   {'migrate': {'host': 'no-such-host'}}, expected=400,
                   microversion='2.56')
    assert resp.json()['badRequest']['message'] == (
        'Compute host no-such-host could not be found.')
    # Before 2.56 the action takes no body.
    _action(admin_api, server['id'], {'migrate': {'host': other}},
            expected=400, microversion='2.55')

    _action(admin_api, server['id'], {'migrate': {'host': other}},
            microversion='2.56')
    migrated = admin_api.wait_for_state(server['id'], 'VERIFY_RESIZE')
    assert migrated['OS-EXT-SRV-ATTR:host'] == other


def test_migrate_is_for_admins(cloud, demo_api):
    server = demo_api.create_server()
    _action(demo_api, server['id'], {'migrate': None}, expected=403)


def test_resize_refusals(cloud, admin_api):
    server = admin_api.create_server()
    resp = _action(admin_api, server['id'],
                   {'resize': {'flavorRef': OLD_FLAVOR}}, expected=400)
    assert resp.json()['badRequest']['message'] == (
        'Resize requires a flavor change.')
    resp = _action(admin_api, server['id'],
                   {'resize': {'flavorRef': 'no-such-flavor'}}, expected=400)
    assert resp.json()['badRequest']['message'] == (
        'Unable to locate requested flavor.')
    _action(admin_api, server['id'], {'resize': {}}, expected=400)
    _action(admin_api, server['id'], {'confirmResize': {'x': 1}},
            expected=400)
    _action(admin_api, server['id'], {'confirmResize': None}, expected=409)
    resp = _action(admin_api, server['id'], {'revertResize': None},
                   expected=409)
    assert resp.json()['conflictingRequest']['message'] == (
        "Cannot 'revertResize' instance %s while it is in vm_state active"
        % server['id'])

    _resize_to_verify(admin_api, server['id'])
    resp = _action(admin_api, server['id'],
                   {'resize': {'flavorRef': BIG_DISK_ONLY}}, expected=409)
    assert resp.json()['conflictingRequest']['message'] == (
        "Cannot 'resize' instance %s while it is in vm_state resized"
        % server['id'])
    # Back down from ds1G's 10 GiB disk to 1 GiB: refused.
    _action(admin_api, server['id'], {'confirmResize': None}, expected=204)
    admin_api.wait_for_state(server['id'], 'ACTIVE')
    resp = _action(admin_api, server['id'],
                   {'resize': {'flavorRef': SMALL_DISK}}, expected=400)
    assert resp.json()['badRequest']['message'] == (
        'Server disk was unable to be resized because: Resize to a smaller '
        'root disk is not allowed.')


def _set_locked(server_id, locked):
    from nova_clone import objects
    ctxt = nova_context.get_admin_context()
    mapping = objects.InstanceMapping.get_by_instance_uuid(ctxt, server_id)
    with nova_context.target_cell(ctxt, mapping.cell_mapping) as cctxt:
        instance = objects.Instance.get_by_uuid(cctxt, server_id)
        instance.locked = locked
        instance.save()


def test_locked_server_cannot_be_resized_by_its_owner(cloud, demo_api):
    server = demo_api.create_server()
    _set_locked(server['id'], True)
    try:
        resp = _action(demo_api, server['id'],
                       {'resize': {'flavorRef': NEW_FLAVOR}}, expected=409)
        assert resp.json()['conflictingRequest']['message'] == (
            'Instance %s is locked' % server['id'])
    finally:
        _set_locked(server['id'], False)


def test_resize_over_quota(cloud, admin_api, demo_api):
    server = demo_api.create_server()
    quotas = '/os-quota-sets/%s' % demo_api.project_id
    admin_api.put(quotas, {'quota_set': {'ram': 1000}}, expected=200)
    try:
        resp = _action(demo_api, server['id'],
                       {'resize': {'flavorRef': NEW_FLAVOR}}, expected=403)
        assert resp.json()['forbidden']['message'] == (
            'Quota exceeded for ram: Requested 512, but already used 512 '
            'of 1000 ram')
    finally:
        admin_api.delete(quotas, expected=202)
    assert demo_api.get_server(server['id'])['status'] == 'ACTIVE'


def test_resize_with_no_valid_host(cloud, admin_api):
    flavor = admin_api.post('/flavors', {'flavor': {
        'name': 'too-much-disk', 'ram': 512, 'vcpus': 1, 'disk': 100000}},
        expected=200).json()['flavor']
    try:
        server = admin_api.create_server()
        source = _host(admin_api, server['id'])
        _action(admin_api, server['id'],
                {'resize': {'flavorRef': flavor['id']}})
        admin_api.wait_for_migration_status(server['id'], ['error'])
        event = admin_api.wait_for_instance_action_event(
            server['id'], 'resize', 'conductor_migrate_server', 'Error')
        assert 'No valid host' in event['details']
        after = admin_api.wait_for_state(server['id'], 'ACTIVE',
                                         task_state=None)
        assert after['OS-EXT-SRV-ATTR:host'] == source
        assert after['flavor']['original_name'] == 'm1.tiny'
        assert _allocations(server['id']) == {
            source: {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 1}}
        assert _allocations(_migration(admin_api, server['id'])['uuid']) \
            == {}
        assert 'No valid host' in _latest_fault(server['id']).message
        assert _spec_flavor(server['id']) == OLD_FLAVOR
    finally:
        admin_api.delete('/flavors/%s' % flavor['id'], expected=202)


def _latest_fault(server_id):
    from nova_clone import objects
    ctxt = nova_context.get_admin_context()
    mapping = objects.InstanceMapping.get_by_instance_uuid(ctxt, server_id)
    with nova_context.target_cell(ctxt, mapping.cell_mapping) as cctxt:
        return objects.InstanceFault.get_latest_for_instance(cctxt,
                                                             server_id)


def _sample_entry(relpath):
    """The sample's first migration that is not a live migration."""
    return next(m for m in samples.load(relpath)['migrations']
                if m.get('migration_type') != 'live-migration')


@pytest.mark.parametrize('version, sample', [
    ('2.1', 'os-migrations/migrations-get.json'),
    ('2.23', 'os-migrations/v2.23/migrations-get.json'),
    ('2.59', 'os-migrations/v2.59/migrations-get.json'),
    ('2.66', 'os-migrations/v2.66/migrations-get.json'),
    ('2.80', 'os-migrations/v2.80/migrations-get.json'),
])
def test_migration_list_matches_nova_samples(cloud, admin_api, version,
                                             sample):
    server = admin_api.create_server()
    _resize_to_verify(admin_api, server['id'])
    (ours,) = admin_api.get('/os-migrations', microversion=version, params={
        'instance_uuid': server['id']}).json()['migrations']
    assert not samples.differences(_sample_entry(sample), ours), \
        samples.differences(_sample_entry(sample), ours)


def test_migration_list_paging_and_filters(cloud, admin_api):
    server = admin_api.create_server()
    _action(admin_api, server['id'], {'migrate': None})
    admin_api.wait_for_state(server['id'], 'VERIFY_RESIZE')
    _action(admin_api, server['id'], {'revertResize': {}})
    admin_api.wait_for_migration_status(server['id'], ['reverted'])
    admin_api.wait_for_state(server['id'], 'ACTIVE')
    _resize_to_verify(admin_api, server['id'])

    def listed(version='2.80', **params):
        params.setdefault('instance_uuid', server['id'])
        return admin_api.get('/os-migrations', microversion=version,
                             params=params).json()

    both = listed()['migrations']
    # Newest first; the move that ended stays listed with its status.
    assert [(m['migration_type'], m['status']) for m in both] == [
        ('resize', 'finished'), ('migration', 'reverted')]
    page = listed(limit=1)
    assert [m['uuid'] for m in page['migrations']] == [both[0]['uuid']]
    (link,) = page['migrations_links']
    assert 'marker=%s' % both[0]['uuid'] in link['href']
    assert [m['uuid'] for m in listed(marker=both[0]['uuid'])[
        'migrations']] == [both[1]['uuid']]
    assert [m['uuid'] for m in listed(migration_type='migration')[
        'migrations']] == [both[1]['uuid']]
    assert listed(**{'changes-since': '2999-01-01T00:00:00Z'})[
        'migrations'] == []
    resp = admin_api.get('/os-migrations', microversion='2.80', expected=400,
                         params={'marker': 'no-such-migration'})
    assert resp.json()['badRequest']['message'] == (
        'Marker no-such-migration could not be found.')
    # Unknown parameters are refused from 2.59, ignored before.
    admin_api.get('/os-migrations', microversion='2.59', expected=400,
                  params={'bogus': '1'})
    admin_api.get('/os-migrations', microversion='2.58',
                  params={'bogus': '1'})


def test_unconfirmed_resize_is_confirmed_after_the_window(cloud, admin_api):
    server = admin_api.create_server()
    dest = _resize_to_verify(admin_api, server['id'])[
        'OS-EXT-SRV-ATTR:host']
    migration = _migration(admin_api, server['id'])
    manager = cloud.compute_service(dest).manager
    ctxt = nova_context.get_admin_context()
    # 0 (the default) never confirms.
    manager._poll_unconfirmed_resizes(ctxt)
    assert admin_api.get_server(server['id'])['status'] == 'VERIFY_RESIZE'
    with cloud.flags(resize_confirm_window=1):
        time.sleep(1.5)
        manager._poll_unconfirmed_resizes(ctxt)
    admin_api.wait_for_migration_status(server['id'], ['confirmed'])
    admin_api.wait_for_state(server['id'], 'ACTIVE')
    assert _allocations(migration['uuid']) == {}
    admin_api.wait_for_instance_action_event(
        server['id'], 'confirmResize', 'compute_confirm_resize', 'Success')


def test_source_restarted_before_it_moved_the_guest(cloud, admin_api):
    server = admin_api.create_server()
    source = _host(admin_api, server['id'])
    cloud.stop_compute(source)
    try:
        _action(admin_api, server['id'], {'resize': {'flavorRef': NEW_FLAVOR}})
        # The destination claimed and asked the (stopped) source to go on.
        deadline = time.monotonic() + 30
        while not any(m['dest_compute'] for m in admin_api.get(
                '/os-migrations', params={'instance_uuid': server['id']}
                ).json()['migrations']):
            assert time.monotonic() < deadline
            time.sleep(0.2)
    finally:
        cloud.start_compute(source)
    after = admin_api.wait_for_state(server['id'], 'ACTIVE', task_state=None)
    migration = admin_api.wait_for_migration_status(server['id'], ['error'])
    assert after['OS-EXT-SRV-ATTR:host'] == source
    assert after['flavor']['original_name'] == 'm1.tiny'
    assert _allocations(server['id']) == {
        source: {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 1}}
    assert _allocations(migration['uuid']) == {}
    # The queued resize_instance reached the restarted source after it
    # had settled the server: nothing more happened.
    time.sleep(1)
    assert admin_api.get_server(server['id'])['status'] == 'ACTIVE'


def _failing(monkeypatch, cloud, host, method, message):
    from nova_clone import exception
    driver = cloud.compute_service(host).manager.driver

    def fail(*args, **kwargs):
        raise exception.NovaException(message)
    monkeypatch.setattr(driver, method, fail)


def test_failure_on_the_source_puts_the_server_in_error(cloud, admin_api,
                                                        monkeypatch):
    server = admin_api.create_server()
    source = _host(admin_api, server['id'])
    _failing(monkeypatch, cloud, source, 'migrate_disk_and_power_off',
             'disk copy failed')
    _action(admin_api, server['id'], {'resize': {'flavorRef': NEW_FLAVOR}})
    failed = admin_api.wait_for_state(server['id'], 'ERROR')
    assert failed['fault']['message'] == 'disk copy failed'
    assert failed['OS-EXT-SRV-ATTR:host'] == source
    migration = admin_api.wait_for_migration_status(server['id'], ['error'])
    # The allocations are settled last (Placement may be away).
    _wait_for(lambda: _allocations(migration['uuid']) == {},
              'the migration still holds resources')
    # Nothing held on the destination the server never reached.
    assert _allocations(server['id']) == {
        source: {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 1}}
    assert _allocations(migration['uuid']) == {}
    admin_api.wait_for_instance_action_event(
        server['id'], 'resize', 'compute_resize_instance', 'Error')


def test_driver_refusal_on_the_source_leaves_the_server_as_it_was(
        cloud, admin_api, monkeypatch):
    from nova_clone import exception
    server = admin_api.create_server()
    source = _host(admin_api, server['id'])
    driver = cloud.compute_service(source).manager.driver

    def refuse(*args, **kwargs):
        raise exception.InstanceFaultRollback(exception.InternalError(
            err='Unable to resize disk down.'))
    monkeypatch.setattr(driver, 'migrate_disk_and_power_off', refuse)
    _action(admin_api, server['id'], {'resize': {'flavorRef': NEW_FLAVOR}})
    migration = admin_api.wait_for_migration_status(server['id'], ['error'])
    event = admin_api.wait_for_instance_action_event(
        server['id'], 'resize', 'compute_resize_instance', 'Error')
    assert event['details'] == 'Unable to resize disk down.', event
    after = admin_api.wait_for_state(server['id'], 'ACTIVE')
    assert after['OS-EXT-STS:task_state'] is None
    assert after['OS-EXT-SRV-ATTR:host'] == source
    assert after['flavor']['original_name'] == 'm1.tiny'
    assert _allocations(server['id']) == {
        source: {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 1}}
    assert _allocations(migration['uuid']) == {}
    admin_api.delete_server_and_wait(server['id'])


def test_failure_on_the_destination_puts_the_server_in_error(
        cloud, admin_api, monkeypatch):
    server = admin_api.create_server()
    source = _host(admin_api, server['id'])
    (dest,) = set(cloud.compute_hosts) - {source}
    _failing(monkeypatch, cloud, dest, 'finish_migration',
             'guest did not start')
    _action(admin_api, server['id'], {'resize': {'flavorRef': NEW_FLAVOR}})
    failed = admin_api.wait_for_state(server['id'], 'ERROR')
    assert failed['fault']['message'] == 'guest did not start'
    assert failed['OS-EXT-SRV-ATTR:host'] == dest
    migration = admin_api.wait_for_migration_status(server['id'], ['error'])
    _wait_for(lambda: _allocations(migration['uuid']) == {},
              'the migration still holds the source')
    assert _allocations(server['id']) == {
        dest: {'VCPU': 1, 'MEMORY_MB': 1024, 'DISK_GB': 10}}
    assert _allocations(migration['uuid']) == {}
    admin_api.wait_for_instance_action_event(
        server['id'], 'resize', 'compute_finish_resize', 'Error')


def test_delete_while_verify_resize_cleans_both_hosts(cloud, admin_api):
    from nova_clone.virt import fake
    server = admin_api.create_server()
    source = _host(admin_api, server['id'])
    dest = _resize_to_verify(admin_api, server['id'])[
        'OS-EXT-SRV-ATTR:host']
    migration = _migration(admin_api, server['id'])
    assert server['id'] in fake.get_hypervisor(source).guests
    admin_api.delete_server_and_wait(server['id'])
    assert _allocations(server['id']) == {}
    assert _allocations(migration['uuid']) == {}
    for host in (source, dest):
        assert server['id'] not in fake.get_hypervisor(host).guests


def test_drivers_get_what_a_real_driver_needs(cloud, admin_api,
                                             monkeypatch):
    """The contract the libvirt driver relies on: finish_migration gets
    the disk_info migrate_disk_and_power_off returned, untouched, and the
    instance already carries the new flavor; finish_revert_migration
    sees the old flavor back; confirm_migration knows both hosts."""
    seen = []
    for host in cloud.compute_hosts:
        driver = cloud.compute_service(host).manager.driver

        def hand_over(*args, _host=host, **kwargs):
            return '{"disks": "from-%s"}' % _host

        def finish(context, migration, instance, disk_info, *args,
                   _real=driver.finish_migration, **kwargs):
            seen.append(('finish', disk_info, instance.flavor.flavorid))
            return _real(context, migration, instance, disk_info, *args,
                         **kwargs)

        def revert(context, instance, *args,
                   _real=driver.finish_revert_migration, **kwargs):
            seen.append(('revert', instance.flavor.flavorid))
            return _real(context, instance, *args, **kwargs)

        def confirm(context, migration, *args,
                    _real=driver.confirm_migration, **kwargs):
            seen.append(('confirm', migration.source_compute,
                         migration.dest_compute))
            return _real(context, migration, *args, **kwargs)

        monkeypatch.setattr(driver, 'migrate_disk_and_power_off', hand_over)
        monkeypatch.setattr(driver, 'finish_migration', finish)
        monkeypatch.setattr(driver, 'finish_revert_migration', revert)
        monkeypatch.setattr(driver, 'confirm_migration', confirm)

    server = admin_api.create_server()
    source = _host(admin_api, server['id'])
    dest = _resize_to_verify(admin_api, server['id'])[
        'OS-EXT-SRV-ATTR:host']
    _action(admin_api, server['id'], {'revertResize': None})
    admin_api.wait_for_state(server['id'], 'ACTIVE')
    _resize_to_verify(admin_api, server['id'])
    _action(admin_api, server['id'], {'confirmResize': None}, expected=204)
    admin_api.wait_for_migration_status(server['id'], ['confirmed'])
    hand_over = '{"disks": "from-%s"}' % source
    assert seen == [('finish', hand_over, NEW_FLAVOR),
                    ('revert', OLD_FLAVOR),
                    ('finish', hand_over, NEW_FLAVOR),
                    ('confirm', source, dest)]


# Last in the module: it needs a cloud of three computes.
def test_failed_prep_resize_is_rescheduled_to_an_alternate(cloud_factory,
                                                           monkeypatch):
    from nova_clone import exception
    cloud = cloud_factory(computes=3)
    api = cloud.admin_api
    server = api.create_server()
    source = _host(api, server['id'])
    refused = []

    def refuse_once(rt):
        claim = rt.move_claim

        def move_claim(*args, **kwargs):
            if not refused:
                refused.append(rt.host)
                raise exception.ComputeResourcesUnavailable(
                    reason='no room for the move on %s' % rt.host)
            return claim(*args, **kwargs)
        return move_claim

    for host in set(cloud.compute_hosts) - {source}:
        rt = cloud.compute_service(host).manager.rt
        monkeypatch.setattr(rt, 'move_claim', refuse_once(rt))
    _action(api, server['id'], {'resize': {'flavorRef': NEW_FLAVOR}})
    resized = api.wait_for_state(server['id'], 'VERIFY_RESIZE')
    dest = resized['OS-EXT-SRV-ATTR:host']
    (first,) = refused
    assert dest not in (source, first)
    migration = _migration(api, server['id'])
    assert (migration['dest_compute'], migration['status']) == (dest,
                                                                'finished')
    # The refusing host holds nothing.
    assert _allocations(server['id']) == {
        dest: {'VCPU': 1, 'MEMORY_MB': 1024, 'DISK_GB': 10}}
    assert _allocations(migration['uuid']) == {
        source: {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 1}}
    _action(api, server['id'], {'confirmResize': None}, expected=204)
    api.wait_for_state(server['id'], 'ACTIVE')


def _placement_unreachable(monkeypatch, cloud, host, method):
    """``host``'s compute cannot reach Placement for ``method``; the
    list returned grows by one at each attempt."""
    from nova_clone import exception
    attempts = []

    def unreachable(*args, **kwargs):
        attempts.append(method)
        raise exception.PlacementAPIConnectFailure(reason='stopped')
    monkeypatch.setattr(cloud.compute_service(host).manager.rt.reportclient,
                        method, unreachable)
    return attempts


def _wait_for(predicate, what, timeout=30):
    end = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < end, what
        time.sleep(0.1)


def _resource_update(cloud, host):
    cloud.compute_service(host).manager.update_available_resource(
        nova_context.get_admin_context())


def _fail_on_the_destination(monkeypatch, cloud, admin_api):
    server = admin_api.create_server()
    source = _host(admin_api, server['id'])
    (dest,) = set(cloud.compute_hosts) - {source}
    _failing(monkeypatch, cloud, dest, 'finish_migration',
             'guest did not start')
    return server, source, dest


def _settled_once_placement_answers(api, monkeypatch, server_id, attempts,
                                    source, server_allocations):
    """The failed move's migration keeps the source's allocation while
    Placement stays away (the compute retries), then gives it up as soon
    as Placement answers; the server keeps ``server_allocations``."""
    migration = api.wait_for_migration_status(server_id, ['error'])
    _wait_for(lambda: len(attempts) >= 2, 'no second attempt')
    assert _allocations(migration['uuid']) == {
        source: {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 1}}
    monkeypatch.undo()
    _wait_for(lambda: _allocations(migration['uuid']) == {},
              'the migration still holds the source')
    assert _allocations(server_id) == server_allocations
    api.delete_server_and_wait(server_id)


def test_failed_move_placement_missed_is_settled_once_it_answers(
        cloud, admin_api, monkeypatch):
    """The destination failed while Placement was away: the server is
    ERROR at once, and the migration's allocation on the source is freed
    as soon as Placement answers again."""
    server, source, dest = _fail_on_the_destination(monkeypatch, cloud,
                                                    admin_api)
    attempts = _placement_unreachable(monkeypatch, cloud, dest,
                                      'delete_allocation_for_instance')
    _action(admin_api, server['id'], {'resize': {'flavorRef': NEW_FLAVOR}})
    failed = admin_api.wait_for_state(server['id'], 'ERROR')
    assert failed['fault']['message'] == 'guest did not start'
    _settled_once_placement_answers(admin_api, monkeypatch, server['id'],
                                    attempts, source, {
                                        dest: {'VCPU': 1, 'MEMORY_MB': 1024,
                                               'DISK_GB': 10}})


def test_failed_move_placement_missed_for_good_is_settled_by_the_update(
        cloud, admin_api, monkeypatch):
    """Placement stayed away longer than the compute retries: the
    migration kept the source allocation; once the server is deleted,
    the source's periodic update frees it."""
    from nova_clone.compute.host import failure_record
    monkeypatch.setattr(failure_record, 'RETRY_SECONDS', 0)
    server, source, dest = _fail_on_the_destination(monkeypatch, cloud,
                                                    admin_api)
    attempts = _placement_unreachable(monkeypatch, cloud, dest,
                                      'delete_allocation_for_instance')
    _action(admin_api, server['id'], {'resize': {'flavorRef': NEW_FLAVOR}})
    admin_api.wait_for_state(server['id'], 'ERROR')
    migration = admin_api.wait_for_migration_status(server['id'], ['error'])
    # The first attempt and the one retry, after which the compute gives up.
    _wait_for(lambda: len(attempts) == 2, 'no retry')
    monkeypatch.undo()
    time.sleep(1)
    assert _allocations(migration['uuid']) == {
        source: {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 1}}
    admin_api.delete_server_and_wait(server['id'])
    _resource_update(cloud, source)
    assert _allocations(migration['uuid']) == {}
    assert _allocations(server['id']) == {}


def test_failed_move_back_on_the_source_gets_its_allocation_back(
        cloud, admin_api, monkeypatch):
    """The source failed while Placement was away: the server is ERROR
    on the source at once, and gets its source allocation back from the
    migration as soon as Placement answers again."""
    server = admin_api.create_server()
    source = _host(admin_api, server['id'])
    _failing(monkeypatch, cloud, source, 'migrate_disk_and_power_off',
             'disk copy failed')
    attempts = _placement_unreachable(monkeypatch, cloud, source,
                                      'move_allocations')
    _action(admin_api, server['id'], {'resize': {'flavorRef': NEW_FLAVOR}})
    failed = admin_api.wait_for_state(server['id'], 'ERROR')
    assert failed['OS-EXT-SRV-ATTR:host'] == source
    _settled_once_placement_answers(admin_api, monkeypatch, server['id'],
                                    attempts, source, {
                                        source: {'VCPU': 1, 'MEMORY_MB': 512,
                                                 'DISK_GB': 1}})


def _database_away_at(monkeypatch, task_state, refusals):
    """Saving an instance that enters ``task_state``, and the next
    ``refusals`` - 1 fault or instance writes, fail as if the database
    were restarting."""
    from oslo_db import exception as db_exc

    from nova_clone import objects
    save = objects.Instance.save
    create = objects.InstanceFault.create
    refused = []

    def refuse(what):
        refused.append(what)
        raise db_exc.DBConnectionError('the database is restarting')

    def instance_save(instance, *args, **kwargs):
        if (not refused and instance.task_state == task_state) or \
                0 < len(refused) < refusals:
            refuse('instance')
        return save(instance, *args, **kwargs)

    def fault_create(fault):
        if 0 < len(refused) < refusals:
            refuse('fault')
        return create(fault)
    monkeypatch.setattr(objects.Instance, 'save', instance_save)
    monkeypatch.setattr(objects.InstanceFault, 'create', fault_create)
    return refused


def test_destination_step_the_database_missed_ends_in_error(
        cloud, admin_api, monkeypatch):
    """The database restarts as the destination starts finish_resize:
    the server ends ERROR on the source with a fault once it answers,
    never stuck in RESIZE."""
    server = admin_api.create_server()
    source = _host(admin_api, server['id'])
    refused = _database_away_at(monkeypatch, 'resize_finish', 3)
    _action(admin_api, server['id'], {'resize': {'flavorRef': NEW_FLAVOR}})
    failed = admin_api.wait_for_state(server['id'], 'ERROR', timeout=30)
    assert refused == ['instance', 'fault', 'fault']
    assert failed['OS-EXT-STS:task_state'] is None
    assert failed['OS-EXT-SRV-ATTR:host'] == source
    assert failed['fault']['message'] == 'DBConnectionError'
    migration = admin_api.wait_for_migration_status(server['id'], ['error'])
    _wait_for(lambda: _allocations(migration['uuid']) == {},
              'the migration still holds the source')
    assert _allocations(server['id']) == {
        source: {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 1}}
    admin_api.wait_for_instance_action_event(
        server['id'], 'resize', 'compute_finish_resize', 'Error')
    admin_api.delete_server_and_wait(server['id'])


def test_source_step_the_database_missed_leaves_the_server_as_it_was(
        cloud, admin_api, monkeypatch):
    """The database restarts as the source starts resize_instance: the
    guest was not touched, so the server stays ACTIVE on the source with
    a fault, its allocation back there."""
    server = admin_api.create_server()
    source = _host(admin_api, server['id'])
    refused = _database_away_at(monkeypatch, 'resize_migrating', 2)
    _action(admin_api, server['id'], {'resize': {'flavorRef': NEW_FLAVOR}})
    migration = admin_api.wait_for_migration_status(server['id'], ['error'])
    _wait_for(lambda: _allocations(migration['uuid']) == {},
              'the migration still holds the source')
    assert refused == ['instance', 'fault']
    after = admin_api.get_server(server['id'])
    assert (after['status'], after['OS-EXT-STS:task_state'],
            after['OS-EXT-SRV-ATTR:host']) == ('ACTIVE', None, source)
    assert _latest_fault(server['id']).message == 'DBConnectionError'
    assert _allocations(server['id']) == {
        source: {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 1}}
    admin_api.delete_server_and_wait(server['id'])


def _hypervisor_usage(api, host):
    for hyp in api.get('/os-hypervisors/detail',
                       microversion='2.1').json()['hypervisors']:
        if hyp['service']['host'] == host:
            return hyp['vcpus_used'], hyp['memory_mb_used']
    raise AssertionError('no hypervisor of %s' % host)


def test_open_resize_still_counts_on_both_hosts_after_restarts(cloud,
                                                                admin_api):
    """A resize waiting for confirmation holds the old flavor on the
    source and the new one on the destination, in the hypervisors'
    usage too, even once both computes restarted (their move claims
    were only in memory)."""
    server = admin_api.create_server()
    source = _host(admin_api, server['id'])
    idle = {}
    for host in cloud.compute_hosts:
        # What earlier tests deleted counts no more.
        _resource_update(cloud, host)
        idle[host] = _hypervisor_usage(admin_api, host)
    dest = _resize_to_verify(admin_api, server['id'])['OS-EXT-SRV-ATTR:host']
    for host in (source, dest):
        cloud.stop_compute(host)
        cloud.start_compute(host)
        _resource_update(cloud, host)
    # m1.tiny (1 vCPU, 512 MiB) stays on the source, ds1G (1 vCPU,
    # 1024 MiB) is on the destination.
    assert _hypervisor_usage(admin_api, source) == (
        idle[source][0], idle[source][1])
    assert _hypervisor_usage(admin_api, dest) == (
        idle[dest][0] + 1, idle[dest][1] + 1024)
    _action(admin_api, server['id'], {'confirmResize': None}, expected=204)
    admin_api.wait_for_state(server['id'], 'ACTIVE', task_state=None)
    _resource_update(cloud, source)
    assert _hypervisor_usage(admin_api, source) == (
        idle[source][0] - 1, idle[source][1] - 512)
    admin_api.delete_server_and_wait(server['id'])
