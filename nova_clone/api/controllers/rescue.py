"""The ``rescue`` and ``unrescue`` server actions.

rescue answers 200 with the rescue password (``adminPass``) when instance
passwords are enabled, else ``{}``; a volume-backed server is rescuable
from 2.87.  unrescue answers 202.
"""

import webob.exc

from nova_clone.api import common
from nova_clone.api.controllers import servers
from nova_clone.api import microversion
from nova_clone.api import resource
from nova_clone.api.schemas import rescue as schema
from nova_clone.api import validation
from nova_clone.compute import utils as compute_utils
from nova_clone.conf import CONF
from nova_clone import exception
from nova_clone.policies import rescue as policies


def _server(req, server_id, rule):
    return servers.authorized_server(req, server_id, rule, ['system_metadata'])


class RescueController(object):

    @resource.response(200)
    @resource.action('rescue')
    @validation.schema(schema.rescue)
    def rescue(self, req, server_id, body):
        context, instance = _server(req, server_id, policies.RESCUE)
        values = body['rescue'] or {}
        password = values.get('adminPass') or \
            compute_utils.generate_password()
        try:
            servers.compute_api().rescue(
                context, instance, rescue_password=password,
                rescue_image_ref=values.get('rescue_image_ref'),
                allow_bfv_rescue=microversion.is_supported(req, '2.87'))
        except exception.ImageNotFound as exc:
            raise common.bad_request(exc.format_message())
        except exception.InstanceNotRescuable as exc:
            raise common.bad_request(exc.format_message())
        except exception.InstanceNotFound as exc:
            raise webob.exc.HTTPNotFound(explanation=exc.format_message())
        if CONF.api.enable_instance_password:
            return {'adminPass': password}
        return {}

    @resource.response(202)
    @resource.action('unrescue')
    @validation.schema(schema.unrescue)
    def unrescue(self, req, server_id, body):
        context, instance = _server(req, server_id, policies.UNRESCUE)
        servers.compute_api().unrescue(context, instance)
