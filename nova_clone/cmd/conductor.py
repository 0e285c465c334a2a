"""nova-conductor: object indirection and the compute-task flows."""

import sys

from nova_clone.cmd import common

BINARY = 'nova-conductor'


def main(argv=None):
    return common.rpc_service_main(BINARY, 'conductor', None, argv)


if __name__ == '__main__':
    sys.exit(main())
