"""The ``restore`` and ``forceDelete`` server actions (202): with
[DEFAULT] reclaim_instance_interval > 0 a deleted server is only
soft-deleted; restore brings it back, forceDelete deletes it now."""

import webob.exc

from nova_clone.api.controllers import servers
from nova_clone.api import resource
from nova_clone import exception
from nova_clone.policies import deferred_delete as policies


class DeferredDeleteController(object):

    @resource.response(202)
    @resource.action('restore')
    def restore(self, req, server_id, body):
        context, instance = servers.authorized_server(
            req, server_id, policies.BASE % 'restore')
        servers.compute_api().restore(context, instance)

    @resource.response(202)
    @resource.action('forceDelete')
    def force_delete(self, req, server_id, body):
        context, instance = servers.authorized_server(
            req, server_id, policies.BASE % 'force',
            ['system_metadata', 'info_cache', 'flavor'])
        try:
            servers.compute_api().force_delete(context, instance)
        except exception.InstanceNotFound as exc:
            raise webob.exc.HTTPNotFound(explanation=exc.format_message())
