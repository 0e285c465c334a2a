"""nova-scheduler: picks hosts for the conductor."""

import sys

from nova_clone.cmd import common

BINARY = 'nova-scheduler'


def _serve():
    from nova_clone.conf import CONF
    from nova_clone import service
    server = service.Service.create(
        binary=BINARY, topic='scheduler',
        manager='nova_clone.scheduler.manager.SchedulerManager',
        host=CONF.host)
    service.serve(server)
    service.wait()
    return 0


def main(argv=None):
    return common.run(BINARY, _serve, argv)


if __name__ == '__main__':
    sys.exit(main())
