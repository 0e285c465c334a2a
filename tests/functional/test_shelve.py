"""Shelve, shelveOffload and unshelve through the REST API, with the
volumes of the server followed in the Cinder stand-in."""

import time

from nova_clone import context as nova_context
from nova_clone.placement import client as report
from nova_clone.virt import fake
from tests.functional import cinder

ATTACHMENTS = '/servers/%s/os-volume_attachments'


def _allocations(server_id):
    return report.SchedulerReportClient().get_allocations_for_consumer(
        nova_context.get_admin_context(), server_id)


def _action(api, server_id, body, expected=202, microversion=None):
    return api.request('POST', '/servers/%s/action' % server_id, body,
                       expected=expected, microversion=microversion)


def _guest(cloud, server_id):
    for host in cloud.compute_hosts:
        guest = fake.get_hypervisor(host).guests.get(server_id)
        if guest is not None:
            return host, guest
    return None, None


def _image_named(api, name):
    return [i for i in api.get_images() if i['name'] == name]


def _bound_hosts(api, server_id):
    """{port id: binding:host_id} of the server's ports (admin view)."""
    return {p['id']: p['binding:host_id']
            for p in api.get_ports(device_id=server_id)}


def test_shelve_offload_attach_unshelve(cloud, demo_api, admin_api,
                                        volumes):
    server = demo_api.create_server()
    ports = _bound_hosts(admin_api, server['id'])
    _action(demo_api, server['id'], {'shelve': {}})
    offloaded = demo_api.wait_for_state(server['id'], 'SHELVED_OFFLOADED')
    # shelved_offload_time 0: offloaded at once, no host, no allocation,
    # its ports still its own but bound nowhere.
    assert admin_api.get_server(server['id'])[
        'OS-EXT-SRV-ATTR:host'] is None
    assert _allocations(server['id']) == {}
    assert _guest(cloud, server['id']) == (None, None)
    assert _bound_hosts(admin_api, server['id']) == dict.fromkeys(ports, '')
    (snapshot,) = _image_named(demo_api, '%s-shelved' % offloaded['name'])
    assert snapshot['status'] == 'active'
    events = demo_api.wait_for_instance_action_event(
        server['id'], 'shelve', 'compute_shelve_instance', 'Success')
    assert events['result'] == 'Success'

    # Attaching needs no compute: the attachment completes at once.
    volume = volumes.create()
    body = {'volumeAttachment': {'volumeId': volume['id']}}
    resp = demo_api.request('POST', ATTACHMENTS % server['id'], body,
                            microversion='2.19', expected=409)
    assert 'vm_state shelved_offloaded' in resp.json()[
        'conflictingRequest']['message']
    reply = demo_api.request('POST', ATTACHMENTS % server['id'], body,
                             microversion='2.20', expected=200).json()[
        'volumeAttachment']
    assert reply['device'] is None
    assert volumes.get(volume['id'])['status'] == 'in-use'
    (attachment,) = volumes.attachments(volume['id'])
    (bdm,) = cinder.bdms(server['id'])
    assert bdm.attachment_id == attachment['id']
    assert demo_api.wait_for_instance_action_event(
        server['id'], 'attach_volume', 'api_attach_volume', 'Success')

    _action(demo_api, server['id'], {'unshelve': None})
    demo_api.wait_for_state(server['id'], 'ACTIVE')
    host, guest = _guest(cloud, server['id'])
    assert admin_api.get_server(server['id'])['OS-EXT-SRV-ATTR:host'] == host
    assert _allocations(server['id'])
    assert _bound_hosts(admin_api, server['id']) == dict.fromkeys(ports,
                                                                  host)
    (bdm,) = cinder.bdms(server['id'])
    # Connected beside the root disk, not in its place.
    assert bdm.device_name == '/dev/vdb'
    assert bdm.device_name in guest.volumes
    volume = volumes.get(volume['id'])
    assert volume['status'] == 'in-use'
    (attachment,) = volumes.attachments(volume['id'])
    assert (attachment['id'], attachment['status']) == (bdm.attachment_id,
                                                         'attached')
    assert attachment['connection_info']
    # The snapshot served its purpose.
    assert _image_named(demo_api, '%s-shelved' % offloaded['name']) == []
    demo_api.wait_for_instance_action_event(
        server['id'], 'unshelve', 'compute_unshelve_instance', 'Success')


