"""nova-api: serves the compute REST API on
[DEFAULT] osapi_compute_listen:osapi_compute_listen_port."""

import sys

from oslo_log import log as logging

from nova_clone.cmd import common
from nova_clone import stop_signal

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
    stop = stop_signal.StopSignal()
    stop.install()
    LOG.info('%s serving on %s', BINARY, handle.url)
    stop.wait()
    LOG.info('%s stopping on %s', BINARY, stop.name())
    handle.stop()
    return 0


def main(argv=None):
    return common.run(BINARY, _serve, argv)


if __name__ == '__main__':
    sys.exit(main())
