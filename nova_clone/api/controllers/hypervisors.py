"""/os-hypervisors: list, detail, show (uuid ids from 2.53), statistics
(up to 2.87), search and servers (up to 2.52), uptime (up to 2.87)."""

from oslo_serialization import jsonutils
from oslo_utils import strutils
from oslo_utils import uuidutils
import webob.exc

from nova_clone.api import auth
from nova_clone.api import common
from nova_clone.api import microversion
from nova_clone.api import resource
from nova_clone.api.schemas import parameter_types as pt
from nova_clone.api import validation
from nova_clone.api.views import common as view_common
from nova_clone.compute.api import host as host_api
from nova_clone import exception
from nova_clone.policies import admin as admin_policies

# Usage fields Nova stopped reporting at 2.88 (Placement has them).
_LIST_QUERY = {
    'limit': pt.multi_params(pt.non_negative_integer),
    'marker': pt.common_query_param,
    'with_servers': pt.common_query_param,
    'hypervisor_hostname_pattern': pt.common_query_param,
}
_SHOW_QUERY = {'with_servers': pt.common_query_param}
_USAGE_FIELDS = ('vcpus', 'memory_mb', 'local_gb', 'vcpus_used',
                 'memory_mb_used', 'local_gb_used', 'free_ram_mb',
                 'free_disk_gb', 'current_workload', 'running_vms',
                 'disk_available_least')


