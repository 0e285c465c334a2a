"""Scenario 5 through the REST API: attach, detach, swap and their
refusals, with the stand-in Cinder's records and the BDMs after each
step."""

from nova_clone import context as nova_context
from nova_clone import objects
from nova_clone.virt import fake
from tests.functional.api import samples
from tests.functional import cinder
from tests.functional import test_delete
from tests.functional import test_resize

ATTACHMENTS = '/servers/%s/os-volume_attachments'


def _guest_volumes(cloud, server_id):
    for host in cloud.compute_hosts:
        guest = fake.get_hypervisor(host).guests.get(server_id)
        if guest is not None:
            return dict(guest.volumes)
    raise AssertionError('no guest for %s' % server_id)


def _attach(api, server_id, volume_id, microversion='2.1', expected=200,
            **extra):
    body = {'volumeAttachment': dict({'volumeId': volume_id}, **extra)}
    return api.request('POST', ATTACHMENTS % server_id, body,
                       microversion=microversion, expected=expected)


def _detach(api, server_id, volume_id, expected=202, microversion='2.1'):
    return api.request('DELETE', (ATTACHMENTS % server_id) + '/' + volume_id,
                       microversion=microversion, expected=expected)


def _detached(api, server_id, volume_id, microversion='2.1'):
    """Detach and wait for the compute to finish."""
    _detach(api, server_id, volume_id, microversion=microversion)
    api.wait_for_instance_action_event(server_id, 'detach_volume',
                                       'compute_detach_volume', 'Success')


def _events(api, server_id, action):
    actions = api.get_instance_actions(server_id)
    (wanted,) = [a for a in actions if a['action'] == action]
    return api.get_instance_action_details(server_id, wanted['request_id'])


def test_attach_and_detach_at_2_1(cloud, demo_api, volumes):
    server = demo_api.create_server()
    volume = volumes.create()
    reply = _attach(demo_api, server['id'], volume['id']).json()
    samples.assert_matches(
        'os-volume_attachments/attach-volume-to-server-resp.json', reply)
    # The device is reserved before the answer: the BDM exists already.
    device = reply['volumeAttachment']['device']
    assert device == '/dev/vdb'
    volume = volumes.wait(volume['id'], 'in-use')
    assert [a['server_id'] for a in volume['attachments']] == [server['id']]
    (attachment,) = volumes.attachments(volume['id'])
    assert attachment['status'] == 'attached'
    assert attachment['instance'] == server['id']
    (bdm,) = cinder.bdms(server['id'])
    assert (bdm.volume_id, bdm.device_name, bdm.attachment_id,
            bdm.delete_on_termination) == (volume['id'], device,
                                           attachment['id'], False)
    assert device in _guest_volumes(cloud, server['id'])

    listed = demo_api.get(ATTACHMENTS % server['id'],
                          microversion='2.1').json()
    samples.assert_matches(
        'os-volume_attachments/list-volume-attachments-resp.json', listed)
    shown = demo_api.get((ATTACHMENTS % server['id']) + '/' + volume['id'],
                         microversion='2.1').json()
    samples.assert_matches(
        'os-volume_attachments/volume-attachment-detail-resp.json', shown)
    assert shown['volumeAttachment']['device'] == device
    server_view = demo_api.get_server(server['id'])
    assert server_view['os-extended-volumes:volumes_attached'][0][
        'id'] == volume['id']

    _detached(demo_api, server['id'], volume['id'])
    volumes.wait(volume['id'], 'available')
    assert volumes.attachments(volume['id']) == []
    assert cinder.bdms(server['id']) == []
    assert device not in _guest_volumes(cloud, server['id'])
    assert demo_api.get(ATTACHMENTS % server['id']).json() == {
        'volumeAttachments': []}
    for action in ('attach_volume', 'detach_volume'):
        events = _events(demo_api, server['id'], action)['events']
        assert [(e['event'], e['result']) for e in events] == [
            ('compute_' + action, 'Success')]


