"""The smaller server sub-resources and actions through the REST API of
the in-process cloud: os-server-password, topology, injectNetworkInfo,
the console actions before 2.6 and the actions Nova removed (410)."""

import time

from nova_clone import context as nova_context
from nova_clone import objects
from nova_clone.virt import fake


def _action(api, server_id, body, expected, microversion=None):
    return api.post('/servers/%s/action' % server_id, body,
                    expected=expected, microversion=microversion)


def _set_password(server_id, chunks):
    ctxt = nova_context.get_admin_context()
    mapping = objects.InstanceMapping.get_by_instance_uuid(ctxt, server_id)
    with nova_context.target_cell(ctxt, mapping.cell_mapping) as cctxt:
        instance = objects.Instance.get_by_uuid(
            cctxt, server_id, expected_attrs=['system_metadata'])
        meta = dict(instance.system_metadata)
        meta.update({'password_%d' % n: c for n, c in enumerate(chunks)})
        instance.system_metadata = meta
        instance.save()


def test_server_password(cloud, demo_api):
    server = demo_api.create_server()
    path = '/servers/%s/os-server-password' % server['id']
    assert demo_api.get(path).json() == {'password': ''}
    # What the metadata service stores when the guest posts it.
    _set_password(server['id'], ['abc', 'def'])
    assert demo_api.get(path).json() == {'password': 'abcdef'}
    demo_api.delete(path, expected=204)
    assert demo_api.get(path).json() == {'password': ''}


def test_topology(cloud, demo_api):
    server = demo_api.create_server()
    path = '/servers/%s/topology' % server['id']
    assert demo_api.get(path, microversion='2.78').json() == {
        'nodes': [], 'pagesize_kb': None}
    demo_api.get(path, microversion='2.77', expected=404)


def test_inject_network_info(cloud, admin_api, demo_api):
    server = admin_api.create_server()
    _action(admin_api, server['id'], {'injectNetworkInfo': None}, 202)
    guest = fake.get_hypervisor(
        server['OS-EXT-SRV-ATTR:host']).guests[server['id']]
    ports = [p['id'] for p in admin_api.get_ports(device_id=server['id'])]
    deadline = time.monotonic() + 10
    while guest.injected_network_info is None:
        assert time.monotonic() < deadline
        time.sleep(0.1)
    assert guest.injected_network_info == ports
    mine = demo_api.create_server()
    _action(demo_api, mine['id'], {'injectNetworkInfo': None}, 403)


def test_legacy_console_actions_and_removed_ones(cloud, admin_api):
    server = admin_api.create_server()
    sid = server['id']
    body = _action(admin_api, sid, {'os-getVNCConsole': {'type': 'novnc'}},
                   200, microversion='2.5').json()
    assert body['console']['type'] == 'novnc'
    assert 'token' in body['console']['url']
    _action(admin_api, sid, {'os-getVNCConsole': {'type': 'novnc'}}, 400,
            microversion='2.6')
    _action(admin_api, sid, {'os-getSPICEConsole': {
        'type': 'spice-html5'}}, 400, microversion='2.5')
    _action(admin_api, sid, {'os-getRDPConsole': {'type': 'rdp-html5'}},
            410)
    _action(admin_api, sid, {'resetNetwork': None}, 410)
