"""/os-server-groups: create, list, show, delete."""

import webob.exc

from nova_clone.api import auth
from nova_clone.api import common
from nova_clone.api import microversion
from nova_clone.api import resource
from nova_clone.api.schemas import server_groups as schema
from nova_clone.api import validation
from nova_clone import exception
from nova_clone import objects
from nova_clone.policies import server_groups as sg_policies
from nova_clone import quota


def _view(req, group):
    view = {'id': group.uuid, 'name': group.name}
    if microversion.is_supported(req, '2.64'):
        view['policy'] = group.policy
        view['rules'] = dict(group.rules or {})
    else:
        view['policies'] = group.policies
        view['metadata'] = {}
    view['members'] = group.existing_members()
    if microversion.is_supported(req, '2.13'):
        view['project_id'] = group.project_id
        view['user_id'] = group.user_id
    return view


def _get(context, group_id):
    try:
        return objects.InstanceGroup.get_by_uuid(context, group_id)
    except exception.InstanceGroupNotFound as exc:
        raise webob.exc.HTTPNotFound(explanation=exc.format_message())


class ServerGroupController(object):

    @validation.schema(schema.create_v264, '2.64')
    @validation.schema(schema.create_v215, '2.15', '2.63')
    @validation.schema(schema.create, '2.1', '2.14')
    def create(self, req, body):
        context = auth.get_context(req)
        context.can(sg_policies.GROUPS % 'create',
                    target={'project_id': context.project_id})
        params = body['server_group']
        if microversion.is_supported(req, '2.64'):
            policy = params['policy']
            rules = params.get('rules') or {}
            if rules and policy != 'anti-affinity':
                raise common.bad_request(
                    'Only anti-affinity policy supports rules.')
        else:
            policy = params['policies'][0]
            rules = {}
        try:
            quota.check_server_groups(context)
        except exception.ServerGroupQuotaExceeded as exc:
            raise webob.exc.HTTPForbidden(explanation=exc.format_message())
        group = objects.InstanceGroup(
            context, name=params['name'], policy=policy, rules=rules,
            user_id=context.user_id, project_id=context.project_id,
            members=[])
        group.create()
        return {'server_group': _view(req, group)}

    @validation.query_schema(schema.index_query_v275, '2.75')
    @validation.query_schema(schema.index_query, '2.1', '2.74')
    def index(self, req):
        context = auth.get_context(req)
        project_id = context.project_id
        context.can(sg_policies.GROUPS % 'index',
                    target={'project_id': project_id})
        all_projects = common.last_value(req, 'all_projects')
        if all_projects is not None and common.parse_bool(
                all_projects, 'all_projects') and context.can(
                    sg_policies.GROUPS % 'index:all_projects',
                    target={'project_id': project_id}, fatal=False):
            groups = objects.InstanceGroupList.get_all(context)
        else:
            groups = objects.InstanceGroupList.get_by_project_id(
                context, project_id)
        offset = int(common.last_value(req, 'offset') or 0)
        limit, _marker = common.get_limit_and_marker(req)
        groups = list(groups)[offset:offset + limit]
        return {'server_groups': [_view(req, g) for g in groups]}

    def show(self, req, group_id):
        context = auth.get_context(req)
        group = _get(context, group_id)
        context.can(sg_policies.GROUPS % 'show',
                    target={'project_id': group.project_id})
        return {'server_group': _view(req, group)}

    def delete(self, req, group_id):
        context = auth.get_context(req)
        group = _get(context, group_id)
        context.can(sg_policies.GROUPS % 'delete',
                    target={'project_id': group.project_id})
        try:
            group.destroy()
        except exception.InstanceGroupNotFound as exc:
            raise webob.exc.HTTPNotFound(explanation=exc.format_message())
        return resource.ResponseObject(None, code=204)
