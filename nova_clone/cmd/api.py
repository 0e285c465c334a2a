"""nova-api: serves the compute REST API on
[DEFAULT] osapi_compute_listen:osapi_compute_listen_port."""

import signal
import sys
import threading

from oslo_log import log as logging

from nova_clone.cmd import common

BINARY = 'nova-api'
LOG = logging.getLogger(__name__)


def _serve():
    from nova_clone.api import app
    from nova_clone.conf import CONF
    from nova_clone import wsgi_server

    application = app.make_app(CONF)
    host = CONF.osapi_compute_listen
    port = CONF.osapi_compute_listen_port
    try:
        handle = wsgi_server.serve(application, host, port, name=BINARY)
    except wsgi_server.PortInUse:
        sys.stderr.write('%s: error: port %s on %s is already in use; set '
                         '[DEFAULT] osapi_compute_listen_port to another '
                         'port\n' % (BINARY, port, host))
        return 1
    stopping = threading.Event()

    def stop(signum, frame):
        LOG.info('%s stopping on signal %s', BINARY, signum)
        stopping.set()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    LOG.info('%s serving on %s', BINARY, handle.url)
    while not stopping.wait(1):
        pass
    handle.stop()
    return 0


def main(argv=None):
    return common.run(BINARY, _serve, argv)


if __name__ == '__main__':
    sys.exit(main())
