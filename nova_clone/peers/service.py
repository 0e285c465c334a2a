"""Start a stand-in: build its app from a config and serve it.

``start(name, conf, port=None)`` serves one stand-in from a background
thread and returns the wsgi_server handle (the embedded mode calls it for
each peer); ``main()`` is ``python -m nova_clone.peers``.
"""

import argparse
import sys

from oslo_config import cfg
from oslo_log import log as logging

from nova_clone import heap
from nova_clone.peers import cinder
from nova_clone.peers import glance
from nova_clone.peers import identity
from nova_clone.peers import neutron
from nova_clone import stop_signal
from nova_clone.peers import conf as peers_conf
from nova_clone import wsgi_server

LOG = logging.getLogger(__name__)

# stand-in -> (its module, the [peers] option naming its port)
SERVICES = {
    'identity': (identity, 'identity_port'),
    'glance': (glance, 'glance_port'),
    'neutron': (neutron, 'neutron_port'),
    'cinder': (cinder, 'cinder_port'),
}


def endpoints_from_conf(conf):
    """[peers] endpoint TYPE=URL entries as a dict."""
    endpoints = {}
    for entry in conf.peers.endpoint:
        stype, sep, url = entry.partition('=')
        if not sep or not stype.strip() or not url.strip():
            raise ValueError('[peers] endpoint %r is not TYPE=URL' % entry)
        endpoints[stype.strip()] = url.strip()
    return endpoints


def build_app(name, conf):
    module = SERVICES[name][0]
    store = module.make_store(conf.peers.connection)
    store.create_all()
    if name == 'identity':
        module.bootstrap(store, conf.peers.admin_password)
    return module.make_app(conf, store=store), store


def start(name, conf, port=None):
    """Serve stand-in ``name`` in this process; returns the server handle."""
    if name not in SERVICES:
        raise ValueError('Unknown stand-in %r; choose one of %s'
                         % (name, ', '.join(sorted(SERVICES))))
    app, store = build_app(name, conf)
    if port is None:
        port = getattr(conf.peers, SERVICES[name][1])
    handle = wsgi_server.serve(app, conf.peers.listen, port, name=name)
    if name == 'identity':
        endpoints = endpoints_from_conf(conf)
        endpoints.setdefault('identity', handle.url + '/v3')
        identity.set_endpoints(store, endpoints)
    return handle


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog='python -m nova_clone.peers',
        description='Run one stand-in peer service.')
    parser.add_argument('service', choices=sorted(SERVICES))
    args, rest = parser.parse_known_args(argv)
    from nova_clone.conf import CONF
    peers_conf.register_opts(CONF)
    logging.register_options(CONF)
    try:
        CONF(rest, project='nova-clone-peers', prog='nova-clone-' +
             args.service)
    except (cfg.Error, OSError) as exc:
        print('Bad configuration: %s' % exc, file=sys.stderr)
        return 2
    logging.setup(CONF, 'nova-clone-' + args.service)
    try:
        handle = start(args.service, CONF)
    except wsgi_server.PortInUse as exc:
        LOG.error('%s', exc)
        print(str(exc), file=sys.stderr)
        return 1
    except Exception as exc:
        LOG.exception('Cannot start the %s stand-in', args.service)
        print('Cannot start the %s stand-in: %s' % (args.service, exc),
              file=sys.stderr)
        return 1
    heap.freeze_startup_objects()
    stop = stop_signal.StopSignal()
    stop.install()
    print('%s stand-in listening on %s' % (args.service, handle.url),
          flush=True)
    stop.wait()
    handle.stop()
    LOG.info('%s stand-in stopped', args.service)
    return 0