def test_attach_at_2_101_is_async_and_shows_new_fields(cloud, demo_api,
                                                       volumes):
    server = demo_api.create_server()
    volume = volumes.create()
    resp = _attach(demo_api, server['id'], volume['id'],
                   microversion='2.101', expected=202, tag='data',
                   delete_on_termination=True)
    assert resp.content == b''
    volumes.wait(volume['id'], 'in-use')
    (bdm,) = cinder.bdms(server['id'])
    assert (bdm.tag, bdm.delete_on_termination) == ('data', True)
    shown = demo_api.get((ATTACHMENTS % server['id']) + '/' + volume['id'],
                         microversion='2.101').json()
    samples.assert_matches(
        'os-volume_attachments/v2.101/volume-attachment-detail-resp.json',
        shown)
    assert shown['volumeAttachment'] == {
        'device': bdm.device_name, 'serverId': server['id'],
        'volumeId': volume['id'], 'tag': 'data',
        'delete_on_termination': True,
        'attachment_id': bdm.attachment_id, 'bdm_uuid': bdm.uuid}
    samples.assert_matches(
        'os-volume_attachments/v2.89/list-volume-attachments-resp.json',
        demo_api.get(ATTACHMENTS % server['id'],
                     microversion='2.89').json())
    at_279 = demo_api.get((ATTACHMENTS % server['id']) + '/' + volume['id'],
                          microversion='2.79').json()
    samples.assert_matches(
        'os-volume_attachments/v2.79/volume-attachment-detail-resp.json',
        at_279)

    # 2.85: the flag changes with a PUT of the same volume.
    body = samples.load('os-volume_attachments/v2.85/'
                        'update-volume-attachment-delete-flag-req.json')
    body['volumeAttachment'].update(volumeId=volume['id'],
                                    delete_on_termination=False)
    demo_api.request('PUT', (ATTACHMENTS % server['id']) + '/' +
                     volume['id'], body, microversion='2.85', expected=202)
    (bdm,) = cinder.bdms(server['id'])
    assert bdm.delete_on_termination is False
    body['volumeAttachment']['device'] = '/dev/vdz'
    resp = demo_api.request('PUT', (ATTACHMENTS % server['id']) + '/' +
                            volume['id'], body, microversion='2.85')
    assert resp.status_code == 400, resp.text

    _detached(demo_api, server['id'], volume['id'], microversion='2.101')
    volumes.wait(volume['id'], 'available')
    assert cinder.bdms(server['id']) == []


def test_attach_refusals(cloud, demo_api, volumes):
    server = demo_api.create_server()
    missing = '00000000-0000-0000-0000-0000000000aa'
    resp = _attach(demo_api, server['id'], missing, expected=None)
    assert resp.status_code == 404
    assert resp.json()['itemNotFound']['message'] == (
        'Volume %s could not be found.' % missing)

    multi = volumes.create(volume_type='multiattach')
    resp = _attach(demo_api, server['id'], multi['id'],
                   microversion='2.59', expected=None)
    assert resp.status_code == 400
    assert '2.60' in resp.json()['badRequest']['message']

    volume = volumes.create()
    _attach(demo_api, server['id'], volume['id'])
    volumes.wait(volume['id'], 'in-use')
    # Attached already, to this server or another.
    resp = _attach(demo_api, server['id'], volume['id'], expected=None)
    assert resp.status_code == 400, resp.text
    other = demo_api.create_server()
    resp = _attach(demo_api, other['id'], volume['id'], expected=None)
    assert resp.status_code == 400, resp.text
    assert 'in-use' in resp.json()['badRequest']['message']
    assert cinder.bdms(other['id']) == []
    assert len(volumes.attachments(volume['id'])) == 1

    # A server of zone az2 (its hosts' default), the volume in nova.
    with cloud.flags(default_availability_zone='az2'):
        zoned_server = demo_api.create_server()
    assert zoned_server['OS-EXT-AZ:availability_zone'] == 'az2'
    zoned = volumes.create()
    with cloud.flags(group='cinder', cross_az_attach=False):
        resp = _attach(demo_api, zoned_server['id'], zoned['id'],
                       expected=None)
    assert resp.status_code == 400, resp.text
    assert 'availability_zone' in resp.json()['badRequest']['message']
    assert volumes.get(zoned['id'])['status'] == 'available'

    resp = _attach(demo_api, server['id'], volume['id'][:-1] + 'x',
                   expected=None)
    assert resp.status_code == 400

    resp = _detach(demo_api, server['id'], missing, expected=404)
    assert resp.json()['itemNotFound']['message'] == (
        'Volume %s could not be found.' % missing)


