"""/os-simple-tenant-usage: what projects' servers used over a period.

Usage is computed from the instances' launched_at/terminated_at and
flavor (deleted ones too) in every cell: hours in the period times the
flavor's vcpus, memory and disk.  ``start``/``end`` default to now; the
end is clamped to now.  2.40 pages over servers (limit/marker) with next
links.
"""

import datetime

from oslo_utils import timeutils

from nova_clone.api import auth
from nova_clone.api import common
from nova_clone.api import microversion
from nova_clone.api.schemas import simple_tenant_usage as schema
from nova_clone.api import validation
from nova_clone.api.views import common as view_common
from nova_clone.compute.api import usage as usage_api
from nova_clone import exception
from nova_clone.policies import simple_tenant_usage as usage_policies

_FORMATS = ('%Y-%m-%dT%H:%M:%S', '%Y-%m-%dT%H:%M:%S.%f',
            '%Y-%m-%d %H:%M:%S.%f')
# How Nova's JSON encoder writes a datetime.
_TIME_FORMAT = '%Y-%m-%dT%H:%M:%S.%f'


def _utcnow():
    return timeutils.utcnow().replace(tzinfo=None)


def _parse_time(req, name):
    raw = req.GET.get(name)
    if not raw:
        return _utcnow()
    for fmt in _FORMATS:
        try:
            return datetime.datetime.strptime(raw, fmt)
        except ValueError:
            continue
    raise common.bad_request('Invalid datetime string: Datetime is in '
                             'invalid format')


def _period(req):
    # Read one after the other, the defaults make a period of an instant.
    start = _parse_time(req, 'start')
    stop = _parse_time(req, 'end')
    if start > stop or (start == stop and req.GET.get('start')):
        raise common.bad_request('Invalid start time. The start time cannot '
                                 'occur after the end time.')
    return start, min(stop, _utcnow())


def _naive(value):
    return timeutils.normalize_time(value) if value is not None else None


def _hours(launched, terminated, start, stop):
    if launched is None or launched > stop or \
            (terminated is not None and terminated < start):
        return 0
    end = min(stop, terminated) if terminated is not None else stop
    return (end - max(launched, start)).total_seconds() / 3600.0


def _server_usage(instance, start, stop, now):
    launched = _naive(instance.launched_at)
    terminated = _naive(instance.terminated_at)
    flavor = instance.flavor
    state = 'terminated' if terminated else instance.vm_state
    uptime = (terminated or now) - launched if launched else \
        datetime.timedelta(0)
    return {
        'instance_id': instance.uuid, 'name': instance.display_name,
        'tenant_id': instance.project_id,
        'flavor': flavor.name if flavor is not None else '',
        'memory_mb': flavor.memory_mb,
        'local_gb': flavor.root_gb + flavor.ephemeral_gb,
        'vcpus': flavor.vcpus,
        'hours': _hours(launched, terminated, start, stop),
        'started_at': launched.strftime(_TIME_FORMAT) if launched else None,
        'ended_at': terminated.strftime(_TIME_FORMAT) if terminated
        else None,
        'state': state, 'uptime': int(uptime.total_seconds()),
    }


class SimpleTenantUsageController(object):

    def _usages(self, req, context, project_id, detailed):
        start, stop = _period(req)
        limit = marker = None
        if microversion.is_supported(req, '2.40'):
            limit, marker = common.get_limit_and_marker(req)
        try:
            instances = usage_api.instances_in_window(
                context, start, stop, project_id=project_id, limit=limit,
                marker=marker)
        except exception.MarkerNotFound as exc:
            raise common.bad_request(exc.format_message())
        now = _utcnow()
        tenants = {}
        servers = []
        for instance in instances:
            info = _server_usage(instance, start, stop, now)
            servers.append(info)
            summary = tenants.get(info['tenant_id'])
            if summary is None:
                summary = tenants[info['tenant_id']] = {
                    'tenant_id': info['tenant_id'],
                    'start': start.isoformat(), 'stop': stop.isoformat(),
                    'total_hours': 0, 'total_local_gb_usage': 0,
                    'total_memory_mb_usage': 0, 'total_vcpus_usage': 0}
                if detailed:
                    summary['server_usages'] = []
            hours = info['hours']
            summary['total_hours'] += hours
            summary['total_local_gb_usage'] += info['local_gb'] * hours
            summary['total_memory_mb_usage'] += info['memory_mb'] * hours
            summary['total_vcpus_usage'] += info['vcpus'] * hours
            if detailed:
                summary['server_usages'].append(info)
        return list(tenants.values()), servers, limit

    @validation.query_schema(schema.index_query_v275, '2.75')
    @validation.query_schema(schema.index_query_v240, '2.40', '2.74')
    @validation.query_schema(schema.index_query, '2.1', '2.39')
    def index(self, req):
        context = auth.get_context(req)
        context.can(usage_policies.USAGE % 'list', target={})
        usages, servers, limit = self._usages(
            req, context, None, req.GET.get('detailed') == '1')
        body = {'tenant_usages': usages}
        links = view_common.next_link(req, 'os-simple-tenant-usage',
                                      servers, limit,
                                      marker_key='instance_id')
        if links:
            body['tenant_usages_links'] = links
        return body

    @validation.query_schema(schema.show_query_v275, '2.75')
    @validation.query_schema(schema.show_query_v240, '2.40', '2.74')
    @validation.query_schema(schema.show_query, '2.1', '2.39')
    def show(self, req, tenant_id):
        context = auth.get_context(req)
        context.can(usage_policies.USAGE % 'show',
                    target={'project_id': tenant_id})
        usages, servers, limit = self._usages(req, context, tenant_id, True)
        body = {'tenant_usage': usages[0] if usages else {}}
        links = view_common.next_link(
            req, 'os-simple-tenant-usage/%s' % tenant_id, servers, limit,
            marker_key='instance_id')
        if links:
            body['tenant_usage_links'] = links
        return body
