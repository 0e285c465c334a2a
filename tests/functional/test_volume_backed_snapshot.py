"""createImage of a volume-backed server through the REST API: a forced
Cinder snapshot of each volume, an active Glance image of size 0 mapping
them, and a server booted from that image on volumes made from the
snapshots."""

import json

from nova_clone.peers import cinder as cinder_standin
from tests.functional import cinder
from tests.functional.test_server_actions_image import _image
from tests.functional.test_volumes import _attach
from tests.functional.test_volumes import _events


def _snapshots(volumes):
    """The snapshots of the volumes this test made."""
    return [s for s in volumes.request('GET', '/snapshots/detail',
                                       expected=200).json()['snapshots']
            if s['volume_id'] in volumes.made]


def _volume_backed_server(demo_api, volumes):
    """A server on a root volume, with a second volume attached."""
    root = volumes.create(imageRef=demo_api.cloud.image_id)
    data = volumes.create(size=2)
    server = demo_api.create_server(imageRef='', block_device_mapping_v2=[{
        'uuid': root['id'], 'source_type': 'volume',
        'destination_type': 'volume', 'boot_index': 0}])
    _attach(demo_api, server['id'], data['id'])
    volumes.wait(data['id'], 'in-use')
    return server, root, data


def _create_image(api, server_id, expected=202, **values):
    return api.post('/servers/%s/action' % server_id,
                    {'createImage': dict({'name': 'vb-snap'}, **values)},
                    expected=expected, microversion='2.45')


def _clean_up(demo_api, volumes, server_ids, image_id=None):
    for server_id in server_ids:
        demo_api.delete_server_and_wait(server_id)
    if image_id:
        _image(demo_api, image_id)
        demo_api.request('DELETE', '/v2/images/%s' % image_id,
                         base=demo_api.cloud.urls['image'], expected=204)
    for snap in _snapshots(volumes):
        volumes.request('DELETE', '/snapshots/%s' % snap['id'],
                        expected=202)


def test_snapshot_of_a_volume_backed_server_boots_a_copy(cloud, demo_api,
                                                         volumes):
    server, root, data = _volume_backed_server(demo_api, volumes)
    image_id = _create_image(demo_api, server['id'],
                             metadata={'purpose': 'copy'}).json()['image_id']
    image = _image(demo_api, image_id).json()
    assert (image['status'], image['size'], image['name']) == (
        'active', 0, 'vb-snap')
    assert (image['purpose'], image['bdm_v2'], image['image_type']) == (
        'copy', 'true', 'snapshot')
    assert image['root_device_name'] == '/dev/vda'
    # Cinder holds a snapshot of each volume, taken while in use.
    snaps = {s['volume_id']: s for s in _snapshots(volumes)}
    assert set(snaps) == {root['id'], data['id']}
    assert {s['name'] for s in snaps.values()} == {'snapshot for vb-snap'}
    mappings = {m['snapshot_id']: m for m in json.loads(
        image['block_device_mapping'])}
    root_map = mappings[snaps[root['id']]['id']]
    data_map = mappings[snaps[data['id']]['id']]
    assert (root_map['source_type'], root_map['destination_type'],
            root_map['boot_index'], root_map['device_name']) == (
        'snapshot', 'volume', 0, '/dev/vda')
    assert (data_map['boot_index'], data_map['device_name']) == (
        None, '/dev/vdb')
    assert not {'volume_id', 'connection_info', 'attachment_id',
                'instance_uuid'} & {k for k, v in root_map.items()
                                    if v is not None}
    details = _events(demo_api, server['id'], 'createImage')
    assert [(e['event'], e['result']) for e in details['events']] == [
        ('api_snapshot_instance', 'Success')]
    assert demo_api.get_server(server['id'])['status'] == 'ACTIVE'

    # Booting the image makes a volume of each snapshot, the root first.
    copy = demo_api.create_server(image_id=image_id)
    made = {b.snapshot_id: b for b in cinder.bdms(copy['id'])}
    assert set(made) == set(mappings)
    copy_root = made[snaps[root['id']]['id']]
    assert (copy_root.boot_index, copy_root.source_type,
            copy_root.device_name) == (0, 'snapshot', '/dev/vda')
    for bdm in made.values():
        assert bdm.volume_id not in (root['id'], data['id'])
        volume = volumes.wait(bdm.volume_id, 'in-use')
        assert volume['snapshot_id'] == bdm.snapshot_id
        volumes.made.append(bdm.volume_id)
    shown = demo_api.get_server(copy['id'])
    assert shown['image']['id'] == image_id
    assert sorted(v['id'] for v in shown[
        'os-extended-volumes:volumes_attached']) == sorted(
        b.volume_id for b in made.values())
    _clean_up(demo_api, volumes, [server['id'], copy['id']], image_id)


