"""A small threaded WSGI server for loopback use.

``serve(app, host, port)`` starts wsgiref's server with one thread per
request in a background thread and returns a handle with ``.port`` (the
real port when 0 was asked for), ``.url`` and ``.stop()``.  The embedded
mode runs every HTTP service of the deployment this way in one process;
each stand-in peer process serves itself with it too.
"""

import errno
import socket
import socketserver
import threading
from wsgiref import simple_server

from oslo_log import log as logging

LOG = logging.getLogger(__name__)

# The environ key of the client's socket, for an application that bounds
# its own reads (nova-api's request body timeout).
SOCKET_ENVIRON_KEY = 'nova_clone.socket'


class PortInUse(RuntimeError):
    """The address asked for is already taken."""

    def __init__(self, host, port):
        self.host, self.port = host, port
        super().__init__('Cannot listen on %s:%s: port %s is already in use'
                         % (host, port, port))


class _BodyReader:
    """Request body stream that stops at the body's end.

    Knows Content-Length and chunked transfer encoding (openstacksdk
    streams image uploads chunked), so a kept-alive connection can be
    drained to the next request whatever the application read.
    """

    def __init__(self, rfile, length=None, chunked=False):
        self._rfile = rfile
        self._left = length or 0
        self._chunked = chunked
        self._done = not chunked and not length
        # A read failed (timed out): where the next request starts is
        # unknown, the connection cannot be reused.
        self.failed = False

    def _next_chunk(self):
        line = self._rfile.readline(65537)
        try:
            size = int(line.split(b';', 1)[0].strip() or b'0', 16)
        except ValueError:
            size = 0
        if size == 0:
            # Trailer lines up to the blank line.
            while True:
                trailer = self._rfile.readline(65537)
                if trailer in (b'\r\n', b'\n', b''):
                    break
            self._done = True
        self._left = size

    def read(self, size=-1):
        try:
            return self._read(size)
        except OSError:
            self.failed = self._done = True
            raise

    def _read(self, size):
        out = []
        while not self._done and (size is None or size < 0 or size > 0):
            if self._left == 0:
                if not self._chunked:
                    self._done = True
                    break
                self._next_chunk()
                continue
            want = self._left if size is None or size < 0 else min(
                size, self._left)
            data = self._rfile.read(want)
            if not data:
                self._done = True
                break
            self._left -= len(data)
            if size is not None and size >= 0:
                size -= len(data)
            out.append(data)
            if self._chunked and self._left == 0:
                self._rfile.readline(3)  # CRLF after the chunk
            elif not self._chunked and self._left == 0:
                self._done = True
        return b''.join(out)

    def readline(self, size=-1):
        # Bodies here are JSON or binary; a line read is rarely needed.
        out = bytearray()
        while size is None or size < 0 or len(out) < size:
            ch = self.read(1)
            if not ch:
                break
            out += ch
            if ch == b'\n':
                break
        return bytes(out)

    def readlines(self, hint=-1):
        return self.read().splitlines(True)

    def __iter__(self):
        while True:
            line = self.readline()
            if not line:
                return
            yield line

    def drain(self):
        while not self._done:
            if not self.read(65536):
                break


class _LogStream:
    """wsgiref writes application tracebacks here; send them to the log."""

    def write(self, text):
        text = text.rstrip()
        if text:
            LOG.error('%s', text)

    def flush(self):
        pass


class _ServerHandler(simple_server.ServerHandler):
    http_version = '1.1'
    keep_alive = False
    client_wants_close = False

    def cleanup_headers(self):
        super().cleanup_headers()
        if ('Content-Length' not in self.headers and self.status and
                self.status[:3] in ('204', '304')):
            self.headers['Content-Length'] = '0'
        if 'Content-Length' in self.headers and not self.client_wants_close:
            self.keep_alive = True
        else:
            self.headers['Connection'] = 'close'


