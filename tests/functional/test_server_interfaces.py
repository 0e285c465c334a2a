"""/servers/{id}/os-interface through the REST API of the in-process
cloud: the ports Neutron has for the server, a port or a network
attached (bound to the server's host, plugged into the guest) and
detached, with the instance actions and Nova's refusals."""

import time

from nova_clone.virt import fake


def _path(server_id, port_id=None):
    path = '/servers/%s/os-interface' % server_id
    return path + '/%s' % port_id if port_id else path


def _guest(cloud, server):
    return fake.get_hypervisor(
        server['OS-EXT-SRV-ATTR:host']).guests[server['id']]


def _new_port(api, network_id):
    return api.request('POST', '/v2.0/ports', base=api.cloud.urls['network'],
                       body={'port': {'network_id': network_id}},
                       expected=201).json()['port']


def _port(api, port_id):
    return api.request('GET', '/v2.0/ports/%s' % port_id,
                       base=api.cloud.urls['network'],
                       expected=200).json()['port']


def _wait(predicate, what, timeout=20):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, what
        time.sleep(0.2)


def test_list_attach_and_detach_interfaces(cloud, admin_api):
    server = admin_api.create_server()
    sid = server['id']
    listed = admin_api.get(_path(sid)).json()['interfaceAttachments']
    assert len(listed) == 1
    first = listed[0]
    assert first['net_id'] == cloud.network_id
    assert first['port_state'] == 'ACTIVE'
    assert first['fixed_ips'][0]['ip_address']
    shown = admin_api.get(_path(sid, first['port_id']),
                          microversion='2.70').json()['interfaceAttachment']
    assert shown['port_id'] == first['port_id'] and shown['tag'] is None

    # A port of the user's: bound to the server's host, plugged in.
    port = _new_port(admin_api, cloud.network_id)
    resp = admin_api.post(_path(sid), {'interfaceAttachment': {
        'port_id': port['id']}}, expected=200)
    attached = resp.json()['interfaceAttachment']
    assert attached['port_id'] == port['id']
    bound = _port(admin_api, port['id'])
    assert bound['device_id'] == sid
    assert bound['binding:host_id'] == server['OS-EXT-SRV-ATTR:host']
    assert port['id'] in _guest(cloud, server).vifs
    admin_api.wait_for_instance_action_event(
        sid, 'attach_interface', 'compute_attach_interface', 'Success')

    # A new port on a network.
    resp = admin_api.post(_path(sid), {'interfaceAttachment': {
        'net_id': cloud.network_id}}, expected=200)
    made = resp.json()['interfaceAttachment']['port_id']
    assert made in _guest(cloud, server).vifs
    listed = admin_api.get(_path(sid)).json()['interfaceAttachments']
    assert {i['port_id'] for i in listed} == {
        first['port_id'], port['id'], made}
    # The server shows the three ports' addresses.
    server = admin_api.get_server(sid)
    assert sum(len(ips) for ips in server['addresses'].values()) == 3

    # Detach: the user's port is unbound, the one Nova made deleted.
    admin_api.delete(_path(sid, port['id']), expected=202)
    admin_api.delete(_path(sid, made), expected=202)
    _wait(lambda: _port(admin_api, port['id'])['device_id'] == '',
          'port %s still bound' % port['id'])
    _wait(lambda: not admin_api.get_ports(id=made),
          'port %s not deleted' % made)
    assert _guest(cloud, server).vifs == [first['port_id']]
    admin_api.wait_for_instance_action_event(
        sid, 'detach_interface', 'compute_detach_interface', 'Success')
    _wait(lambda: len(admin_api.get(_path(sid)).json()[
        'interfaceAttachments']) == 1, 'interfaces not back to one')


def test_interface_refusals(cloud, admin_api, demo_api):
    server = admin_api.create_server()
    sid = server['id']
    port = _new_port(admin_api, cloud.network_id)
    admin_api.post(_path(sid), {'interfaceAttachment': {
        'port_id': port['id'], 'net_id': cloud.network_id}}, expected=400)
    admin_api.post(_path(sid), {'interfaceAttachment': {
        'fixed_ips': [{'ip_address': '10.0.0.99'}]}}, expected=400)
    admin_api.post(_path(sid), {'interfaceAttachment': {
        'port_id': port['id'], 'tag': 'x'}}, expected=400,
        microversion='2.48')
    resp = admin_api.post(_path(sid), {'interfaceAttachment': {
        'port_id': '7d6a1e2c-4a45-4f0e-9d53-4c8a8ef5d111'}}, expected=404)
    assert 'could not be found' in resp.json()['itemNotFound']['message']
    # A port another server uses.
    used = admin_api.get(_path(sid)).json()['interfaceAttachments'][0]
    other = admin_api.create_server()
    admin_api.post(_path(other['id']), {'interfaceAttachment': {
        'port_id': used['port_id']}}, expected=409)
    # Detaching a port the server does not have.
    admin_api.delete(_path(sid, port['id']), expected=404)
    admin_api.get(_path(sid, port['id']), expected=404)
    # Another project's server does not exist for demo.
    demo_api.get(_path(sid), expected=404)
    # Not while rebuilding.
    with cloud.flags(spawn_seconds=2, group='fake_driver'):
        admin_api.post('/servers/%s/action' % sid,
                       {'rebuild': {'imageRef': cloud.image_id}},
                       expected=202)
        resp = admin_api.post(_path(sid), {'interfaceAttachment': {
            'port_id': port['id']}}, expected=409)
        assert resp.json()['conflictingRequest']['message'] == (
            "Cannot 'attach_interface' instance %s while it is in "
            "task_state rebuilding" % sid)
        admin_api.wait_for_state(sid, 'ACTIVE', task_state=None)
