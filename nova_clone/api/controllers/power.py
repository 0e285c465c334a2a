"""Server actions os-start, os-stop, reboot and trigger_crash_dump (Nova
serves them from its servers controller)."""

from nova_clone.api.controllers import servers
from nova_clone.api import resource
from nova_clone.api.schemas import power as schema
from nova_clone.api import validation
from nova_clone.policies.servers import SERVERS


class ServerPowerController(object):

    @resource.action('os-start')
    @resource.response(202)
    @validation.schema(schema.start)
    def _start(self, req, server_id, body):
        context, instance = servers.authorized_server(
            req, server_id, SERVERS % 'start')
        servers.compute_api().start(context, instance)

    @resource.action('os-stop')
    @resource.response(202)
    @validation.schema(schema.stop)
    def _stop(self, req, server_id, body):
        context, instance = servers.authorized_server(
            req, server_id, SERVERS % 'stop')
        servers.compute_api().stop(context, instance)

    @resource.action('reboot')
    @resource.response(202)
    @validation.schema(schema.reboot)
    def _reboot(self, req, server_id, body):
        context, instance = servers.authorized_server(
            req, server_id, SERVERS % 'reboot')
        servers.compute_api().reboot(context, instance,
                                     body['reboot']['type'].upper())

    @resource.action('trigger_crash_dump')
    @resource.api_version('2.17')
    @resource.response(202)
    @validation.schema(schema.trigger_crash_dump)
    def _trigger_crash_dump(self, req, server_id, body):
        context, instance = servers.authorized_server(
            req, server_id, SERVERS % 'trigger_crash_dump')
        servers.compute_api().trigger_crash_dump(context, instance)
