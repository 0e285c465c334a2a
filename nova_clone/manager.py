"""The base class of every service manager (conductor, scheduler, compute).

A manager is the RPC endpoint of its service: its public methods are what
the service's RPC API calls.  It also owns the service's periodic tasks
and the hooks the service runner calls while starting and stopping.
"""

from oslo_log import log as logging
from oslo_service import periodic_task

from nova_clone.conf import CONF

LOG = logging.getLogger(__name__)


class Manager(periodic_task.PeriodicTasks):
    # Subclasses set their own oslo.messaging Target (with a version).
    target = None

    def __init__(self, host=None, service_name='undefined'):
        if not host:
            host = CONF.host
        self.host = host
        self.service_name = service_name
        self.backdoor_port = None
        # Endpoints served next to the manager on the same RPC server,
        # e.g. the conductor's compute_task endpoint.
        self.additional_endpoints = []
        super().__init__(CONF)

    def periodic_tasks(self, context, raise_on_error=False):
        """Run the due periodic tasks; returns seconds until the next one."""
        return self.run_periodic_tasks(context, raise_on_error=raise_on_error)

    def init_host(self, service_ref=None):
        """Prepare the host before the service answers RPC.

        ``service_ref`` is this service's record, or None on first start.
        """

    def cleanup_host(self):
        """Release what init_host took, while the service stops."""

    def pre_start_hook(self, service_ref=None):
        """Called after the service record exists, before RPC starts."""

    def post_start_hook(self):
        """Called once the RPC server(s) are consuming."""

    def reset(self):
        """Drop caches; called on SIGHUP."""
