"""/os-hosts (up to 2.42; 404 from 2.43): the services' hosts, a host's
resources, enabling it, maintenance and power actions.

Enable/disable, maintenance and power actions are RPC calls to the
host's compute, answered by its virt driver: a driver without the
feature gets 501, a host whose compute is down 400, an unknown host 404.
"""

import webob.exc

from nova_clone.api import auth
from nova_clone.api import common
from nova_clone.api import resource
from nova_clone.api.schemas import hosts as schema
from nova_clone.api import validation
from nova_clone.compute.api import host as host_api
from nova_clone import context as nova_context
from nova_clone import exception
from nova_clone.policies import hosts as hosts_policies

# Services that run no host-level work.
_API_SERVICES = ('nova-osapi_compute', 'nova-metadata')


def _not_supported():
    return webob.exc.HTTPNotImplemented(
        explanation='The requested functionality is not supported.')


def _resource(host, project, cpu, memory_mb, disk_gb):
    return {'resource': {'host': host, 'project': project, 'cpu': cpu,
                         'memory_mb': memory_mb, 'disk_gb': disk_gb}}


def _sum(host, project, instances):
    return _resource(host, project,
                     sum(i.vcpus or 0 for i in instances),
                     sum(i.memory_mb or 0 for i in instances),
                     sum((i.root_gb or 0) + (i.ephemeral_gb or 0)
                         for i in instances))


class HostController(object):

    def __init__(self):
        self.host_api = host_api.HostAPI()

    @resource.api_version(None, '2.42')
    @validation.query_schema(schema.index_query)
    def index(self, req):
        context = auth.get_context(req)
        context.can(hosts_policies.HOSTS % 'list', target={})
        filters = {'disabled': False}
        zone = req.GET.get('zone')
        if zone:
            filters['availability_zone'] = zone
        services = self.host_api.service_get_all(context, filters=filters,
                                                 set_zones=True)
        return {'hosts': [{'host_name': s.host, 'service': s.topic,
                           'zone': s.availability_zone}
                          for s in services
                          if s.binary not in _API_SERVICES]}

    @resource.api_version(None, '2.42')
    def show(self, req, host_name):
        context = auth.get_context(req)
        context.can(hosts_policies.HOSTS % 'show', target={})
        from nova_clone import objects
        try:
            mapping = objects.HostMapping.get_by_host(context, host_name)
            with nova_context.target_cell(context,
                                          mapping.cell_mapping) as cctxt:
                node = objects.ComputeNode.\
                    get_first_node_by_host_for_old_compat(cctxt, host_name)
                instances = list(objects.InstanceList.get_by_host(
                    cctxt, host_name))
        except (exception.ComputeHostNotFound,
                exception.HostMappingNotFound) as exc:
            raise webob.exc.HTTPNotFound(explanation=exc.format_message())
        resources = [
            _resource(host_name, '(total)', node.vcpus, node.memory_mb,
                      node.local_gb),
            _resource(host_name, '(used_now)', node.vcpus_used,
                      node.memory_mb_used, node.local_gb_used),
            _sum(host_name, '(used_max)', instances)]
        by_project = {}
        for instance in instances:
            by_project.setdefault(instance.project_id, []).append(instance)
        for project_id, owned in by_project.items():
            resources.append(_sum(host_name, project_id, owned))
        return {'host': resources}

    def _ask(self, fn, *args):
        try:
            return fn(*args)
        except NotImplementedError:
            raise _not_supported()
        except exception.HostNotFound as exc:
            raise webob.exc.HTTPNotFound(explanation=exc.format_message())
        except exception.ComputeServiceUnavailable as exc:
            raise common.bad_request(exc.format_message())

    @resource.api_version(None, '2.42')
    @validation.schema(schema.update)
    def update(self, req, host_name, body):
        context = auth.get_context(req)
        context.can(hosts_policies.HOSTS % 'update', target={})
        result = {'host': host_name}
        status = body.get('status')
        if status is not None:
            answer = self._ask(self.host_api.set_host_enabled, context,
                               host_name, status.lower() == 'enable')
            if answer not in ('enabled', 'disabled'):
                raise common.bad_request(answer)
            result['status'] = answer
        mode = body.get('maintenance_mode')
        if mode is not None:
            answer = self._ask(self.host_api.set_host_maintenance, context,
                               host_name, mode.lower() == 'enable')
            if answer not in ('on_maintenance', 'off_maintenance'):
                raise common.bad_request(answer)
            result['maintenance_mode'] = answer
        return result

    def _power(self, req, host_name, action, rule):
        context = auth.get_context(req)
        context.can(hosts_policies.HOSTS % rule, target={})
        answer = self._ask(self.host_api.host_power_action, context,
                           host_name, action)
        return {'host': host_name, 'power_action': answer}

    @resource.api_version(None, '2.42')
    def startup(self, req, host_name):
        return self._power(req, host_name, 'startup', 'start')

    @resource.api_version(None, '2.42')
    def shutdown(self, req, host_name):
        return self._power(req, host_name, 'shutdown', 'shutdown')

    @resource.api_version(None, '2.42')
    def reboot(self, req, host_name):
        return self._power(req, host_name, 'reboot', 'reboot')