def test_snapshot_over_the_snapshot_quota_takes_none(cloud, demo_api,
                                                     volumes, monkeypatch):
    server, root, data = _volume_backed_server(demo_api, volumes)
    monkeypatch.setitem(cinder_standin.QUOTAS, 'snapshots', 1)
    resp = _create_image(demo_api, server['id'], expected=403)
    assert resp.json()['forbidden']['message'] == (
        'Quota exceeded for resources: snapshots')
    assert _snapshots(volumes) == []
    assert 'vb-snap' not in [i['name'] for i in demo_api.get_images()]
    _clean_up(demo_api, volumes, [server['id']])


def test_snapshot_glance_refuses_leaves_no_volume_snapshot(
        cloud, demo_api, volumes, monkeypatch):
    from nova_clone import exception
    from nova_clone.image import glance

    server, root, data = _volume_backed_server(demo_api, volumes)

    def refuse(self, context, image_info, data=None):
        raise exception.ImageQuotaExceeded(image_id=None)
    monkeypatch.setattr(glance.API, 'create', refuse)
    _create_image(demo_api, server['id'], expected=403)
    monkeypatch.undo()
    assert _snapshots(volumes) == []
    assert demo_api.get_server(server['id'])['status'] == 'ACTIVE'
    _clean_up(demo_api, volumes, [server['id']])


def _guest(cloud, server_id):
    from nova_clone.virt import fake
    for host in cloud.compute_hosts:
        guest = fake.get_hypervisor(host).guests.get(server_id)
        if guest is not None:
            return guest
    raise AssertionError('no guest for %s' % server_id)


def _frozen_at_each_snapshot(monkeypatch, guest):
    from nova_clone.volume import cinder as cinder_client
    seen = []
    create = cinder_client.API.create_snapshot

    def watched(self, *args, **kwargs):
        seen.append(guest.quiesced)
        return create(self, *args, **kwargs)
    monkeypatch.setattr(cinder_client.API, 'create_snapshot', watched)
    return seen


def _thawed(guest, timeout=10):
    import time
    deadline = time.monotonic() + timeout
    while guest.quiesced:
        assert time.monotonic() < deadline, 'the guest stays frozen'
        time.sleep(0.05)


def test_a_running_guest_is_frozen_while_its_volumes_are_snapshotted(
        cloud, demo_api, volumes, monkeypatch):
    server, root, data = _volume_backed_server(demo_api, volumes)
    guest = _guest(cloud, server['id'])
    seen = _frozen_at_each_snapshot(monkeypatch, guest)
    image_id = _create_image(demo_api, server['id']).json()['image_id']
    assert seen == [True, True]
    _thawed(guest)
    _clean_up(demo_api, volumes, [server['id']], image_id)


def test_a_guest_that_cannot_be_frozen_is_snapshotted_as_it_is(
        cloud, demo_api, volumes, monkeypatch):
    server, root, data = _volume_backed_server(demo_api, volumes)
    guest = _guest(cloud, server['id'])
    for host in cloud.compute_hosts:
        driver = cloud.compute_service(host).manager.driver

        def unsupported(*args, **kwargs):
            raise NotImplementedError()
        monkeypatch.setattr(driver, 'quiesce', unsupported)
    seen = _frozen_at_each_snapshot(monkeypatch, guest)
    image_id = _create_image(demo_api, server['id']).json()['image_id']
    assert seen == [False, False]
    assert _image(demo_api, image_id).json()['status'] == 'active'
    _clean_up(demo_api, volumes, [server['id']], image_id)


def test_a_stopped_server_is_snapshotted_without_freezing(
        cloud, demo_api, volumes, monkeypatch):
    server, root, data = _volume_backed_server(demo_api, volumes)
    demo_api.post('/servers/%s/action' % server['id'], {'os-stop': None},
                  expected=202)
    demo_api.wait_for_state(server['id'], 'SHUTOFF')
    guest = _guest(cloud, server['id'])
    seen = _frozen_at_each_snapshot(monkeypatch, guest)
    image_id = _create_image(demo_api, server['id']).json()['image_id']
    assert seen == [False, False]
    _clean_up(demo_api, volumes, [server['id']], image_id)
