"""The ``changePassword`` server action: 202 once the compute has set
the password in the guest; 409 when it could not."""

import webob.exc

from nova_clone.api.controllers import servers
from nova_clone.api import resource
from nova_clone.api.schemas import admin_password as schema
from nova_clone.api import validation
from nova_clone import exception
from nova_clone.policies import admin_password as policies


class AdminPasswordController(object):

    @resource.response(202)
    @resource.action('changePassword')
    @validation.schema(schema.change_password)
    def change_password(self, req, server_id, body):
        context, instance = servers.authorized_server(
            req, server_id, policies.CHANGE_PASSWORD)
        try:
            servers.compute_api().set_admin_password(
                context, instance, body['changePassword']['adminPass'])
        except (exception.InstancePasswordSetFailed,
                exception.SetAdminPasswdNotSupported,
                exception.InstanceAgentNotEnabled) as exc:
            raise webob.exc.HTTPConflict(explanation=exc.format_message())
        except NotImplementedError:
            raise webob.exc.HTTPNotImplemented(
                explanation='Unable to set password on instance')