class HypervisorsController(object):

    def __init__(self):
        self.host_api = host_api.HostAPI()

    def _service_of(self, context, node):
        from nova_clone import objects
        try:
            return objects.Service.get_by_compute_host(node._context,
                                                       node.host)
        except exception.NotFound:
            return None

    def _view(self, req, context, node, service, detail, servers=None):
        uuid_ids = microversion.is_supported(req, '2.53')
        view = {
            'id': node.uuid if uuid_ids else node.id,
            'hypervisor_hostname': node.hypervisor_hostname,
            'state': 'up' if service is not None and
            self.host_api.service_is_up(service) else 'down',
            'status': 'disabled' if service is not None and
            service.disabled else 'enabled',
        }
        if detail:
            if not microversion.is_supported(req, '2.88'):
                for field in _USAGE_FIELDS:
                    view[field] = getattr(node, field, None)
                cpu_info = node.cpu_info
                if microversion.is_supported(req, '2.28'):
                    try:
                        cpu_info = jsonutils.loads(cpu_info) if cpu_info \
                            else {}
                    except ValueError:
                        cpu_info = {}
                view['cpu_info'] = cpu_info
            else:
                view['uptime'] = None
            view['hypervisor_type'] = node.hypervisor_type
            view['hypervisor_version'] = node.hypervisor_version
            view['host_ip'] = str(node.host_ip) if node.host_ip else None
            view['service'] = {
                'host': node.host,
                'id': (service.uuid if uuid_ids else service.id)
                if service is not None else None,
                'disabled_reason': service.disabled_reason
                if service is not None else None,
            }
        if servers is not None:
            view['servers'] = servers
        return view

    def _servers_on(self, context, node):
        instances = self.host_api.instance_get_all_by_host(context,
                                                           node.host)
        return [{'name': i.name if hasattr(i, 'name') else i.display_name,
                 'uuid': i.uuid} for i in instances
                if getattr(i, 'node', node.hypervisor_hostname) ==
                node.hypervisor_hostname]

    def _list(self, req, detail):
        context = auth.get_context(req)
        context.can(admin_policies.HYPERVISORS %
                    ('list-detail' if detail else 'list'), target={})
        limit = marker = None
        with_servers = False
        pattern = None
        if microversion.is_supported(req, '2.33'):
            if common.last_value(req, 'limit') is not None or \
                    common.last_value(req, 'marker') is not None:
                limit, marker = common.get_limit_and_marker(req)
        if microversion.is_supported(req, '2.53'):
            raw = common.last_value(req, 'with_servers')
            if raw is not None:
                with_servers = common.parse_bool(raw, 'with_servers')
            pattern = common.last_value(req, 'hypervisor_hostname_pattern')
            if pattern is not None and (limit or marker):
                raise common.bad_request(
                    'Paging over hypervisors with the '
                    'hypervisor_hostname_pattern query parameter is not '
                    'supported.')
        if marker is not None and microversion.is_supported(req, '2.53') \
                and not uuidutils.is_uuid_like(marker):
            raise common.bad_request('Invalid marker %s' % marker)
        try:
            if pattern is not None:
                nodes = self.host_api.compute_node_search_by_hypervisor(
                    context, pattern)
                if not nodes:
                    raise webob.exc.HTTPNotFound(
                        explanation='No hypervisor matching %s could be '
                                    'found.' % pattern)
            else:
                nodes = self.host_api.compute_node_get_all(
                    context, limit=limit, marker=marker)
        except exception.MarkerNotFound:
            raise common.bad_request('marker [%s] not found' % marker)
        views = []
        for node in nodes:
            service = self._service_of(context, node)
            servers = self._servers_on(context, node) if with_servers \
                else None
            if servers == [] and not microversion.is_supported(req, '2.75'):
                servers = None
            views.append(self._view(req, context, node, service, detail,
                                    servers))
        body = {'hypervisors': views}
        if limit and len(views) == limit:
            coll = 'os-hypervisors/detail' if detail else 'os-hypervisors'
            links = view_common.next_link(req, coll, views, limit)
            if links:
                body['hypervisors_links'] = links
        return body

    @validation.query_schema(pt.query(_LIST_QUERY, True), '2.102')
    @validation.query_schema(pt.query(_LIST_QUERY, False), '2.1', '2.101')
    def index(self, req):
        return self._list(req, False)

    @validation.query_schema(pt.query(_LIST_QUERY, True), '2.102')
    @validation.query_schema(pt.query(_LIST_QUERY, False), '2.1', '2.101')
    def detail(self, req):
        return self._list(req, True)

    def _get_node(self, req, context, node_id):
        if microversion.is_supported(req, '2.53'):
            if not uuidutils.is_uuid_like(node_id):
                raise common.bad_request('Invalid uuid %s' % node_id)
        elif not str(node_id).isdigit():
            raise webob.exc.HTTPNotFound(
                explanation='Hypervisor with ID %s could not be found.'
                            % node_id)
        try:
            return self.host_api.compute_node_get(context, node_id)
        except exception.NotFound:
            raise webob.exc.HTTPNotFound(
                explanation='Hypervisor with ID %s could not be found.'
                            % node_id)

    @validation.query_schema(pt.query(_SHOW_QUERY, True), '2.102')
    @validation.query_schema(pt.query(_SHOW_QUERY, False), '2.1', '2.101')
    def show(self, req, hypervisor_id):
        context = auth.get_context(req)
        context.can(admin_policies.HYPERVISORS % 'show', target={})
        node = self._get_node(req, context, hypervisor_id)
        with_servers = False
        if microversion.is_supported(req, '2.53'):
            raw = common.last_value(req, 'with_servers')
            if raw is not None:
                with_servers = strutils.bool_from_string(raw, strict=False)
        service = self._service_of(context, node)
        servers = self._servers_on(context, node) if with_servers else None
        return {'hypervisor': self._view(req, context, node, service, True,
                                         servers)}

    @resource.api_version(None, '2.87')
    def uptime(self, req, hypervisor_id):
        context = auth.get_context(req)
        context.can(admin_policies.HYPERVISORS % 'uptime', target={})
        node = self._get_node(req, context, hypervisor_id)
        service = self._service_of(context, node)
        view = self._view(req, context, node, service, False)
        try:
            view['uptime'] = self.host_api.get_host_uptime(service)
        except exception.ComputeServiceUnavailable as exc:
            raise common.bad_request(exc.format_message())
        except NotImplementedError:
            raise webob.exc.HTTPNotImplemented(
                explanation='Virt driver does not implement uptime '
                            'function.')
        return {'hypervisor': view}

    @resource.api_version(None, '2.87')
    def statistics(self, req):
        context = auth.get_context(req)
        context.can(admin_policies.HYPERVISORS % 'statistics', target={})
        nodes = self.host_api.compute_node_get_all(context)
        stats = {'count': len(nodes)}
        for field in _USAGE_FIELDS:
            stats[field] = sum(getattr(n, field, 0) or 0 for n in nodes)
        return {'hypervisor_statistics': stats}

    @resource.api_version(None, '2.52')
    def search(self, req, pattern):
        context = auth.get_context(req)
        context.can(admin_policies.HYPERVISORS % 'search', target={})
        nodes = self.host_api.compute_node_search_by_hypervisor(context,
                                                                pattern)
        if not nodes:
            raise webob.exc.HTTPNotFound(
                explanation='No hypervisor matching \'%s\' could be found.'
                            % pattern)
        return {'hypervisors': [
            self._view(req, context, n, self._service_of(context, n),
                       False) for n in nodes]}

    @resource.api_version(None, '2.52')
    def servers(self, req, pattern):
        context = auth.get_context(req)
        context.can(admin_policies.HYPERVISORS % 'servers', target={})
        nodes = self.host_api.compute_node_search_by_hypervisor(context,
                                                                pattern)
        if not nodes:
            raise webob.exc.HTTPNotFound(
                explanation='No hypervisor matching \'%s\' could be found.'
                            % pattern)
        out = []
        for node in nodes:
            servers = self._servers_on(context, node)
            out.append(self._view(req, context, node,
                                  self._service_of(context, node), False,
                                  servers or None))
        return {'hypervisors': out}
