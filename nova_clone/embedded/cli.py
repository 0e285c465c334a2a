"""``nova-clone up``: a whole cloud in this one process (the embedded mode).

Every service of the multi-service stack runs here on its real code
path: identity stand-in, Placement, the Glance/Neutron/Cinder stand-ins,
the super and cell conductors, the scheduler, N fake compute hosts and
nova-api, talking over oslo.messaging's in-process ``fake://`` transport
and keeping their state in SQLite files under one state directory. The
assembly lives in ``nova_clone.embedded.cloud``; this module is only the
command line, and keeps its imports light because ``nova-clone --help``
imports it.
"""

import argparse
import os
import sys
import time

from nova_clone import stop_signal

DEFAULT_PORTS = {
    'api': 8774,
    'identity': 5000,
    'placement': 8778,
    'glance': 9292,
    'neutron': 9696,
    'cinder': 8776,
}
# Offsets from --base-port, in the order the services are listed above.
PORT_ORDER = ('api', 'identity', 'placement', 'glance', 'neutron', 'cinder')
CLOUD_NAME = 'nova-clone'


def default_state_dir():
    import platformdirs
    return os.path.join(platformdirs.user_data_dir('nova-clone'), 'embedded')


def _positive(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError('%r is not a number' % text)
    if value < 1:
        raise argparse.ArgumentTypeError('must be 1 or more')
    return value


def _port(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError('%r is not a port number' % text)
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError('%d is not in 1..65535' % value)
    return value


def add_arguments(parser):
    from nova_clone.deploy import seed_data
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = (
        'Ports: nova-api 8774, identity 5000, placement 8778, glance 9292,\n'
        'neutron 9696, cinder 8776 unless --base-port P is given, which\n'
        'places them at P, P+1, ... P+5 in that order; a --<service>-port\n'
        'option wins over both.\n\n'
        'Example:\n'
        '  nova-clone up --computes 3\n'
        '  openstack --os-cloud %s server create --flavor m1.tiny \\\n'
        '      --image %s --network %s --wait vm1'
        % (CLOUD_NAME, seed_data.IMAGE_NAME, seed_data.NETWORK_NAME))
    parser.add_argument(
        '--state-dir', metavar='DIR',
        help='Directory holding the SQLite databases, images, volumes, '
             'logs and the generated credentials (default: %s).'
             % default_state_dir())
    parser.add_argument(
        '--host', metavar='ADDRESS', default='127.0.0.1',
        help='Address every service listens on and the catalog names '
             '(default: 127.0.0.1).')
    parser.add_argument(
        '--base-port', metavar='P', type=_port,
        help='Listen on P (nova-api) and the next five ports (identity, '
             'placement, glance, neutron, cinder).')
    for name in PORT_ORDER:
        parser.add_argument(
            '--%s-port' % name, metavar='PORT', type=_port,
            help='Port of %s (default: %d, or from --base-port).'
                 % ('nova-api' if name == 'api' else name,
                    DEFAULT_PORTS[name]))
    parser.add_argument(
        '--computes', metavar='N', type=_positive, default=2,
        help='Number of fake compute hosts, named compute1..N (default: 2).')
    parser.add_argument(
        '--clouds-yaml', metavar='PATH',
        help='Where to write the clouds.yaml entries "%s" (admin) and '
             '"%s-demo" (member of project demo); other clouds in the file '
             'are kept (default: ~/.config/openstack/clouds.yaml, plus '
             'always a copy in the state directory).'
             % (CLOUD_NAME, CLOUD_NAME))
    parser.add_argument(
        '--log-file', metavar='PATH',
        help='Log file of all services (default: nova-clone.log in the '
             'state directory).')
    parser.add_argument(
        '--debug', action='store_true',
        help='Log at DEBUG level.')
    parser.add_argument(
        '--config-file', metavar='PATH', action='append', default=[],
        help='Extra nova.conf-style file, e.g. for [fake_driver] or '
             '[scheduler] options (may repeat). The embedded wiring '
             '(databases, transport, endpoints) cannot be overridden.')


def resolve_ports(args):
    """{service: port} from --base-port and the --<service>-port options."""
    ports = {}
    for offset, name in enumerate(PORT_ORDER):
        explicit = getattr(args, '%s_port' % name, None)
        if explicit:
            ports[name] = explicit
        elif args.base_port:
            ports[name] = args.base_port + offset
        else:
            ports[name] = DEFAULT_PORTS[name]
    if args.base_port and args.base_port + len(PORT_ORDER) - 1 > 65535:
        raise ValueError('--base-port %d leaves no room for %d ports'
                         % (args.base_port, len(PORT_ORDER)))
    return ports


def port_option(service):
    return '--%s-port or --base-port' % service


def _fail(message):
    print('nova-clone up: %s' % message, file=sys.stderr)
    return 1


def run(args):
    started = time.monotonic()
    try:
        ports = resolve_ports(args)
    except ValueError as exc:
        return _fail(str(exc))
    state_dir = os.path.abspath(os.path.expanduser(
        args.state_dir or default_state_dir()))

    # Light checks first, so a busy port costs no start-up work at all.
    from nova_clone.embedded import ports as embedded_ports
    busy = embedded_ports.first_busy(args.host, ports)
    if busy:
        service, port = busy
        return _fail('port %d on %s is already in use (%s); choose another '
                     'with %s' % (port, args.host, service,
                                  port_option(service)))

    from nova_clone.embedded import cloud as embedded_cloud
    cloud = embedded_cloud.EmbeddedCloud(
        state_dir, host=args.host, ports=ports, computes=args.computes,
        log_file=args.log_file, debug=args.debug,
        config_files=args.config_file)

    stop = stop_signal.StopSignal()
    stop.install()
    try:
        cloud.start()
    except embedded_cloud.StartError as exc:
        cloud.stop()
        return _fail(str(exc))
    except Exception as exc:  # anything else: one line, details in the log
        from oslo_log import log as logging
        logging.getLogger(__name__).exception('Start-up failed')
        cloud.stop()
        return _fail('start-up failed: %s (see %s)' % (exc, cloud.log_file))

    paths = cloud.write_clouds_yaml(args.clouds_yaml)
    _print_banner(cloud, paths, time.monotonic() - started)
    try:
        stop.wait()
    finally:
        print('nova-clone up: stopping...', flush=True)
        cloud.stop()
    print('nova-clone up: stopped.', flush=True)
    return 0


def _print_banner(cloud, clouds_yaml_paths, elapsed):
    lines = ['nova-clone up: cloud ready in %.1f s' % elapsed]
    for label, url in cloud.endpoints():
        lines.append('  %-12s %s' % (label + ':', url))
    lines.append('  %-12s %s' % ('computes:', ', '.join(cloud.compute_hosts)))
    lines.append('  %-12s %s' % ('state dir:', cloud.state_dir))
    lines.append('  %-12s %s' % ('log file:', cloud.log_file))
    lines.append('  %-12s %s' % ('clouds.yaml:', ', '.join(clouds_yaml_paths)))
    searched = [os.path.abspath(os.path.expanduser(p)) for p in (
        os.path.join('~', '.config', 'openstack', 'clouds.yaml'),
        os.path.join(os.getcwd(), 'clouds.yaml'),
        '/etc/openstack/clouds.yaml')]
    if not any(p in searched for p in clouds_yaml_paths) and \
            clouds_yaml_paths:
        lines.append('  export OS_CLIENT_CONFIG_FILE=%s'
                     % clouds_yaml_paths[-1])
    lines.append('Try: openstack --os-cloud %s server create --flavor m1.tiny '
                 '--image %s --network %s --wait vm1'
                 % (CLOUD_NAME, cloud.seed_names['image'],
                    cloud.seed_names['network']))
    lines.append('Stop with Ctrl-C or SIGTERM.')
    print('\n'.join(lines), flush=True)
