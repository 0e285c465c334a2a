"""/servers/{server_id}/os-instance-actions[/{request_id}]."""

from oslo_utils import timeutils
import webob.exc

from nova_clone.api import auth
from nova_clone.api import common
from nova_clone.api import microversion
from nova_clone.api.controllers import servers
from nova_clone.api.schemas import parameter_types as pt
from nova_clone.api import validation
from nova_clone.api.views import common as view_common
from nova_clone.api.views import servers as server_views
from nova_clone import context as nova_context
from nova_clone import exception
from nova_clone.policies import admin as admin_policies

_LIST_QUERY = {
    'limit': pt.multi_params(pt.non_negative_integer),
    'marker': pt.common_query_param,
    'changes-since': pt.multi_params({'type': 'string',
                                      'format': 'date-time'}),
    'changes-before': pt.multi_params({'type': 'string',
                                       'format': 'date-time'}),
}
_SUBSECOND = '%Y-%m-%dT%H:%M:%S.%f'


def _time(value):
    return value.strftime(_SUBSECOND) if value else None


def _host_id(project_id, host):
    import hashlib
    if not host:
        return ''
    return hashlib.sha224((project_id + host).encode()).hexdigest()


class InstanceActionsController(object):

    def _instance(self, req, server_id):
        context = auth.get_context(req)
        if microversion.is_supported(req, '2.21'):
            # Actions of deleted servers stay visible from 2.21.
            lookup = context.elevated(read_deleted='yes') \
                if context.is_admin else _read_deleted(context)
            try:
                instance = servers.compute_api().get(lookup, server_id)
            except exception.InstanceNotFound as exc:
                raise webob.exc.HTTPNotFound(
                    explanation=exc.format_message())
            if instance.project_id != context.project_id and \
                    not context.is_admin:
                raise webob.exc.HTTPNotFound(
                    explanation=exception.InstanceNotFound(
                        instance_id=server_id).format_message())
            return context, instance
        return context, servers.get_server(req, server_id)

    def _cell_context(self, context, instance):
        """A context targeted at the cell holding ``instance`` (None when
        it is still a build request)."""
        from nova_clone import objects
        try:
            mapping = objects.InstanceMapping.get_by_instance_uuid(
                context, instance.uuid)
        except exception.InstanceMappingNotFound:
            return None
        if mapping.cell_mapping is None:
            return None
        base = nova_context.RequestContext.from_dict(context.to_dict())
        base.read_deleted = 'yes'
        # target_cell copes with cell0, which has no message queue.
        with nova_context.target_cell(base, mapping.cell_mapping) as cctxt:
            return cctxt

    def _action_view(self, req, action):
        view = {
            'action': action.action,
            'instance_uuid': action.instance_uuid,
            'message': action.message,
            'project_id': action.project_id,
            'request_id': action.request_id,
            'start_time': _time(action.start_time),
            'user_id': action.user_id,
        }
        if microversion.is_supported(req, '2.58'):
            view['updated_at'] = _time(action.updated_at or
                                       action.start_time)
        return view

    @validation.query_schema(pt.query(_LIST_QUERY, True), '2.102')
    @validation.query_schema(pt.query(_LIST_QUERY, False), '2.1', '2.101')
    def index(self, req, server_id):
        context, instance = self._instance(req, server_id)
        context.can(admin_policies.ACTIONS % 'list',
                    target={'project_id': instance.project_id})
        limit = marker = None
        filters = {}
        if microversion.is_supported(req, '2.58'):
            if common.last_value(req, 'limit') is not None or \
                    common.last_value(req, 'marker') is not None:
                limit, marker = common.get_limit_and_marker(req)
            for key, since in (('changes-since', '2.58'),
                               ('changes-before', '2.66')):
                raw = common.last_value(req, key)
                if raw is not None and microversion.is_supported(req,
                                                                 since):
                    try:
                        filters[key] = (
                            timeutils.normalize_time(
                                timeutils.parse_isotime(raw)))
                    except ValueError:
                        raise common.bad_request(
                            'Invalid input for query parameters %s. '
                            'Value: %s.' % (key, raw))
        cctxt = self._cell_context(context, instance)
        actions = []
        if cctxt is not None:
            from nova_clone import objects
            try:
                actions = objects.InstanceActionList.get_by_instance_uuid(
                    cctxt, instance.uuid, limit=limit, marker=marker,
                    filters=filters)
            except exception.MarkerNotFound as exc:
                raise common.bad_request(exc.format_message())
        views = [self._action_view(req, a) for a in actions]
        body = {'instanceActions': views}
        if limit and len(views) == limit:
            links = view_common.next_link(
                req, 'servers/%s/os-instance-actions' % instance.uuid,
                views, limit, marker_key='request_id')
            if links:
                body['links'] = links
        return body

    def show(self, req, server_id, request_id):
        context, instance = self._instance(req, server_id)
        context.can(admin_policies.ACTIONS % 'show',
                    target={'project_id': instance.project_id})
        cctxt = self._cell_context(context, instance)
        from nova_clone import objects
        action = None
        if cctxt is not None:
            action = objects.InstanceAction.get_by_request_id(
                cctxt, instance.uuid, request_id)
        if action is None:
            raise webob.exc.HTTPNotFound(
                explanation='Action %s not found' % request_id)
        view = self._action_view(req, action)
        see_events = context.can(admin_policies.ACTIONS % 'events',
                                 target={'project_id': instance.project_id},
                                 fatal=False)
        if see_events or microversion.is_supported(req, '2.51'):
            events = objects.InstanceActionEventList.get_by_action(
                cctxt, action.id)
            see_details = microversion.is_supported(req, '2.84') and \
                context.can(admin_policies.ACTIONS % 'events:details',
                            target={'project_id': instance.project_id},
                            fatal=False)
            view['events'] = [self._event_view(req, e, instance,
                                               see_events, see_details)
                              for e in events]
        return {'instanceAction': view}

    def _event_view(self, req, event, instance, see_events, see_details):
        view = {
            'event': event.event,
            'start_time': _time(event.start_time),
            'finish_time': _time(event.finish_time),
            'result': event.result,
        }
        if see_events:
            view['traceback'] = event.traceback
        if microversion.is_supported(req, '2.62'):
            if see_events:
                view['host'] = event.host
            view['hostId'] = _host_id(instance.project_id, event.host or '')
        if see_details:
            view['details'] = server_views.attr(event, 'details')
        return view


def _read_deleted(context):
    ctx = nova_context.RequestContext.from_dict(context.to_dict())
    ctx.read_deleted = 'yes'
    return ctx
