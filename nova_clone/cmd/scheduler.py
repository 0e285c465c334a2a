"""nova-scheduler: picks hosts for the conductor."""

import sys

from nova_clone.cmd import common

BINARY = 'nova-scheduler'
MANAGER = 'nova_clone.scheduler.manager.SchedulerManager'


def main(argv=None):
    return common.rpc_service_main(BINARY, 'scheduler', MANAGER, argv)


if __name__ == '__main__':
    sys.exit(main())