class _QuietHandler(simple_server.WSGIRequestHandler):
    # HTTP/1.1 keeps client connections alive between requests, which
    # keystoneauth1 sessions rely on for speed.
    protocol_version = 'HTTP/1.1'
    # wsgiref writes the status line, the headers and the body in separate
    # small writes; with Nagle on, a kept-alive client's delayed ACK holds
    # each response back about 40 ms.
    disable_nagle_algorithm = True
    # An idle kept-alive connection frees its thread after this long.
    timeout = 120

    def log_message(self, fmt, *args):
        LOG.debug('%s %s', self.client_address[0], fmt % args)

    def handle(self):
        self.close_connection = True
        self.handle_one_request()
        while not self.close_connection:
            self.handle_one_request()

    def handle_one_request(self):
        try:
            self.raw_requestline = self.rfile.readline(65537)
        except OSError:
            self.close_connection = True
            return
        if not self.raw_requestline or self.server.stopping:
            # A request read after stop() began is not answered: the
            # client sees the connection close, as from a stopped server.
            self.close_connection = True
            return
        if len(self.raw_requestline) > 65536:
            self.send_error(414)
            self.close_connection = True
            return
        if not self.parse_request():
            self.close_connection = True
            return
        chunked = 'chunked' in (
            self.headers.get('Transfer-Encoding') or '').lower()
        try:
            length = int(self.headers.get('Content-Length') or 0)
        except ValueError:
            length = 0
        body = _BodyReader(self.rfile, length=length, chunked=chunked)
        environ = self.get_environ()
        environ[SOCKET_ENVIRON_KEY] = self.connection
        if chunked:
            # No length: tell the app (webob) the stream ends by itself.
            environ.pop('HTTP_TRANSFER_ENCODING', None)
            environ.pop('CONTENT_LENGTH', None)
            environ['wsgi.input_terminated'] = True
        handler = _ServerHandler(body, self.wfile, _LogStream(), environ,
                                 multithread=True, multiprocess=False)
        handler.request_handler = self
        handler.client_wants_close = self.close_connection
        try:
            handler.run(self.server.get_app())
            body.drain()
        except OSError:
            self.close_connection = True
            return
        if not handler.keep_alive or body.failed:
            self.close_connection = True


class _ThreadingServer(socketserver.ThreadingMixIn, simple_server.WSGIServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128

    def __init__(self, *args, **kwargs):
        self.stopping = False
        self._open = set()
        self._open_lock = threading.Lock()
        super().__init__(*args, **kwargs)

    def process_request(self, request, client_address):
        with self._open_lock:
            self._open.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request):
        with self._open_lock:
            self._open.discard(request)
        super().shutdown_request(request)

    def open_connections(self):
        with self._open_lock:
            return list(self._open)

    def end_connections(self):
        """Let each open connection finish its request, then close it.

        Shutting the read side ends a handler waiting for a kept-alive
        client's next request at once, while one still answering writes
        its response first.  Linux still delivers bytes that arrive after
        the shutdown, hence the flag the handler checks too.
        """
        self.stopping = True
        for sock in self.open_connections():
            try:
                sock.shutdown(socket.SHUT_RD)
            except OSError:
                pass

    def server_bind(self):
        # Plain socket bind: WSGIServer's version does a reverse DNS lookup.
        socketserver.TCPServer.server_bind(self)
        host, port = self.server_address[:2]
        self.server_name = host
        self.server_port = port
        self.setup_environ()

    def handle_error(self, request, client_address):
        LOG.debug('Connection from %s ended with an error', client_address,
                  exc_info=True)


class ServerHandle:
    """A running server: ``port``, ``url`` and ``stop()``."""

    def __init__(self, server, thread, host):
        self._server = server
        self._thread = thread
        self.host = host
        self.port = server.server_address[1]

    @property
    def url(self):
        host = self.host
        if ':' in host:
            host = '[%s]' % host
        return 'http://%s:%s' % (host, self.port)

    def stop(self):
        self._server.shutdown()
        self._server.server_close()
        self._server.end_connections()
        self._thread.join(timeout=5)

    def connections(self):
        """How many client connections are open (a handler thread each)."""
        return len(self._server.open_connections())

    def wait(self):
        """Block until the server is stopped."""
        while self._thread.is_alive():
            self._thread.join(timeout=1)

    def __repr__(self):
        return '<ServerHandle %s>' % self.url


def serve(app, host='127.0.0.1', port=0, name='wsgi'):
    """Serve ``app`` on ``host:port`` from a background thread."""
    try:
        server = _ThreadingServer((host, port), _QuietHandler)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise PortInUse(host, port) from None
        raise
    server.set_app(app)
    thread = threading.Thread(target=server.serve_forever,
                              kwargs={'poll_interval': 0.2},
                              name='%s-%s' % (name, server.server_address[1]),
                              daemon=True)
    thread.start()
    handle = ServerHandle(server, thread, host)
    LOG.info('%s listening on %s', name, handle.url)
    return handle
