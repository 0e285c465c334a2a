"""nova-compute: runs guests on one host; never opens a database.

Remotable object methods travel to the conductor (the object indirection
API), and any attempt to create a database engine in this process fails.
"""

import sys

from nova_clone.cmd import common

BINARY = 'nova-compute'


def _serve():
    from nova_clone.conductor import rpcapi as conductor_rpcapi
    from nova_clone.objects import base as objects_base
    common.block_db_access(BINARY)
    objects_base.set_indirection_api(conductor_rpcapi.ConductorAPI())
    return common.serve_rpc_service(BINARY, 'compute', None)


def main(argv=None):
    return common.run(BINARY, _serve, argv)


if __name__ == '__main__':
    sys.exit(main())
