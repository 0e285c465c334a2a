"""Listening sockets of the embedded cloud.

Every HTTP service is bound before any of them is built, so a busy port is
reported before start-up work begins and the catalog can name real ports
even when port 0 (any free port) was asked for.  Until its application is
ready, a listener answers 503.
"""

import errno
import json
import socket


class LateApp:
    """A WSGI app whose real application is attached once it is built."""

    def __init__(self, name):
        self.name = name
        self.app = None

    def __call__(self, environ, start_response):
        app = self.app
        if app is None:
            body = json.dumps({'error': {
                'code': 503, 'title': 'Service Unavailable',
                'message': '%s is starting' % self.name}}).encode()
            start_response('503 Service Unavailable', [
                ('Content-Type', 'application/json'),
                ('Content-Length', str(len(body))),
                ('Retry-After', '1')])
            return [body]
        return app(environ, start_response)


def port_is_free(host, port):
    family = socket.AF_INET6 if ':' in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            return False
        raise
    finally:
        sock.close()
    return True


def first_busy(host, ports):
    """(service, port) of the first port already taken, else None."""
    for service, port in ports.items():
        if port and not port_is_free(host, port):
            return service, port
    return None
