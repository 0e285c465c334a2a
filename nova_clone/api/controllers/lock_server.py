"""Server actions lock and unlock (a reason from 2.73).

A lock records who set it (the owner's project or an admin); unlocking a
lock the other party set needs the unlock_override rule.
"""

from nova_clone.api.controllers import servers
from nova_clone.api import microversion
from nova_clone.api import resource
from nova_clone.api.schemas import lock_server as schema
from nova_clone.api import validation
from nova_clone.compute.api import power
from nova_clone.policies import lock_server as policies


class LockServerController(object):

    @resource.action('lock')
    @resource.response(202)
    @validation.schema(schema.lock_v273, '2.73')
    @validation.schema(schema.lock, '2.1', '2.72')
    def _lock(self, req, server_id, body):
        context, instance = servers.authorized_server(
            req, server_id, policies.POLICY_ROOT % 'lock')
        reason = None
        if microversion.is_supported(req, '2.73') and body['lock']:
            reason = body['lock'].get('locked_reason')
        servers.compute_api().lock(context, instance, reason=reason)

    @resource.action('unlock')
    @resource.response(202)
    @validation.schema(schema.unlock)
    def _unlock(self, req, server_id, body):
        context, instance = servers.authorized_server(
            req, server_id, policies.POLICY_ROOT % 'unlock')
        if not power.is_expected_locked_by(context, instance):
            context.can(policies.POLICY_ROOT % 'unlock:unlock_override',
                        target={'project_id': instance.project_id})
        servers.compute_api().unlock(context, instance)
