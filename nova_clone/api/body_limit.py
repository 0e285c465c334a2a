"""Limits on a request body: its size and how long it may stall.

Size: oslo.middleware's RequestBodySizeLimiter (``[oslo_middleware]
max_request_body_size``, 112 KiB by default), its 413 answered with
Nova's ``overLimit`` fault body.  A body announced larger than the limit
is refused before a byte of it is read; a chunked one is cut off once the
limit is passed while reading.

Time: a body that stops arriving for ``[api] request_body_timeout``
seconds ends its request with a 400 (the server closes the connection,
the rest of the body unread), instead of holding a server thread until
the connection's idle timeout and then answering 500.
"""

import socket

from oslo_middleware import sizelimit
import webob
import webob.exc

from nova_clone.api import faults
from nova_clone import wsgi_server

# Where the WSGI servers put the client's socket: gunicorn, and the
# embedded mode's server.
_SOCKET_KEYS = ('gunicorn.socket', wsgi_server.SOCKET_ENVIRON_KEY)


class RequestBodySizeLimiter(sizelimit.RequestBodySizeLimiter):

    def __call__(self, environ, start_response):
        req = webob.Request(environ)
        try:
            # Called with a request, oslo's wsgify'd method raises its
            # 413 instead of rendering webob's own error page.
            resp = super().__call__(req)
        except webob.exc.HTTPRequestEntityTooLarge:
            resp = faults.fault_response(
                413, 'Request is too large. Larger than '
                     'max_request_body_size (%d).'
                     % self._conf_get('max_request_body_size'))
        return resp(environ, start_response)


class _PatientInput(object):
    """wsgi.input whose stalls (the socket's timeout) are the client's
    mistake: a 400."""

    def __init__(self, stream, timeout):
        self._stream = stream
        self._timeout = timeout

    def _stalled(self):
        return webob.exc.HTTPBadRequest(
            explanation='The request body stopped arriving: nothing came '
                        'for %d seconds' % self._timeout)

    def read(self, *args):
        try:
            return self._stream.read(*args)
        except (socket.timeout, TimeoutError):
            raise self._stalled() from None

    def readline(self, *args):
        try:
            return self._stream.readline(*args)
        except (socket.timeout, TimeoutError):
            raise self._stalled() from None

    def __iter__(self):
        return iter(self.readline, b'')


class BodyReadTimeout(object):
    """While the application runs, the client's socket times out after
    ``timeout`` seconds without data."""

    def __init__(self, application, timeout):
        self.application = application
        self.timeout = timeout

    def __call__(self, environ, start_response):
        sock = next((environ[k] for k in _SOCKET_KEYS if k in environ), None)
        if sock is None:
            return self.application(environ, start_response)
        environ['wsgi.input'] = _PatientInput(environ['wsgi.input'],
                                              self.timeout)
        idle = sock.gettimeout()
        sock.settimeout(self.timeout)
        try:
            return self.application(environ, start_response)
        finally:
            sock.settimeout(idle)
