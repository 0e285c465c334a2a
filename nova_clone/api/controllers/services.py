"""/os-services: list, enable/disable/force-down, delete."""

from oslo_log import log as logging
from oslo_utils import strutils
from oslo_utils import uuidutils
import webob.exc

from nova_clone.api import auth
from nova_clone.api import common
from nova_clone.api.controllers import servers
from nova_clone.api import microversion
from nova_clone.api import resource
from nova_clone.api.schemas import services as schema
from nova_clone.api import validation
from nova_clone.compute.api import down_cells
from nova_clone.compute.api import host as host_api
from nova_clone import exception
from nova_clone.policies import admin as admin_policies

LOG = logging.getLogger(__name__)

_SUBSECOND = '%Y-%m-%dT%H:%M:%S.%f'


def _updated_at(service):
    value = getattr(service, 'updated_at', None)
    if value is None and service.obj_attr_is_set('last_seen_up'):
        value = service.last_seen_up
    return value.strftime(_SUBSECOND) if value else None


class ServiceController(object):

    def __init__(self):
        self.host_api = host_api.HostAPI()
        self._placement = None
        self._actions = {
            'enable': self._enable,
            'disable': self._disable,
            'disable-log-reason': self._disable_log_reason,
            'force-down': self._force_down,
        }

    @property
    def placement(self):
        if self._placement is None:
            from nova_clone.placement import client
            self._placement = client.SchedulerReportClient()
        return self._placement

    def _view(self, req, service):
        if down_cells.is_partial(service):
            # A compute of a cell that did not answer (2.69): only its
            # host mapping is known.
            return {'binary': service.binary, 'host': service.host,
                    'status': 'UNKNOWN'}
        zone = getattr(service, 'availability_zone', None) if \
            service.obj_attr_is_set('availability_zone') else None
        view = {
            'id': service.uuid if microversion.is_supported(req, '2.53')
            else service.id,
            'binary': service.binary,
            'host': service.host,
            'zone': zone,
            'status': 'disabled' if service.disabled else 'enabled',
            'state': 'up' if self.host_api.service_is_up(service)
            else 'down',
            'updated_at': _updated_at(service),
            'disabled_reason': service.disabled_reason,
        }
        if microversion.is_supported(req, '2.11'):
            view['forced_down'] = service.forced_down
        return view

    @validation.query_schema(schema.index_query_v275, '2.75')
    @validation.query_schema(schema.index_query, '2.1', '2.74')
    def index(self, req):
        context = auth.get_context(req)
        context.can(admin_policies.SERVICES % 'list', target={})
        filters = {}
        for key in ('host', 'binary'):
            value = common.last_value(req, key)
            if value:
                filters[key] = value
        services = self.host_api.service_get_all(
            context, filters=filters, set_zones=True,
            cell_down_support=microversion.is_supported(req, '2.69'))
        return {'services': [self._view(req, s) for s in services]}

    def update(self, req, id, body):
        context = auth.get_context(req)
        context.can(admin_policies.SERVICES % 'update', target={})
        if microversion.is_supported(req, '2.53'):
            return self._update_v253(req, context, id, body)
        return self._update_legacy(req, context, id, body)

    # -- 2.53+: PUT /os-services/{uuid} ----------------------------------
    def _update_v253(self, req, context, service_id, body):
        validation.validate_body(schema.service_update_v253, body)
        if not uuidutils.is_uuid_like(service_id):
            raise common.bad_request('Invalid uuid %s' % service_id)
        status = body.get('status')
        reason = body.get('disabled_reason')
        forced_down = body.get('forced_down')
        if status is None and forced_down is None:
            raise common.bad_request(
                "No updates were requested. Fields 'status' or "
                "'forced_down' should be specified.")
        if reason and status != 'disabled':
            raise common.bad_request(
                "Specifying 'disabled_reason' with status 'enabled' is "
                "invalid.")
        try:
            service = self.host_api.service_get_by_id(context, service_id)
        except exception.ServiceNotFound:
            raise webob.exc.HTTPNotFound(
                explanation='Service %s not found.' % service_id)
        if service.binary != 'nova-compute':
            raise common.bad_request(
                'Updating a %s service is not supported. Only nova-compute '
                'services can be updated.' % service.binary)
        if status is not None:
            service.disabled = status == 'disabled'
            service.disabled_reason = reason if service.disabled else None
        if forced_down is not None:
            service.forced_down = strutils.bool_from_string(forced_down)
        self._save(context, service)
        return {'service': self._view(req, service)}

    # -- before 2.53: PUT /os-services/{action} --------------------------
    def _update_legacy(self, req, context, action, body):
        handler = self._actions.get(action)
        if handler is None or (action == 'force-down' and
                               not microversion.is_supported(req, '2.11')):
            raise webob.exc.HTTPNotFound(
                explanation='Unknown action')
        if microversion.is_supported(req, '2.11'):
            validation.validate_body(schema.service_update_v211, body)
        else:
            validation.validate_body(schema.service_update, body)
        try:
            service = self.host_api.service_get_by_host_and_binary(
                context, body['host'], body['binary'])
        except exception.HostBinaryNotFound as exc:
            raise webob.exc.HTTPNotFound(explanation=exc.format_message())
        return {'service': handler(context, service, body)}

    def _save(self, context, service):
        status_changed = 'disabled' in service.obj_what_changed() and \
            service.binary == 'nova-compute'
        self.host_api.service_update(context, service)
        if status_changed:
            self._sync_status_trait(service)

    def _sync_status_trait(self, service):
        """Tell the compute at once, so Placement's COMPUTE_STATUS_DISABLED
        trait follows without waiting for its periodic run."""
        compute_api = servers.compute_api()
        if not self.host_api.service_is_up(service):
            LOG.info('Compute service on host %s is down; its '
                     'COMPUTE_STATUS_DISABLED trait is synchronized when it '
                     'starts again.', service.host)
            return
        try:
            compute_api.compute_rpcapi.set_host_enabled(
                service._context, service.host, not service.disabled)
        except Exception:
            LOG.exception('Could not update the COMPUTE_STATUS_DISABLED '
                          'trait of host %s; its next update_available_'
                          'resource run will.', service.host)

    def _enable(self, context, service, body):
        service.disabled = False
        service.disabled_reason = None
        self._save(context, service)
        return {'host': service.host, 'binary': service.binary,
                'status': 'enabled'}

    def _disable(self, context, service, body):
        service.disabled = True
        self._save(context, service)
        return {'host': service.host, 'binary': service.binary,
                'status': 'disabled'}

    def _disable_log_reason(self, context, service, body):
        reason = body.get('disabled_reason')
        if not reason:
            raise common.bad_request('Missing disabled reason field')
        service.disabled = True
        service.disabled_reason = reason
        self._save(context, service)
        return {'host': service.host, 'binary': service.binary,
                'status': 'disabled', 'disabled_reason': reason}

    def _force_down(self, context, service, body):
        if 'forced_down' not in body:
            raise common.bad_request('Missing forced_down field')
        service.forced_down = strutils.bool_from_string(
            body['forced_down'])
        self._save(context, service)
        return {'host': service.host, 'binary': service.binary,
                'forced_down': service.forced_down}

    # -- delete -------------------------------------------------------------
    @resource.response(204)
    def delete(self, req, id):
        context = auth.get_context(req)
        context.can(admin_policies.SERVICES % 'delete', target={})
        if microversion.is_supported(req, '2.53'):
            if not uuidutils.is_uuid_like(id):
                raise common.bad_request('Invalid uuid %s' % id)
        else:
            try:
                int(id)
            except ValueError:
                raise common.bad_request('Invalid service id %s' % id)
        try:
            service = self.host_api.service_get_by_id(context, id)
        except exception.ServiceNotFound:
            raise webob.exc.HTTPNotFound(
                explanation='Service %s not found.' % id)
        except exception.ServiceNotUnique:
            raise common.bad_request(
                'Service id %s refers to multiple services.' % id)
        if service.binary == 'nova-compute':
            self._delete_compute(context, service)
        service.destroy()

    def _delete_compute(self, context, service):
        from nova_clone import objects
        cctxt = service._context
        instances = objects.InstanceList.get_by_host(cctxt, service.host)
        if len(instances):
            raise webob.exc.HTTPConflict(
                explanation='Unable to delete compute service that is '
                            'hosting instances. Migrate or delete the '
                            'instances first.')
        try:
            nodes = objects.ComputeNodeList.get_all_by_host(cctxt,
                                                            service.host)
        except exception.ComputeHostNotFound:
            nodes = []
        for node in nodes:
            # The provider goes too, so the scheduler stops offering a
            # host that no longer exists.
            try:
                self.placement.delete_resource_provider(context, node,
                                                        cascade=True)
            except exception.PlacementAPIConnectFailure as exc:
                # As Nova: the service still goes; the provider can be
                # removed later (nova-manage placement audit).
                LOG.warning('Could not remove the resource provider of '
                            'compute node %s: %s', node.uuid, exc)
            node.destroy()
        try:
            objects.HostMapping.get_by_host(context, service.host).destroy()
        except exception.HostMappingNotFound:
            pass
