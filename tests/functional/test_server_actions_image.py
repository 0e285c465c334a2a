"""createImage and createBackup through the REST API of the in-process
cloud: the answer per microversion, the image in the Glance stand-in with
Nova's properties, the server's state and events, backup rotation, and a
server booted from the snapshot."""

import time

from tests.functional.test_server_rebuild import make_image


def _image(api, image_id, expected=200):
    return api.request('GET', '/v2/images/%s' % image_id,
                       base=api.cloud.urls['image'], expected=expected)


def _action(api, server_id, body, expected=202, microversion=None):
    return api.post('/servers/%s/action' % server_id, body,
                    expected=expected, microversion=microversion)


def _wait_gone(api, image_id, timeout=20):
    deadline = time.monotonic() + timeout
    while _image(api, image_id, expected=(200, 404)).status_code != 404:
        assert time.monotonic() < deadline, 'image %s still there' % image_id
        time.sleep(0.2)


def _wait_idle(api, server_id, status='ACTIVE'):
    return api.wait_for_state(server_id, status, task_state=None)


def test_create_image_of_a_server(cloud, admin_api, demo_api):
    source = make_image(admin_api, os_distro='cirros', hw_disk_bus='virtio',
                        cache_in_nova='True')
    server = demo_api.create_server(image_id=source['id'])
    resp = _action(demo_api, server['id'], {'createImage': {
        'name': 'snap-1', 'metadata': {'purpose': 'test'}}},
        microversion='2.1')
    assert resp.text == ''
    image_id = resp.headers['Location'].rsplit('/', 1)[1]
    assert resp.headers['Location'].endswith('/images/%s' % image_id)

    admin_api.wait_for_instance_action_event(
        server['id'], 'createImage', 'compute_snapshot_instance', 'Success')
    _wait_idle(demo_api, server['id'])
    image = _image(demo_api, image_id).json()
    assert image['status'] == 'active'
    assert image['name'] == 'snap-1'
    assert image['visibility'] == 'private'
    assert image['owner'] == demo_api.project_id
    assert image['image_type'] == 'snapshot'
    assert image['instance_uuid'] == server['id']
    assert image['base_image_ref'] == source['id']
    assert image['user_id'] == server['user_id']
    assert image['purpose'] == 'test'
    # The source image's own properties are inherited, but not those
    # [DEFAULT] non_inheritable_image_properties names.
    assert image['os_distro'] == 'cirros'
    assert image['hw_disk_bus'] == 'virtio'
    assert 'cache_in_nova' not in image
    assert image['disk_format'] == 'qcow2'
    assert image['size'] > 0

    # The snapshot boots.
    clone = demo_api.create_server(image_id=image_id)
    assert clone['image']['id'] == image_id


def test_create_image_answer_from_2_45(cloud, admin_api):
    server = admin_api.create_server()
    resp = _action(admin_api, server['id'], {'createImage': {
        'name': 'snap-245'}}, microversion='2.45')
    image_id = resp.json()['image_id']
    assert 'Location' not in resp.headers
    admin_api.wait_for_instance_action_event(
        server['id'], 'createImage', 'compute_snapshot_instance', 'Success')
    assert _image(admin_api, image_id).json()['status'] == 'active'


def test_create_image_refusals(cloud, admin_api):
    server = admin_api.create_server()
    sid = server['id']
    _action(admin_api, sid, {'createImage': {}}, expected=400)
    _action(admin_api, sid, {'createImage': {'name': 'x', 'extra': 1}},
            expected=400)
    with cloud.flags(spawn_seconds=2, group='fake_driver'):
        admin_api.post('/servers/%s/action' % sid,
                       {'rebuild': {'imageRef': cloud.image_id}},
                       expected=202)
        for key in ('createImage', 'createBackup'):
            body = {'name': 'busy'}
            if key == 'createBackup':
                body.update(backup_type='daily', rotation=1)
            resp = _action(admin_api, sid, {key: body}, expected=409)
            assert resp.json()['conflictingRequest']['message'] == (
                "Cannot '%s' instance %s while it is in task_state "
                "rebuilding" % (key, sid))
        _wait_idle(admin_api, sid)
    # No image was left behind by the refusals.
    names = [i['name'] for i in admin_api.get_images()]
    assert 'busy' not in names


def test_create_backup_rotation(cloud, admin_api):
    server = admin_api.create_server()
    sid = server['id']
    made = []
    for n in range(3):
        resp = _action(admin_api, sid, {'createBackup': {
            'name': 'backup-%d' % n, 'backup_type': 'daily',
            'rotation': '2'}}, microversion='2.45')
        made.append(resp.json()['image_id'])
        _wait_idle(admin_api, sid)
    # The oldest went with the third backup.
    _wait_gone(admin_api, made[0])
    for image_id in made[1:]:
        image = _image(admin_api, image_id).json()
        assert image['status'] == 'active'
        assert image['image_type'] == 'backup'
        assert image['backup_type'] == 'daily'
        assert image['instance_uuid'] == sid

    # Before 2.45: a Location header, unless rotation 0 deletes it all.
    resp = _action(admin_api, sid, {'createBackup': {
        'name': 'weekly', 'backup_type': 'weekly', 'rotation': 1}},
        microversion='2.44')
    assert resp.headers['Location'].rsplit('/', 1)[1]
    _wait_idle(admin_api, sid)
    resp = _action(admin_api, sid, {'createBackup': {
        'name': 'weekly-0', 'backup_type': 'weekly', 'rotation': 0}},
        microversion='2.44')
    assert 'Location' not in resp.headers
    _action(admin_api, sid, {'createBackup': {
        'name': 'bad', 'backup_type': 'daily', 'rotation': -1}},
        expected=400)
