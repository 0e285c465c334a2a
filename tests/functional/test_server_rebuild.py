"""The ``rebuild`` server action through the REST API of the in-process
cloud: the answer per microversion, the states the server passes, the
instance action's events, the guest on the fake hypervisor, and the
refusals (409 by state, 400 by input, the scheduler's check of a new
image on the server's host)."""

import base64
import uuid

import pytest

from nova_clone.virt import fake


def _guest(server):
    return fake.get_hypervisor(
        server['OS-EXT-SRV-ATTR:host']).guests[server['id']]


def make_image(api, name=None, data=b'fake image bits', **properties):
    """An active image in the Glance stand-in, with ``properties``."""
    body = {'name': name or 'img-%s' % uuid.uuid4().hex[:8],
            'disk_format': 'qcow2', 'container_format': 'bare',
            'visibility': 'public'}
    body.update(properties)
    base = api.cloud.urls['image']
    image = api.request('POST', '/v2/images', body=body, base=base,
                        expected=201).json()
    api.request('PUT', '/v2/images/%s/file' % image['id'], base=base,
                data=data, expected=204,
                headers={'Content-Type': 'application/octet-stream'})
    return image


def _rebuild(api, server_id, expected=202, microversion=None, **values):
    return api.post('/servers/%s/action' % server_id, {'rebuild': values},
                    expected=expected, microversion=microversion)


@pytest.fixture
def new_image(admin_api):
    image = make_image(admin_api)
    yield image
    admin_api.request('DELETE', '/v2/images/%s' % image['id'],
                      base=admin_api.cloud.urls['image'])


def test_rebuild_with_new_image(cloud, admin_api, new_image):
    server = admin_api.create_server()
    user_data = base64.b64encode(b'#!/bin/sh\necho hi\n').decode()
    resp = _rebuild(admin_api, server['id'], microversion='2.57',
                    imageRef=new_image['id'], name='rebuilt',
                    metadata={'k': 'v'}, key_name=None,
                    user_data=user_data, adminPass='s3cret')
    body = resp.json()['server']
    # The short view before 2.75, with key_name and user_data.
    assert body['adminPass'] == 's3cret'
    assert body['key_name'] is None
    assert body['user_data'] == user_data
    assert body['name'] == 'rebuilt'
    assert body['metadata'] == {'k': 'v'}
    assert body['image']['id'] == new_image['id']
    assert body['status'] == 'REBUILD'
    assert 'OS-EXT-STS:task_state' not in body

    server = admin_api.wait_for_state(server['id'], 'ACTIVE',
                                      task_state=None)
    assert server['image']['id'] == new_image['id']
    assert server['OS-EXT-STS:power_state'] == 1
    assert _guest(server).image_id == new_image['id']
    for event in ('rebuild_server', 'compute_rebuild_instance'):
        admin_api.wait_for_instance_action_event(
            server['id'], 'rebuild', event, 'Success')


def test_kernel_and_ramdisk_follow_the_image(cloud, admin_api, new_image):
    kernel, ramdisk = make_image(admin_api), make_image(admin_api)
    ami = make_image(admin_api, kernel_id=kernel['id'],
                     ramdisk_id=ramdisk['id'])
    server = admin_api.create_server(image_id=ami['id'])
    shown = admin_api.get_server(server['id'], microversion='2.3')
    assert (shown['OS-EXT-SRV-ATTR:kernel_id'],
            shown['OS-EXT-SRV-ATTR:ramdisk_id']) == (kernel['id'],
                                                     ramdisk['id'])
    _rebuild(admin_api, server['id'], imageRef=new_image['id'])
    rebuilt = admin_api.wait_for_state(server['id'], 'ACTIVE',
                                       task_state=None)
    shown = admin_api.get_server(rebuilt['id'], microversion='2.3')
    assert (shown['OS-EXT-SRV-ATTR:kernel_id'],
            shown['OS-EXT-SRV-ATTR:ramdisk_id']) == ('', '')


def test_rebuild_answer_is_the_full_view_from_2_75(cloud, admin_api):
    server = admin_api.create_server()
    body = _rebuild(admin_api, server['id'], microversion='2.75',
                    imageRef=cloud.image_id).json()['server']
    assert body['OS-EXT-STS:task_state'] == 'rebuilding'
    assert body['OS-EXT-STS:vm_state'] == 'active'
    assert 'user_data' in body and 'key_name' in body
    # user_data under its own key only, even for an admin (Tempest's
    # schema refuses the OS-EXT-SRV-ATTR one here).
    assert 'OS-EXT-SRV-ATTR:user_data' not in body
    assert body['adminPass']
    (address,) = body['addresses']['private']
    assert set(address) == {'version', 'addr', 'OS-EXT-IPS:type',
                            'OS-EXT-IPS-MAC:mac_addr'}
    admin_api.wait_for_state(server['id'], 'ACTIVE', task_state=None)

    body = _rebuild(admin_api, server['id'], microversion='2.1',
                    imageRef=cloud.image_id).json()['server']
    assert 'key_name' not in body and 'user_data' not in body
    assert 'locked' not in body
    # The short view's addresses: no type, no MAC.
    (address,) = body['addresses']['private']
    assert set(address) == {'version', 'addr'}
    admin_api.wait_for_state(server['id'], 'ACTIVE', task_state=None)


