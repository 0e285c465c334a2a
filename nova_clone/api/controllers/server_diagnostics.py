"""GET /servers/{server_id}/diagnostics: the hypervisor's view of a guest,
free form before 2.48, a fixed structure from 2.48."""

import webob.exc

from nova_clone.api.controllers import servers
from nova_clone.api import microversion
from nova_clone.policies import server_diagnostics as policies

# The fields of the 2.48 answer, in Nova's order.
_FIELDS = ('state', 'driver', 'hypervisor', 'hypervisor_os', 'uptime',
           'config_drive', 'num_cpus', 'num_nics', 'num_disks',
           'cpu_details', 'nic_details', 'disk_details', 'memory_details')


class ServerDiagnosticsController(object):

    def index(self, req, server_id):
        context, instance = servers.authorized_server(
            req, server_id, policies.BASE_POLICY_NAME)
        structured = microversion.is_supported(req, '2.48')
        try:
            diagnostics = servers.compute_api().get_diagnostics(
                context, instance, structured=structured)
        except NotImplementedError:
            raise webob.exc.HTTPNotImplemented(
                explanation='Unable to get diagnostics, functionality not '
                            'implemented')
        if structured:
            return {key: diagnostics.get(key) for key in _FIELDS}
        return diagnostics
