"""The loopback WSGI server: free ports, busy ports, keep-alive, bodies."""

import socket
import time

import pytest
import requests
import webob
import webob.dec

from nova_clone import wsgi_server


@webob.dec.wsgify
def echo(req):
    if req.path == '/empty':
        return webob.Response(status=204)
    if req.path == '/boom':
        raise RuntimeError('application bug')
    return webob.Response(json_body={'method': req.method,
                                     'length': len(req.body)})


@pytest.fixture
def server():
    handle = wsgi_server.serve(echo, '127.0.0.1', 0)
    yield handle
    handle.stop()


def test_port_zero_picks_a_free_port(server):
    assert server.port > 0
    assert server.url == 'http://127.0.0.1:%d' % server.port
    assert requests.get(server.url + '/x').json() == {'method': 'GET',
                                                      'length': 0}


def test_busy_port_names_the_port(server):
    with pytest.raises(wsgi_server.PortInUse) as err:
        wsgi_server.serve(echo, '127.0.0.1', server.port)
    assert str(server.port) in str(err.value)


def test_keep_alive_with_fixed_and_chunked_bodies(server):
    session = requests.Session()
    assert session.post(server.url, data=b'a' * 200000).json()[
        'length'] == 200000

    def chunks():
        yield b'abc'
        yield b'd' * 5000
    assert session.put(server.url, data=chunks()).json()['length'] == 5003
    assert session.delete(server.url + '/empty').status_code == 204
    assert session.get(server.url).json()['length'] == 0


def test_unread_body_does_not_break_the_next_request(server):
    sock = socket.create_connection(('127.0.0.1', server.port))
    try:
        # /empty never reads its body; the next request must still parse.
        sock.sendall(b'POST /empty HTTP/1.1\r\nHost: x\r\n'
                     b'Content-Length: 5\r\n\r\nhello'
                     b'GET /x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n'
                     b'\r\n')
        data = b''
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    finally:
        sock.close()
    assert data.startswith(b'HTTP/1.1 204')
    assert b'"method":"GET"' in data


def test_application_error_is_a_500_not_a_dead_server(server):
    resp = requests.get(server.url + '/boom')
    assert resp.status_code == 500
    assert requests.get(server.url + '/x').status_code == 200


def test_stop_frees_the_port():
    handle = wsgi_server.serve(echo, '127.0.0.1', 0)
    port = handle.port
    handle.stop()
    again = wsgi_server.serve(echo, '127.0.0.1', port)
    again.stop()


def test_kept_alive_responses_are_not_held_back(server):
    # With Nagle on, the body write waits for the client's delayed ACK of
    # the header write: about 40 ms per request on a kept-alive connection.
    session = requests.Session()
    session.get(server.url + '/x')
    times = []
    for _ in range(10):
        start = time.monotonic()
        assert session.post(server.url + '/x', data=b'{}').status_code == 200
        times.append(time.monotonic() - start)
    assert sorted(times)[5] < 0.02, times


class _LingeringBody:
    """A response body whose close() takes a while: the handler has sent
    the whole response but not yet gone back to read the next request."""

    def __init__(self, linger):
        self._linger = linger

    def __iter__(self):
        yield b'{}'

    def close(self):
        time.sleep(self._linger)


def _lingering_app(environ, start_response):
    start_response('200 OK', [('Content-Type', 'application/json'),
                              ('Content-Length', '2')])
    return _LingeringBody(float(environ['PATH_INFO'].strip('/') or 0))


@pytest.mark.parametrize('linger', [0, 0.3])
def test_stop_ends_kept_alive_connections(linger):
    # A stopped service must not go on answering on a connection a client
    # kept alive, nor keep a thread waiting on it, whether the handler was
    # already waiting for the next request or still finishing the last.
    handle = wsgi_server.serve(_lingering_app, '127.0.0.1', 0)
    sock = socket.create_connection(('127.0.0.1', handle.port))
    sock.settimeout(5)
    sock.sendall(b"GET /%s HTTP/1.1\r\nHost: t\r\n\r\n"
                 % str(linger).encode())
    first = b''
    while not first.endswith(b'{}'):
        first += sock.recv(65536)
    assert first.startswith(b'HTTP/1.1 200')
    if not linger:
        time.sleep(0.1)  # the handler is back waiting on the socket
    handle.stop()
    try:
        sock.sendall(b'GET /0 HTTP/1.1\r\nHost: t\r\n\r\n')
        answer = sock.recv(65536)
    except OSError:
        answer = b''
    finally:
        sock.close()
    assert answer == b''
    deadline = time.monotonic() + 5
    while handle.connections() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert handle.connections() == 0
