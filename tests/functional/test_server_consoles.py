"""Remote consoles and console tokens through the REST API of the
in-process cloud."""

from urllib import parse


def _console(api, server_id, protocol, kind, expected=200,
             microversion='2.6'):
    return api.post('/servers/%s/remote-consoles' % server_id,
                    {'remote_console': {'protocol': protocol,
                                        'type': kind}},
                    expected=expected, microversion=microversion)


def _token(url):
    parts = parse.urlsplit(url)
    query = dict(parse.parse_qsl(parts.query))
    if 'token' in query:
        return query['token']
    return dict(parse.parse_qsl(parse.urlsplit(query['path']).query))[
        'token']


def test_vnc_console_and_its_token(cloud, admin_api, demo_api):
    server = demo_api.create_server()
    body = _console(demo_api, server['id'], 'vnc', 'novnc').json()
    console = body['remote_console']
    assert console['protocol'] == 'vnc' and console['type'] == 'novnc'
    assert console['url'].startswith('http://127.0.0.1:6080/vnc_lite.html?')
    token = _token(console['url'])

    # What the console proxy learns from the token (admin only).
    shown = admin_api.get('/os-console-auth-tokens/%s' % token,
                          microversion='2.31').json()['console']
    assert shown == {'instance_uuid': server['id'], 'host': '127.0.0.1',
                     'port': 5900, 'internal_access_path': None}
    shown = admin_api.get('/os-console-auth-tokens/%s' % token,
                          microversion='2.99').json()['console']
    assert shown['tls_port'] is None
    admin_api.get('/os-console-auth-tokens/%s' % token,
                  microversion='2.30', expected=401)
    demo_api.get('/os-console-auth-tokens/%s' % token, expected=403)
    resp = admin_api.get('/os-console-auth-tokens/not-a-token',
                         expected=404)
    assert resp.json()['itemNotFound']['message'] == 'Token not found'

    # Each request gets its own token.
    again = _console(demo_api, server['id'], 'vnc', 'novnc').json()
    assert _token(again['remote_console']['url']) != token


def test_console_refusals(cloud, admin_api):
    server = admin_api.create_server()
    sid = server['id']
    # Not before 2.6.
    _console(admin_api, sid, 'vnc', 'novnc', expected=404,
             microversion='2.5')
    # A type the protocol does not serve, a protocol turned off.
    resp = _console(admin_api, sid, 'vnc', 'spice-html5', expected=400)
    assert resp.json()['badRequest']['message'] == \
        'Invalid console type spice-html5'
    resp = _console(admin_api, sid, 'spice', 'spice-html5', expected=400)
    assert resp.json()['badRequest']['message'] == \
        'Unavailable console type spice-html5.'
    with cloud.flags(enabled=True, group='serial_console'):
        body = _console(admin_api, sid, 'serial', 'serial').json()
        url = body['remote_console']['url']
        assert url.startswith('ws://127.0.0.1:6083/?token=')
    _console(admin_api, sid, 'rdp', 'rdp-html5', expected=501)
    _console(admin_api, sid, 'mks', 'webmks', expected=400)
    _console(admin_api, sid, 'mks', 'webmks', expected=501,
             microversion='2.8')
    _console(admin_api, sid, 'vnc', 'bogus', expected=400)