def test_state_and_root_refusals(cloud, demo_api, volumes):
    root = volumes.create(imageRef=cloud.image_id)
    server = demo_api.create_server(imageRef='', block_device_mapping_v2=[{
        'uuid': root['id'], 'source_type': 'volume',
        'destination_type': 'volume', 'boot_index': 0}])
    resp = _detach(demo_api, server['id'], root['id'], expected=400)
    assert resp.json()['badRequest']['message'] == (
        'Cannot detach a root device volume')
    unattached = volumes.create()
    resp = _detach(demo_api, server['id'], unattached['id'], expected=404)
    assert 'is not attached to volume' in resp.json()[
        'itemNotFound']['message']

    _set_vm_state(server['id'], 'suspended')
    resp = _attach(demo_api, server['id'], unattached['id'], expected=409)
    assert resp.json()['conflictingRequest']['message'] == (
        "Cannot 'attach_volume' instance %s while it is in vm_state "
        "suspended" % server['id'])
    assert volumes.get(unattached['id'])['status'] == 'available'
    _set_vm_state(server['id'], 'active')


def _set_vm_state(server_id, vm_state):
    """What a suspend would leave (the action is not served yet)."""
    ctxt = nova_context.get_admin_context()
    mapping = objects.InstanceMapping.get_by_instance_uuid(ctxt, server_id)
    with nova_context.target_cell(ctxt, mapping.cell_mapping) as cctxt:
        instance = objects.Instance.get_by_uuid(cctxt, server_id)
        instance.vm_state = vm_state
        instance.save()


def test_failing_driver_attach_leaves_nothing(cloud, demo_api, volumes):
    server = demo_api.create_server()
    volume = volumes.create()
    with cloud.flags(group='fake_driver', fail_attach_volume=True):
        _attach(demo_api, server['id'], volume['id'])
        event = demo_api.wait_for_instance_action_event(
            server['id'], 'attach_volume', 'compute_attach_volume', 'Error')
    assert event['result'] == 'Error'
    volumes.wait(volume['id'], 'available')
    assert volumes.attachments(volume['id']) == []
    assert cinder.bdms(server['id']) == []
    assert demo_api.get_server(server['id'])['status'] == 'ACTIVE'
    assert _guest_volumes(cloud, server['id']) == {}


def _server_with_volume(api, volumes):
    """(server, volume, device) once Cinder shows the volume in use."""
    server = api.create_server()
    volume = volumes.create()
    device = _attach(api, server['id'], volume['id']).json()[
        'volumeAttachment']['device']
    volumes.wait(volume['id'], 'in-use')
    return server, volume, device


def test_failing_driver_detach_keeps_the_volume_in_use(cloud, demo_api,
                                                       volumes):
    server, volume, device = _server_with_volume(demo_api, volumes)
    with cloud.flags(group='fake_driver', fail_detach_volume=True):
        _detach(demo_api, server['id'], volume['id'])
        demo_api.wait_for_instance_action_event(
            server['id'], 'detach_volume', 'compute_detach_volume', 'Error')
    # Cinder showed it detaching meanwhile; it is back in use, attached
    # as before.
    volume = volumes.wait(volume['id'], 'in-use')
    (attachment,) = volumes.attachments(volume['id'])
    (bdm,) = cinder.bdms(server['id'])
    assert bdm.attachment_id == attachment['id']
    assert device in _guest_volumes(cloud, server['id'])
    assert demo_api.get_server(server['id'])['status'] == 'ACTIVE'
    _detached(demo_api, server['id'], volume['id'])
    volumes.wait(volume['id'], 'available')