def test_rebuild_preserve_ephemeral(cloud, admin_api, new_image):
    server = admin_api.create_server()
    generation = _guest(server).ephemeral_generation
    _rebuild(admin_api, server['id'], imageRef=new_image['id'],
             preserve_ephemeral=True)
    server = admin_api.wait_for_state(server['id'], 'ACTIVE',
                                      task_state=None)
    assert _guest(server).ephemeral_generation == generation
    _rebuild(admin_api, server['id'], imageRef=cloud.image_id)
    server = admin_api.wait_for_state(server['id'], 'ACTIVE',
                                      task_state=None)
    assert _guest(server).ephemeral_generation == generation + 1


def test_rebuild_keeps_a_stopped_server_stopped(cloud, admin_api,
                                                new_image):
    server = admin_api.create_server()
    host = server['OS-EXT-SRV-ATTR:host']
    # Stopped outside the API, then recorded as the power sync would.
    from nova_clone.compute import power_state
    _guest(server).state = power_state.SHUTDOWN
    _set_vm_state(cloud, server['id'], 'stopped', power_state.SHUTDOWN)
    _rebuild(admin_api, server['id'], imageRef=new_image['id'])
    server = admin_api.wait_for_state(server['id'], 'SHUTOFF',
                                      task_state=None)
    assert server['image']['id'] == new_image['id']
    assert fake.get_hypervisor(host).guests[server['id']].state == \
        power_state.SHUTDOWN


def _set_vm_state(cloud, server_id, vm_state, power):
    from nova_clone import context as nova_context
    from nova_clone import objects
    ctxt = nova_context.get_admin_context()
    mapping = objects.InstanceMapping.get_by_instance_uuid(ctxt, server_id)
    with nova_context.target_cell(ctxt, mapping.cell_mapping) as cctxt:
        instance = objects.Instance.get_by_uuid(cctxt, server_id)
        instance.vm_state = vm_state
        instance.power_state = power
        instance.save()


def test_rebuild_refused_by_the_host_keeps_the_server(cloud, admin_api):
    image = make_image(admin_api, hw_architecture='aarch64')
    server = admin_api.create_server()
    _rebuild(admin_api, server['id'], imageRef=image['id'])
    admin_api.wait_for_instance_action_event(
        server['id'], 'rebuild', 'rebuild_server', 'Error')
    server = admin_api.wait_for_state(server['id'], 'ACTIVE',
                                      task_state=None)
    # Nothing changed: the image is the old one, the guest still runs it.
    assert server['image']['id'] == cloud.image_id
    assert _guest(server).image_id == cloud.image_id


def test_rebuild_refusals(cloud, admin_api, demo_api):
    server = admin_api.create_server()
    sid = server['id']
    resp = _rebuild(admin_api, sid, expected=400,
                    imageRef=str(uuid.uuid4()))
    assert resp.json()['badRequest']['message'] == \
        'Cannot find image for rebuild'
    # key_name is not part of the body before 2.54.
    _rebuild(admin_api, sid, expected=400, microversion='2.53',
             imageRef=cloud.image_id, key_name=None)
    _rebuild(admin_api, sid, expected=400, microversion='2.57',
             imageRef=cloud.image_id, user_data='not base64!')
    _rebuild(admin_api, sid, expected=400, microversion='2.57',
             imageRef=cloud.image_id, personality=[])
    resp = _rebuild(admin_api, sid, expected=400, microversion='2.54',
                    imageRef=cloud.image_id, key_name='no-such-key')
    assert resp.json()['badRequest']['message'] == \
        'Invalid key_name provided.'
    # Another project's server does not exist for demo.
    _rebuild(demo_api, sid, expected=404, imageRef=cloud.image_id)

    # A server that never booted cannot be rebuilt: Nova's 409.
    with cloud.flags(fail_spawn={h: 'fatal' for h in cloud.compute_hosts},
                     group='fake_driver'):
        failed = admin_api.create_server(wait_for='ERROR')
    resp = _rebuild(admin_api, failed['id'], expected=409,
                    imageRef=cloud.image_id)
    assert resp.json()['conflictingRequest']['message'] == (
        "Cannot 'rebuild' instance %s while it is in launched_at None"
        % failed['id'])

    # Nor one with a task in progress.
    with cloud.flags(spawn_seconds=2, group='fake_driver'):
        _rebuild(admin_api, sid, imageRef=cloud.image_id)
        resp = _rebuild(admin_api, sid, expected=409,
                        imageRef=cloud.image_id)
        assert resp.json()['conflictingRequest']['message'].startswith(
            "Cannot 'rebuild' instance %s while it is in task_state "
            "rebuild" % sid)
        admin_api.wait_for_state(sid, 'ACTIVE', task_state=None)


def boot_from_volume(api, image_id):
    """A server whose root disk is a new volume made from ``image_id``."""
    return api.create_server(imageRef='', block_device_mapping_v2=[{
        'uuid': image_id, 'source_type': 'image',
        'destination_type': 'volume', 'volume_size': 1, 'boot_index': 0,
        'delete_on_termination': True}])


def test_rebuild_of_a_volume_backed_server(cloud, demo_api, new_image):
    server = boot_from_volume(demo_api, cloud.image_id)
    sid = server['id']
    # Another image: not before 2.93, and the root volume cannot be
    # re-imaged here at 2.93 either.
    for version in ('2.92', '2.93'):
        resp = _rebuild(demo_api, sid, expected=400, microversion=version,
                        imageRef=new_image['id'])
        assert 'volume-backed' in resp.json()['badRequest']['message']
    # The image its root volume came from: a rebuild in place.
    _rebuild(demo_api, sid, microversion='2.92', imageRef=cloud.image_id)
    server = demo_api.wait_for_state(sid, 'ACTIVE', task_state=None)
    assert server['image'] == ''
