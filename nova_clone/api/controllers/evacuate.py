"""The ``evacuate`` server action (admin): rebuild the server on another
host when its own is down.  200, with ``{"adminPass": ...}`` before 2.14;
from 2.95 the server ends stopped."""

from oslo_utils import strutils
import webob.exc

from nova_clone.api import common
from nova_clone.api.controllers import servers
from nova_clone.api import microversion
from nova_clone.api import resource
from nova_clone.api.schemas import evacuate as schema
from nova_clone.api import validation
from nova_clone.compute import utils as compute_utils
from nova_clone.compute import vm_states
from nova_clone.conf import CONF
from nova_clone import exception
from nova_clone.policies import evacuate as policies


def _password(req, values, on_shared_storage):
    password = values.get('adminPass')
    if microversion.is_supported(req, '2.14'):
        return password or compute_utils.generate_password()
    if on_shared_storage:
        if password:
            raise common.bad_request(
                "admin password can't be changed on existing disk")
        return None
    return password or compute_utils.generate_password()


class EvacuateController(object):

    @resource.response(200)
    @resource.action('evacuate')
    @validation.schema(schema.evacuate_v268, '2.68')
    @validation.schema(schema.evacuate_v229, '2.29', '2.67')
    @validation.schema(schema.evacuate_v214, '2.14', '2.28')
    @validation.schema(schema.evacuate, '2.1', '2.13')
    def evacuate(self, req, server_id, body):
        context, instance = servers.authorized_server(
            req, server_id, policies.EVACUATE)
        values = body['evacuate']
        host = values.get('host')
        force = strutils.bool_from_string(values.get('force', False),
                                          strict=True)
        if force and not host:
            raise common.bad_request(
                "Can't force to a non-provided destination")
        on_shared_storage = strutils.bool_from_string(
            values.get('onSharedStorage', False), strict=True)
        password = _password(req, values, on_shared_storage)
        if host is not None:
            try:
                servers.compute_api().host_api \
                    .service_get_by_host_and_binary(context, host,
                                                    'nova-compute')
            except exception.HostBinaryNotFound:
                raise webob.exc.HTTPNotFound(
                    explanation='Compute host %s not found.' % host)
        if instance.host == host:
            raise common.bad_request("The target host can't be the same "
                                     "one.")
        target_state = vm_states.STOPPED if microversion.is_supported(
            req, '2.95') else None
        try:
            servers.compute_api().evacuate(
                context, instance, host, on_shared_storage, password,
                target_state=target_state)
        except exception.ComputeServiceInUse as exc:
            raise common.bad_request(exc.format_message())
        if not microversion.is_supported(req, '2.14') and \
                CONF.api.enable_instance_password:
            return {'adminPass': password}
        return None
