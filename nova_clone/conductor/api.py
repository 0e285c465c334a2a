"""What other services import to talk to the conductor.

``API`` answers whether the conductor is reachable; ``ComputeTaskAPI`` is
the flow starter the REST layer uses (a thin wrapper over the RPC client
with Nova's argument names).
"""

import time

import oslo_messaging as messaging
from oslo_log import log as logging

from nova_clone.conductor import rpcapi
from nova_clone import rpc

LOG = logging.getLogger(__name__)


class API:
    """Conductor API for services that reach the database through it."""

    def __init__(self):
        self.conductor_rpcapi = rpcapi.ConductorAPI()
        self.base_rpcapi = rpc.get_client(
            messaging.Target(topic=rpcapi.RPC_TOPIC, namespace='baseapi',
                             version='1.1'))

    def wait_until_ready(self, context, early_timeout=10, early_attempts=10):
        """Block until a conductor answers a ping (as nova-compute does)."""
        attempt = 0
        timeout = early_timeout
        while True:
            if attempt == early_attempts:
                timeout = None
            attempt += 1
            try:
                cctxt = self.base_rpcapi.prepare(timeout=timeout)
                cctxt.call(context, 'ping', arg='conductor-ready')
                break
            except messaging.MessagingTimeout:
                LOG.warning('Timed out waiting for nova-conductor.  Is it '
                            'running? Or did this service start before '
                            'nova-conductor?  Reattempting establishment '
                            'of nova-conductor connection...')
                time.sleep(1)
        LOG.info('nova-conductor connection established successfully')


class ComputeTaskAPI(rpcapi.ComputeTaskAPI):
    """The compute-task RPC client, under the name callers expect."""

