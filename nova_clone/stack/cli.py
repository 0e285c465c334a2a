"""``nova-clone stack up|down|status``: a multi-service deployment.

Every service in its own process on this machine's MariaDB and RabbitMQ,
with the real Keystone and Placement, the Glance, Neutron and Cinder
stand-ins, nova-api, a super-conductor, one conductor per cell, the
scheduler and N computes. This module only parses options; the work
lives in the other nova_clone.stack modules (imported when a sub-command
runs, so ``nova-clone --help`` stays fast).
"""

DEFAULT_NAME = 'ncstack'


def _seconds(text):
    import argparse
    try:
        value = float(text)
    except ValueError:
        value = -1
    if not 0 <= value <= 3600:
        raise argparse.ArgumentTypeError('%r is not 0-3600 seconds' % text)
    return value


def _common(parser):
    parser.add_argument('--name', default=DEFAULT_NAME,
                        help='Stack name; prefixes its databases and '
                             'RabbitMQ vhosts (default: %(default)s).')
    parser.add_argument('--state-dir', metavar='DIR',
                        help='Where configs, logs, pid files and '
                             'clouds.yaml live (default: a per-user '
                             'state directory named after --name).')


def add_arguments(parser):
    subs = parser.add_subparsers(dest='stack_command', metavar='ACTION')
    subs.required = True

    up = subs.add_parser(
        'up', help='Start (or complete) the stack.',
        description='Create the databases and vhosts, start Keystone, '
                    'Placement, the Glance/Neutron/Cinder stand-ins, '
                    'nova-api, the conductors, the scheduler and the '
                    'computes, then write clouds.yaml.  Safe to re-run: '
                    'running services are kept, missing ones started.')
    _common(up)
    up.add_argument('--computes', type=int, default=2, metavar='N',
                    help='Compute hosts compute1..N (default: %(default)s).')
    up.add_argument('--cells', type=int, default=1, metavar='N',
                    help='Cells besides cell0 (default: %(default)s).')
    up.add_argument('--driver', choices=['fake', 'libvirt'], default='fake',
                    help='Virt driver of the computes (default: '
                         '%(default)s).')
    up.add_argument('--host-ip', default='127.0.0.1', metavar='IP',
                    help='Address every service listens on and the '
                         'catalog names (default: %(default)s).')
    up.add_argument('--debug', action='store_true',
                    help='Debug logging in every service (each run '
                         'rewrites the configs with or without it).')
    up.add_argument('--base-port', type=int, default=0, metavar='P',
                    help='Ports P..P+5 for keystone, placement, nova-api, '
                         'glance, neutron, cinder; 0 (default) picks free '
                         'ports.  Decided on the first run and kept.')

    status = subs.add_parser('status', help='Show every process of the '
                                            'stack and whether it answers.')
    _common(status)

    down = subs.add_parser('down', help='Stop every process of the stack.')
    _common(down)
    down.add_argument('--purge', action='store_true',
                      help='Also drop its databases and vhosts and remove '
                           'the state directory.')
    down.add_argument('--timeout', type=_seconds, default=10.0,
                      metavar='S',
                      help='Seconds between SIGTERM and SIGKILL '
                           '(default: %(default)s).')


def _load(args):
    from nova_clone.stack import layout as stack_layout
    state_dir = args.state_dir or stack_layout.default_state_dir(args.name)
    layout = stack_layout.StackLayout.load(state_dir)
    if layout is None:
        print('error: no stack in %s (run: nova-clone stack up%s)' % (
            state_dir, ' --state-dir %s' % state_dir
            if args.state_dir else ''))
    return layout


def run(args):
    from nova_clone.stack import layout as stack_layout
    try:
        if args.stack_command == 'up':
            from nova_clone.stack import up as stack_up
            return stack_up.run(args)
        layout = _load(args)
        if layout is None:
            return 1
        from nova_clone.stack import control as stack_control
        if args.stack_command == 'status':
            return stack_control.status(layout)
        return stack_control.down(layout, purge=args.purge,
                                  timeout=args.timeout)
    except stack_layout.LayoutError as e:
        print('error: %s' % e)
        return 2
    except Exception as e:  # e.g. MariaDB gone during --purge
        print('error: %s: %s' % (e.__class__.__name__, e))
        return 1