def test_detach_of_a_volume_cinder_does_not_show_in_use(cloud, demo_api,
                                                        admin_api, volumes):
    server = demo_api.create_server()
    volume = volumes.create()
    _attach(demo_api, server['id'], volume['id'])
    volumes.wait(volume['id'], 'in-use')
    admin_api.request('POST', '/volumes/%s/action' % volume['id'],
                      {'os-reset_status': {'status': 'error'}},
                      base=volumes.base, expected=202)
    resp = _detach(demo_api, server['id'], volume['id'], expected=400)
    assert resp.json()['badRequest']['message'] == (
        "Invalid volume: Unable to detach volume. Volume status must be "
        "'in-use' and attach_status must be 'attached' to detach.")
    # Nothing was asked of the compute.
    assert [a['action'] for a in demo_api.get_instance_actions(
        server['id'])].count('detach_volume') == 0
    assert cinder.bdms(server['id'])


def test_cinder_refusing_the_attachment_leaves_no_bdm(cloud, demo_api,
                                                      volumes):
    server = demo_api.create_server()
    volume = volumes.create()
    # Another project's server holds it: Cinder refuses the reservation.
    volumes.request('POST', '/attachments', {'attachment': {
        'volume_uuid': volume['id'],
        'instance_uuid': '00000000-0000-0000-0000-0000000000bb'}},
        expected=200)
    resp = _attach(demo_api, server['id'], volume['id'], expected=400)
    assert resp.json()['badRequest']['message'] == (
        'Invalid volume: Volume %s status must be available or downloading '
        'to reserve, but the current status is reserved.' % volume['id'])
    assert cinder.bdms(server['id']) == []


def test_swap_volume_is_for_admins(cloud, demo_api, admin_api, volumes):
    server = demo_api.create_server()
    old, new = volumes.create(), volumes.create()
    _attach(demo_api, server['id'], old['id'])
    volumes.wait(old['id'], 'in-use')
    path = (ATTACHMENTS % server['id']) + '/' + old['id']
    body = {'volumeAttachment': {'volumeId': new['id']}}
    resp = demo_api.request('PUT', path, body, microversion='2.1')
    assert resp.status_code == 403
    admin_api.request('PUT', path, body, microversion='2.1', expected=202)
    # The event's end is recorded once Cinder has both volumes settled.
    admin_api.wait_for_instance_action_event(
        server['id'], 'swap_volume', 'compute_swap_volume', 'Success')
    volumes.wait(new['id'], 'in-use')
    volumes.wait(old['id'], 'available')
    (bdm,) = cinder.bdms(server['id'])
    assert bdm.volume_id == new['id']
    (attachment,) = volumes.attachments(new['id'])
    assert bdm.attachment_id == attachment['id']
    assert volumes.attachments(old['id']) == []
    events = _events(demo_api, server['id'], 'swap_volume')['events']
    assert [(e['event'], e['result']) for e in events] == [
        ('compute_swap_volume', 'Success')]


def test_standin_volume_view_by_role_and_version(cloud, demo_api,
                                                 admin_api, volumes):
    """Cinder shows the tenant and host attributes to admins only, the
    cluster from 3.61, the type's id from 3.63; a create answers without
    them (as Tempest's schemas check)."""
    created = volumes.request('POST', '/volumes', {'volume': {
        'size': 1, 'imageRef': cloud.image_id}}, expected=202,
        version='3.70').json()['volume']
    volumes.made.append(created['id'])
    admin_only = {'os-vol-tenant-attr:tenant_id', 'os-vol-host-attr:host',
                  'os-vol-mig-status-attr:migstat',
                  'os-vol-mig-status-attr:name_id'}
    assert not admin_only & set(created)
    assert 'volume_image_metadata' not in created
    volume = volumes.wait(created['id'], 'available')

    def shown(api, version):
        return cinder.Volumes(cloud, api).request(
            'GET', '/volumes/%s' % volume['id'], version=version,
            expected=200).json()['volume']

    for version in ('3.0', '3.44', '3.70'):
        mine = shown(demo_api, version)
        assert not admin_only & set(mine), version
        assert 'cluster_name' not in mine
    admin = cinder.Volumes(cloud, admin_api)
    admin.base = volumes.base
    at_344 = admin.request('GET', '/volumes/%s' % volume['id'],
                           expected=200).json()['volume']
    assert admin_only <= set(at_344)
    assert 'cluster_name' not in at_344 and 'volume_type_id' not in at_344
    at_361 = admin.request('GET', '/volumes/%s' % volume['id'],
                           version='3.61', expected=200).json()['volume']
    assert 'cluster_name' in at_361 and 'volume_type_id' not in at_361
    assert 'volume_type_id' in shown(demo_api, '3.63')


