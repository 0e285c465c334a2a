"""The ``nova-clone`` command: run whole deployments.

``nova-clone up`` runs every service in one process (the embedded mode);
``nova-clone stack up|down|status`` runs each service as its own process on
MariaDB, RabbitMQ, Keystone and Placement; ``nova-clone bench`` measures
any cloud; ``nova-clone chaos`` tests a stack under faults; ``nova-clone
openapi`` writes the API's OpenAPI description.  Each sub-command lives in
its own module (nova_clone.embedded.cli, nova_clone.stack.cli,
nova_clone.bench, nova_clone.chaos, nova_clone.api.openapi), whose
module-level imports stay light; this module only dispatches.
"""

import argparse
import sys

from nova_clone.api import openapi
from nova_clone import bench
from nova_clone import chaos
from nova_clone.embedded import cli as embedded_cli
from nova_clone.stack import cli as stack_cli

# sub-command -> module providing add_arguments(parser) and run(args) -> int
SUBCOMMANDS = {
    'up': (embedded_cli,
           'Run a whole cloud in this process (the embedded mode).'),
    'stack': (stack_cli,
              'Run a multi-service deployment: up, down, status.'),
    'bench': (bench,
              'Boot N servers at concurrency C against a cloud and print '
              'one JSON line of measurements.'),
    'chaos': (chaos,
              'Boot, resize and delete servers on a stack while killing '
              'its services; print one JSON line of what was lost.'),
    'openapi': (openapi,
                'Write the OpenAPI description of the compute API.'),
}


def build_parser():
    parser = argparse.ArgumentParser(
        prog='nova-clone', description='Run nova-clone deployments.')
    subparsers = parser.add_subparsers(dest='command', metavar='COMMAND')
    subparsers.required = True
    for name, (module, help_text) in SUBCOMMANDS.items():
        sub = subparsers.add_parser(name, help=help_text,
                                    description=help_text)
        module.add_arguments(sub)
        sub.set_defaults(_run=module.run)
    return parser


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args._run(args) or 0
    except KeyboardInterrupt:
        return 130


if __name__ == '__main__':
    sys.exit(main())
