"""rescue, unrescue and changePassword through the REST API of the
in-process cloud, read back from the server, its instance actions and the
guest on the fake hypervisor."""

from nova_clone.compute import power_state
from nova_clone.virt import fake
from tests.functional.test_server_rebuild import boot_from_volume
from tests.functional.test_server_rebuild import make_image


def _guest(server):
    return fake.get_hypervisor(
        server['OS-EXT-SRV-ATTR:host']).guests[server['id']]


def _action(api, server_id, body, expected=202, microversion=None):
    return api.post('/servers/%s/action' % server_id, body,
                    expected=expected, microversion=microversion)


def _conflict(resp):
    return resp.json()['conflictingRequest']['message']


def test_rescue_and_unrescue(cloud, admin_api):
    rescue_image = make_image(admin_api)
    server = admin_api.create_server()
    sid = server['id']
    resp = _action(admin_api, sid, {'rescue': {
        'adminPass': 'rescue-me', 'rescue_image_ref': rescue_image['id']}},
        expected=200)
    assert resp.json() == {'adminPass': 'rescue-me'}
    server = admin_api.wait_for_state(sid, 'RESCUE', task_state=None)
    assert server['OS-EXT-STS:vm_state'] == 'rescued'
    guest = _guest(server)
    assert guest.rescue_image_id == rescue_image['id']
    assert guest.admin_password == 'rescue-me'
    # The server keeps its own image; the rescue image only boots it.
    assert server['image']['id'] == cloud.image_id
    admin_api.wait_for_instance_action_event(
        sid, 'rescue', 'compute_rescue_instance', 'Success')

    resp = _action(admin_api, sid, {'rescue': None}, expected=409)
    assert _conflict(resp) == (
        "Cannot 'rescue' instance %s while it is in vm_state rescued"
        % sid)
    _action(admin_api, sid, {'unrescue': None})
    server = admin_api.wait_for_state(sid, 'ACTIVE', task_state=None)
    assert _guest(server).rescue_image_id is None
    assert server['OS-EXT-STS:power_state'] == power_state.RUNNING
    admin_api.wait_for_instance_action_event(
        sid, 'unrescue', 'compute_unrescue_instance', 'Success')
    resp = _action(admin_api, sid, {'unrescue': None}, expected=409)
    assert _conflict(resp) == (
        "Cannot 'unrescue' instance %s while it is in vm_state active"
        % sid)


def test_rescue_without_a_body_uses_the_servers_image(cloud, admin_api):
    server = admin_api.create_server()
    resp = _action(admin_api, server['id'], {'rescue': None},
                   expected=200)
    password = resp.json()['adminPass']
    assert len(password) == 12
    server = admin_api.wait_for_state(server['id'], 'RESCUE',
                                      task_state=None)
    assert _guest(server).rescue_image_id == cloud.image_id
    assert _guest(server).admin_password == password


def test_rescue_refusals(cloud, admin_api, demo_api):
    server = admin_api.create_server()
    sid = server['id']
    resp = _action(admin_api, sid, {'rescue': {
        'rescue_image_ref': '8d1fa9b3-8c55-4a52-a0e0-1c2c8c8c9c9c'}},
        expected=400)
    assert 'image' in resp.json()['badRequest']['message'].lower()
    _action(admin_api, sid, {'rescue': {'bogus': 1}}, expected=400)
    _action(demo_api, sid, {'rescue': None}, expected=404)
    server = admin_api.get_server(sid)
    assert server['status'] == 'ACTIVE'


def test_rescue_of_a_volume_backed_server(cloud, demo_api, admin_api):
    server = boot_from_volume(demo_api, cloud.image_id)
    sid = server['id']
    resp = _action(demo_api, sid, {'rescue': None}, expected=400,
                   microversion='2.86')
    assert resp.json()['badRequest']['message'] == (
        'Instance %s cannot be rescued: Cannot rescue a volume-backed '
        'instance' % sid)
    # From 2.87, with a rescue image that says where its disk goes.
    _action(demo_api, sid, {'rescue': {
        'rescue_image_ref': cloud.image_id}}, expected=400,
        microversion='2.87')
    rescue_image = make_image(admin_api, hw_rescue_device='disk',
                              hw_rescue_bus='virtio')
    _action(demo_api, sid, {'rescue': {
        'rescue_image_ref': rescue_image['id']}}, expected=200,
        microversion='2.87')
    demo_api.wait_for_state(sid, 'RESCUE', task_state=None)


def test_change_password(cloud, admin_api):
    server = admin_api.create_server()
    sid = server['id']
    resp = _action(admin_api, sid, {'changePassword': {
        'adminPass': 'n3w-pass'}})
    assert resp.text == ''
    server = admin_api.wait_for_state(sid, 'ACTIVE', task_state=None)
    assert _guest(server).admin_password == 'n3w-pass'
    admin_api.wait_for_instance_action_event(
        sid, 'changePassword', 'compute_set_admin_password', 'Success')
    _action(admin_api, sid, {'changePassword': {}}, expected=400)

    # A guest that is not running cannot take it: 409, the task clears.
    _guest(server).state = power_state.SHUTDOWN
    resp = _action(admin_api, sid, {'changePassword': {
        'adminPass': 'again'}}, expected=409)
    assert 'is not running' in _conflict(resp)
    server = admin_api.get_server(sid)
    assert server['OS-EXT-STS:task_state'] is None
    assert _guest(server).admin_password == 'n3w-pass'
