"""GET /servers/{server_id}/topology (2.78): the guest's NUMA topology.
The guests here have none (no NUMA placement), so the answer lists no
node."""

from nova_clone.api.controllers import servers
from nova_clone.api import resource
from nova_clone.policies import server_topology as policies


class ServerTopologyController(object):

    @resource.api_version('2.78')
    def index(self, req, server_id):
        servers.authorized_server(req, server_id, policies.BASE % 'index')
        return {'nodes': [], 'pagesize_kb': None}
