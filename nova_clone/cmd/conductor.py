"""nova-conductor: object indirection and the compute-task flows."""

import sys

from nova_clone.cmd import common

BINARY = 'nova-conductor'
MANAGER = 'nova_clone.conductor.manager.ConductorManager'


def main(argv=None):
    return common.rpc_service_main(BINARY, 'conductor', MANAGER, argv)


if __name__ == '__main__':
    sys.exit(main())
