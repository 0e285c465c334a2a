"""The collaborators of one compute host's flows.

The ComputeManager builds one Collaborators when it starts and passes it
to every flow, so a flow names what it works with instead of reaching
into the manager.
"""

from oslo_concurrency import lockutils

from nova_clone.compute import rpcapi as compute_rpcapi
from nova_clone.conductor import api as conductor_api
from nova_clone.image import glance
from nova_clone.network import neutron
from nova_clone.volume import cinder


class Collaborators:
    """The hypervisor driver, the resource tracker, the event registry and
    the clients of the services a compute talks to.

    The clients of other services are created on first use (a test puts
    its fakes in first); Placement's client is the resource tracker's.
    """

    def __init__(self, host, driver, rt, instance_events, virtapi):
        self.host = host
        self.driver = driver
        self.rt = rt
        self.instance_events = instance_events
        self.virtapi = virtapi
        self._network_api = None
        self._volume_api = None
        self._compute_task_api = None
        self._compute_rpcapi = None
        self._image_api = None

    @property
    def network_api(self):
        if self._network_api is None:
            self._network_api = neutron.API()
        return self._network_api

    @network_api.setter
    def network_api(self, value):
        self._network_api = value

    @property
    def volume_api(self):
        if self._volume_api is None:
            self._volume_api = cinder.API()
        return self._volume_api

    @volume_api.setter
    def volume_api(self, value):
        self._volume_api = value

    @property
    def image_api(self):
        if self._image_api is None:
            self._image_api = glance.API()
        return self._image_api

    @image_api.setter
    def image_api(self, value):
        self._image_api = value

    @property
    def reportclient(self):
        return self.rt.reportclient

    @reportclient.setter
    def reportclient(self, value):
        self.rt.reportclient = value

    @property
    def compute_task_api(self):
        if self._compute_task_api is None:
            self._compute_task_api = conductor_api.ComputeTaskAPI()
        return self._compute_task_api

    @compute_task_api.setter
    def compute_task_api(self, value):
        self._compute_task_api = value

    @property
    def compute_rpcapi(self):
        """The peer computes: the next step of a move runs on another
        host; the power state sync casts a stop to this one."""
        if self._compute_rpcapi is None:
            self._compute_rpcapi = compute_rpcapi.get_compute_rpcapi()
        return self._compute_rpcapi

    @compute_rpcapi.setter
    def compute_rpcapi(self, value):
        self._compute_rpcapi = value


def instance_lock(instance_uuid):
    """The lock that serializes the flows (build, delete, the steps of a
    move) of one instance on this host."""
    return lockutils.lock('instance-%s' % instance_uuid)
