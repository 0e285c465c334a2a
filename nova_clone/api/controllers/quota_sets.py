"""/os-quota-sets/{project_id}: show, detail, defaults, update, delete."""

from oslo_utils import strutils
import webob.exc

from nova_clone.api import auth
from nova_clone.api import common
from nova_clone.api import microversion
from nova_clone.api import resource
from nova_clone.api.schemas import parameter_types as pt
from nova_clone.api.schemas import quota_sets as schema
from nova_clone.api import validation
from nova_clone import exception
from nova_clone.policies import admin as admin_policies
from nova_clone import quota

# API names that differ from the quota resource names.
_API_NAME = {'injected_file_path_length': 'injected_file_path_bytes'}
_RESOURCE = {v: k for k, v in _API_NAME.items()}
_PERSONALITY = ('injected_files', 'injected_file_content_bytes',
                'injected_file_path_length')


_USER_QUERY = pt.query({'user_id': pt.common_query_param}, False)
_USER_QUERY_STRICT = pt.query({'user_id': pt.common_query_param}, True)


def _visible(req, res):
    if res in _PERSONALITY and microversion.is_supported(req, '2.57'):
        return False
    return True


def _format(req, project_id, quotas, detail=False):
    out = {'id': project_id}
    for res in quota.RESOURCES:
        if not _visible(req, res):
            continue
        entry = quotas[res]
        out[_API_NAME.get(res, res)] = entry if detail else entry['limit']
    if not microversion.is_supported(req, '2.36'):
        for res in quota.LEGACY_NETWORK_RESOURCES:
            out[res] = ({'limit': -1, 'in_use': 0, 'reserved': 0}
                        if detail else -1)
    return {'quota_set': out}


class QuotaSetsController(object):

    def _show(self, req, project_id, detail):
        context = auth.get_context(req)
        action = 'detail' if detail else 'show'
        context.can(admin_policies.QUOTAS % action,
                    target={'project_id': project_id})
        user_id = common.last_value(req, 'user_id')
        quotas = quota.get_project_quotas(context, project_id,
                                          user_id=user_id, usages=detail)
        return _format(req, project_id, quotas, detail)

    @validation.query_schema(_USER_QUERY_STRICT, '2.102')
    @validation.query_schema(_USER_QUERY, '2.1', '2.101')
    def show(self, req, project_id):
        return self._show(req, project_id, False)

    @validation.query_schema(_USER_QUERY_STRICT, '2.102')
    @validation.query_schema(_USER_QUERY, '2.1', '2.101')
    def detail(self, req, project_id):
        return self._show(req, project_id, True)

    def defaults(self, req, project_id):
        context = auth.get_context(req)
        context.can(admin_policies.QUOTAS % 'defaults',
                    target={'project_id': project_id})
        limits = quota.get_defaults(context)
        return _format(req, project_id,
                       {r: {'limit': v} for r, v in limits.items()})

    @validation.query_schema(_USER_QUERY_STRICT, '2.102')
    @validation.query_schema(_USER_QUERY, '2.1', '2.101')
    @validation.schema(schema.update_v257, '2.57')
    @validation.schema(schema.update_v236, '2.36', '2.56')
    @validation.schema(schema.update, '2.1', '2.35')
    def update(self, req, project_id, body):
        context = auth.get_context(req)
        context.can(admin_policies.QUOTAS % 'update',
                    target={'project_id': project_id})
        user_id = common.last_value(req, 'user_id')
        values = dict(body['quota_set'])
        force = strutils.bool_from_string(values.pop('force', False))
        updates = {}
        for name, value in values.items():
            res = _RESOURCE.get(name, name)
            if res in quota.LEGACY_NETWORK_RESOURCES or res == 'networks':
                continue  # accepted and ignored, as Nova does
            updates[res] = int(value)
        try:
            quota.update_quotas(context, project_id, updates,
                                user_id=user_id, force=force)
        except exception.InvalidQuotaValue as exc:
            raise webob.exc.HTTPBadRequest(explanation=exc.format_message())
        quotas = quota.get_project_quotas(context, project_id,
                                          user_id=user_id, usages=False)
        body = _format(req, project_id, quotas)
        del body['quota_set']['id']
        return body

    @validation.query_schema(_USER_QUERY_STRICT, '2.102')
    @validation.query_schema(_USER_QUERY, '2.1', '2.101')
    @resource.response(202)
    def delete(self, req, project_id):
        context = auth.get_context(req)
        context.can(admin_policies.QUOTAS % 'delete',
                    target={'project_id': project_id})
        quota.destroy_all_by_project(
            context, project_id, user_id=common.last_value(req, 'user_id'))
