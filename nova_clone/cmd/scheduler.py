"""nova-scheduler: picks hosts for the conductor."""

import sys

from nova_clone.cmd import common

BINARY = 'nova-scheduler'


def main(argv=None):
    return common.rpc_service_main(BINARY, 'scheduler', None, argv)


if __name__ == '__main__':
    sys.exit(main())
