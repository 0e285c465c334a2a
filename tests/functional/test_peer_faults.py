"""A peer that answers garbage or a 500 while a user boots, shows or
deletes a server: the user gets a Nova fault with a clean message (never
a traceback or a Python repr), and once the peer is back nothing is left
half made: every server the user sees can be deleted."""

import contextlib
import time

import pytest
import requests

_URL_KEYS = {'neutron': 'network', 'glance': 'image',
             'placement': 'placement', 'cinder': 'volume_base'}
_LEAKS = ('Traceback', 'object at 0x', 'File "')


def _html_500(environ, start_response):
    start_response('500 Internal Server Error',
                   [('Content-Type', 'text/html')])
    return [b'<html><body>upstream exploded</body></html>']


def _garbage_200(environ, start_response):
    start_response('200 OK', [('Content-Type', 'application/json')])
    return [b'{"not json']


@contextlib.contextmanager
def _broken(cloud, peer, app):
    slot = cloud.cloud.slots[peer]
    saved = slot.app
    slot.app = app
    try:
        yield
    finally:
        slot.app = saved


def _assert_clean(resp):
    text = resp.text
    assert not any(leak in text for leak in _LEAKS), text[:400]
    if resp.status_code >= 400:
        body = resp.json()
        assert len(body) == 1, body
        fault = next(iter(body.values()))
        assert fault['code'] == resp.status_code, body


_CASES = [(peer, fault) for peer in sorted(_URL_KEYS)
          for fault in (_html_500, _garbage_200)]


@pytest.mark.parametrize('peer,fault', _CASES)
def test_broken_peer_during_boot_show_delete(cloud, demo_api, peer, fault):
    before = {s['id'] for s in demo_api.get_servers(detail=False)}
    victim = demo_api.create_server(name='victim')
    flavor = demo_api.get_flavors()[0]['id']
    with _broken(cloud, peer, fault):
        # The peer really answers the fault now.
        seen = requests.get(cloud.urls[_URL_KEYS[peer]], timeout=30)
        assert b'upstream exploded' in seen.content or \
            seen.content == b'{"not json'
        boot = demo_api.request('POST', '/servers', body={'server': {
            'name': 'faulty', 'imageRef': cloud.image_id,
            'flavorRef': flavor, 'networks': 'auto'}}, microversion='2.37')
        _assert_clean(boot)
        for server in demo_api.get_servers(detail=False):
            _assert_clean(demo_api.request(
                'GET', '/servers/%s' % server['id']))
        _assert_clean(demo_api.request('DELETE',
                                       '/servers/%s' % victim['id']))
    # Back to normal: whatever the boot left is a server the user can
    # delete; nothing else appeared.
    deadline = time.monotonic() + 180
    while True:
        left = [s for s in demo_api.get_servers()
                if s['id'] not in before]
        if not left or time.monotonic() > deadline:
            break
        for server in left:
            if server['status'] != 'DELETED' and \
                    server.get('OS-EXT-STS:task_state') != 'deleting':
                demo_api.request('DELETE', '/servers/%s' % server['id'])
        time.sleep(1)
    assert not left, [(s['id'], s['status'], s.get('fault')) for s in left]
