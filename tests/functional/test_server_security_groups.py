"""A server's security groups through the REST API of the in-process
cloud: listed from its ports, added and removed on every port."""


def _neutron(api, method, path, body=None, expected=200):
    return api.request(method, path, body=body,
                       base=api.cloud.urls['network'], expected=expected)


def _port_groups(api, server_id):
    ports = api.get_ports(device_id=server_id)
    return [set(p['security_groups']) for p in ports]


def _action(api, server_id, key, name, expected=202):
    return api.post('/servers/%s/action' % server_id, {key: {'name': name}},
                    expected=expected)


def test_add_list_and_remove_security_groups(cloud, demo_api):
    server = demo_api.create_server()
    sid = server['id']
    listed = demo_api.get('/servers/%s/os-security-groups' % sid).json()[
        'security_groups']
    assert [g['name'] for g in listed] == ['default']
    assert all(r['parent_group_id'] == listed[0]['id']
               for r in listed[0]['rules'])
    default_id = listed[0]['id']

    web = _neutron(demo_api, 'POST', '/v2.0/security-groups',
                   {'security_group': {'name': 'web-%s' % sid[:8]}},
                   expected=201).json()['security_group']
    _action(demo_api, sid, 'addSecurityGroup', web['name'])
    assert _port_groups(demo_api, sid) == [{default_id, web['id']}]
    names = {g['name'] for g in demo_api.get_server(sid)['security_groups']}
    assert names == {'default', web['name']}
    listed = demo_api.get('/servers/%s/os-security-groups' % sid).json()[
        'security_groups']
    assert {g['name'] for g in listed} == {'default', web['name']}

    _action(demo_api, sid, 'removeSecurityGroup', web['name'])
    assert _port_groups(demo_api, sid) == [{default_id}]
    assert [g['name'] for g in demo_api.get_server(sid)[
        'security_groups']] == ['default']
    resp = _action(demo_api, sid, 'removeSecurityGroup', web['name'],
                   expected=404)
    assert 'not associated' in resp.json()['itemNotFound']['message']
    _action(demo_api, sid, 'addSecurityGroup', 'no-such-group',
            expected=404)
    _action(demo_api, sid, 'addSecurityGroup', '', expected=400)

    # In no group at all, the server shows no security_groups key.
    _action(demo_api, sid, 'removeSecurityGroup', 'default')
    assert _port_groups(demo_api, sid) == [set()]
    assert 'security_groups' not in demo_api.get_server(sid)
