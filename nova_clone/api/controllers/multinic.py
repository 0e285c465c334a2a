"""addFixedIp / removeFixedIp server actions (to 2.43): casts to the
server's compute, which asks Neutron for one more address on the
server's port on that network, or to drop one."""

from nova_clone.api import auth
from nova_clone.api.controllers import servers
from nova_clone.api import resource
from nova_clone.api.schemas import multinic as schema
from nova_clone.api import validation
from nova_clone.policies import multinic as multinic_policies


class MultinicController(object):

    @resource.api_version(None, '2.43')
    @resource.action('addFixedIp')
    @resource.response(202)
    @validation.schema(schema.add_fixed_ip)
    def add_fixed_ip(self, req, server_id, body):
        context = auth.get_context(req)
        instance = servers.get_server(req, server_id)
        context.can(multinic_policies.MULTINIC % 'add',
                    target={'project_id': instance.project_id})
        servers.compute_api().add_fixed_ip(
            context, instance, str(body['addFixedIp']['networkId']))

    @resource.api_version(None, '2.43')
    @resource.action('removeFixedIp')
    @resource.response(202)
    @validation.schema(schema.remove_fixed_ip)
    def remove_fixed_ip(self, req, server_id, body):
        context = auth.get_context(req)
        instance = servers.get_server(req, server_id)
        context.can(multinic_policies.MULTINIC % 'remove',
                    target={'project_id': instance.project_id})
        servers.compute_api().remove_fixed_ip(
            context, instance, body['removeFixedIp']['address'])