def test_shelve_keeps_host_until_offloaded(cloud, demo_api, admin_api):
    server = demo_api.create_server()
    with cloud.flags(shelved_offload_time=-1):
        _action(demo_api, server['id'], {'shelve': None})
        demo_api.wait_for_state(server['id'], 'SHELVED', task_state=None)
    host, guest = _guest(cloud, server['id'])
    assert admin_api.get_server(server['id'])['OS-EXT-SRV-ATTR:host'] == host
    assert _allocations(server['id'])
    # A zone or host is for offloaded servers only.
    resp = _action(demo_api, server['id'],
                   {'unshelve': {'availabilityZone': 'nova'}},
                   expected=409, microversion='2.77')
    assert 'SHELVED_OFFLOADED' in resp.json()['conflictingRequest'][
        'message']
    _action(demo_api, server['id'], {'unshelve': None})
    demo_api.wait_for_state(server['id'], 'ACTIVE')
    assert _guest(cloud, server['id'])[0] == host

    with cloud.flags(shelved_offload_time=-1):
        _action(demo_api, server['id'], {'shelve': None})
        demo_api.wait_for_state(server['id'], 'SHELVED', task_state=None)
    # shelveOffload is an admin's.
    _action(demo_api, server['id'], {'shelveOffload': None}, expected=403)
    _action(admin_api, server['id'], {'shelveOffload': None})
    demo_api.wait_for_state(server['id'], 'SHELVED_OFFLOADED',
                            task_state=None)
    assert _allocations(server['id']) == {}


def test_periodic_offload_after_shelved_offload_time(cloud, demo_api):
    server = demo_api.create_server()
    with cloud.flags(shelved_offload_time=1):
        _action(demo_api, server['id'], {'shelve': None})
        demo_api.wait_for_state(server['id'], 'SHELVED', task_state=None)
        host, _ = _guest(cloud, server['id'])
        manager = cloud.compute_service(host).manager
        manager._poll_shelved_instances(nova_context.get_admin_context())
        assert demo_api.get_server(server['id'])['status'] == 'SHELVED'
        time.sleep(1.1)
        manager._poll_shelved_instances(nova_context.get_admin_context())
    demo_api.wait_for_state(server['id'], 'SHELVED_OFFLOADED',
                            task_state=None)
    assert _allocations(server['id']) == {}


def test_volume_backed_shelve_and_unshelve_to_a_host(cloud, demo_api,
                                                     admin_api, volumes):
    root = volumes.create(imageRef=cloud.image_id)
    server = demo_api.create_server(imageRef='', block_device_mapping_v2=[{
        'uuid': root['id'], 'source_type': 'volume',
        'destination_type': 'volume', 'boot_index': 0}])
    images_before = len(demo_api.get_images())
    _action(demo_api, server['id'], {'shelve': None})
    demo_api.wait_for_state(server['id'], 'SHELVED_OFFLOADED',
                            task_state=None)
    # No snapshot: the volume is the disk, and it stays the server's.
    assert len(demo_api.get_images()) == images_before
    assert volumes.get(root['id'])['status'] == 'reserved'
    (bdm,) = cinder.bdms(server['id'])
    (attachment,) = volumes.attachments(root['id'])
    assert bdm.attachment_id == attachment['id']

    target = sorted(cloud.compute_hosts)[-1]
    _action(demo_api, server['id'], {'unshelve': {'host': target}},
            expected=403, microversion='2.91')
    resp = _action(admin_api, server['id'],
                   {'unshelve': {'host': 'no-such-host'}}, expected=400,
                   microversion='2.91')
    assert 'no-such-host' in resp.json()['badRequest']['message']
    _action(admin_api, server['id'], {'unshelve': {'host': target}},
            microversion='2.91')
    demo_api.wait_for_state(server['id'], 'ACTIVE')
    assert _guest(cloud, server['id'])[0] == target
    assert volumes.get(root['id'])['status'] == 'in-use'