def _server_volumes(api, server_id):
    return api.get_server(server_id)['os-extended-volumes:volumes_attached']


def test_boot_from_image_to_volume_deleted_on_termination(cloud, demo_api,
                                                          volumes):
    server = demo_api.create_server(imageRef='', block_device_mapping_v2=[{
        'uuid': cloud.image_id, 'source_type': 'image',
        'destination_type': 'volume', 'volume_size': 1, 'boot_index': 0,
        'delete_on_termination': True}])
    (bdm,) = cinder.bdms(server['id'])
    assert (bdm.boot_index, bdm.source_type, bdm.delete_on_termination,
            bdm.volume_size) == (0, 'image', True, 1)
    volume = volumes.wait(bdm.volume_id, 'in-use')
    assert volume['bootable'] == 'true'
    (attachment,) = volumes.attachments(bdm.volume_id)
    assert attachment['id'] == bdm.attachment_id
    assert _server_volumes(demo_api, server['id']) == [
        {'id': bdm.volume_id, 'delete_on_termination': True}]
    assert list(_guest_volumes(cloud, server['id'])) == [bdm.device_name]
    demo_api.delete_server_and_wait(server['id'])
    volumes.wait(bdm.volume_id, None)


def test_boot_from_volume_kept_after_delete(cloud, demo_api, volumes):
    root = volumes.create(imageRef=cloud.image_id)
    server = demo_api.create_server(imageRef='', block_device_mapping_v2=[{
        'uuid': root['id'], 'source_type': 'volume',
        'destination_type': 'volume', 'boot_index': 0}])
    volumes.wait(root['id'], 'in-use')
    (bdm,) = cinder.bdms(server['id'])
    assert (bdm.volume_id, bdm.delete_on_termination) == (root['id'], False)
    data = volumes.create()
    _attach(demo_api, server['id'], data['id'], microversion='2.79',
            delete_on_termination=True)
    volumes.wait(data['id'], 'in-use')
    assert sorted(v['id'] for v in _server_volumes(
        demo_api, server['id'])) == sorted([root['id'], data['id']])
    demo_api.delete_server_and_wait(server['id'])
    volumes.wait(root['id'], 'available')
    assert volumes.attachments(root['id']) == []
    volumes.wait(data['id'], None)


def test_boot_from_a_volume_cinder_calls_not_bootable_is_refused(
        cloud, demo_api, volumes):
    root = volumes.create(imageRef=cloud.image_id)
    volumes.request('POST', '/volumes/%s/action' % root['id'],
                    {'os-set_bootable': {'bootable': False}}, expected=200)
    resp = demo_api.post('/servers', {'server': {
        'name': 'not-bootable', 'imageRef': '', 'flavorRef': '1',
        'networks': 'none', 'block_device_mapping_v2': [{
            'uuid': root['id'], 'source_type': 'volume',
            'destination_type': 'volume', 'boot_index': 0}]}},
        expected=400, microversion='2.37')
    assert resp.json()['badRequest']['message'] == (
        'Block Device %s is not bootable.' % root['id'])
    assert volumes.get(root['id'])['status'] == 'available'


def test_local_delete_releases_volumes_as_the_compute_does(
        cloud, admin_api, volumes):
    volumes = cinder.Volumes(cloud, admin_api)
    root = volumes.create(imageRef=cloud.image_id)
    server = admin_api.create_server(imageRef='', block_device_mapping_v2=[{
        'uuid': root['id'], 'source_type': 'volume',
        'destination_type': 'volume', 'boot_index': 0}])
    data = volumes.create()
    _attach(admin_api, server['id'], data['id'], microversion='2.79',
            delete_on_termination=True)
    volumes.wait(data['id'], 'in-use')
    host = admin_api.get_server(server['id'])['OS-EXT-SRV-ATTR:host']
    with test_delete.compute_forced_down(host):
        admin_api.delete_server(server['id'])
        # No compute involved: everything is released by the answer.
        assert admin_api.request(
            'GET', '/servers/%s' % server['id']).status_code == 404
    assert volumes.get(root['id'])['status'] == 'available'
    assert volumes.attachments(root['id']) == []
    volumes.wait(data['id'], None)
    volumes.made.remove(data['id'])
    volumes.delete_made()


def test_resize_takes_the_volumes_along_and_back(cloud, demo_api, admin_api,
                                                 volumes):
    server, volume, device = _server_with_volume(demo_api, volumes)
    source = admin_api.get_server(server['id'])['OS-EXT-SRV-ATTR:host']
    action = '/servers/%s/action' % server['id']

    def connected_to():
        vol = volumes.wait(volume['id'], 'in-use')
        (attachment,) = volumes.attachments(volume['id'])
        (bdm,) = cinder.bdms(server['id'])
        assert bdm.attachment_id == attachment['id']
        return [a['host_name'] for a in vol['attachments']]

    def on_guest(host):
        return device in fake.get_hypervisor(host).guests[
            server['id']].volumes

    demo_api.post(action, {'resize': {'flavorRef': test_resize.NEW_FLAVOR}},
                  expected=202)
    dest = admin_api.wait_for_state(server['id'], 'VERIFY_RESIZE')[
        'OS-EXT-SRV-ATTR:host']
    assert connected_to() == [dest]
    assert on_guest(dest)

    demo_api.post(action, {'revertResize': None}, expected=202)
    admin_api.wait_for_state(server['id'], 'ACTIVE', task_state=None)
    assert connected_to() == [source]
    assert on_guest(source)

    demo_api.post(action, {'resize': {'flavorRef': test_resize.NEW_FLAVOR}},
                  expected=202)
    admin_api.wait_for_state(server['id'], 'VERIFY_RESIZE')
    demo_api.post(action, {'confirmResize': None}, expected=204)
    admin_api.wait_for_state(server['id'], 'ACTIVE', task_state=None)
    assert connected_to() == [dest]
    assert on_guest(dest)
    _detached(demo_api, server['id'], volume['id'])
    volumes.wait(volume['id'], 'available')
    assert volumes.attachments(volume['id']) == []


def test_multiattach_volume_serves_two_servers(cloud, demo_api, volumes):
    """From 2.60 a multiattach volume attaches to a second server while
    in use; detaching from one leaves it in use by the other."""
    first, second = demo_api.create_server(), demo_api.create_server()
    multi = volumes.create(volume_type='multiattach')
    for server in (first, second):
        _attach(demo_api, server['id'], multi['id'], microversion='2.60')
        demo_api.wait_for_instance_action_event(
            server['id'], 'attach_volume', 'compute_attach_volume',
            'Success')
    assert volumes.get(multi['id'])['status'] == 'in-use'
    assert len(volumes.attachments(multi['id'])) == 2
    for server in (first, second):
        (bdm,) = cinder.bdms(server['id'])
        assert bdm.volume_id == multi['id']
        assert list(_guest_volumes(cloud, server['id'])) == [bdm.device_name]
    _detached(demo_api, first['id'], multi['id'], microversion='2.60')
    assert volumes.get(multi['id'])['status'] == 'in-use'
    assert len(volumes.attachments(multi['id'])) == 1
    _detached(demo_api, second['id'], multi['id'], microversion='2.60')
    volumes.wait(multi['id'], 'available')


def test_standin_cascade_delete_takes_the_snapshots(cloud, demo_api,
                                                    volumes):
    volume = volumes.create()
    volumes.request('POST', '/snapshots', {'snapshot': {
        'volume_id': volume['id'], 'name': 's'}}, expected=202)
    resp = volumes.request('DELETE', '/volumes/%s' % volume['id'])
    assert resp.status_code == 400
    assert 'have snapshots' in resp.json()['badRequest']['message']
    volumes.request('DELETE', '/volumes/%s?cascade=true' % volume['id'],
                    expected=202)
    assert volumes.get(volume['id']) is None
    assert volumes.request('GET', '/snapshots', expected=200).json()[
        'snapshots'] == []
