"""/os-quota-class-sets/{class}: the limits of a quota class ('default'
is the one Nova uses)."""

import copy

import webob.exc

from nova_clone.api import auth
from nova_clone.api import microversion
from nova_clone.api.schemas import parameter_types as pt
from nova_clone.api.schemas import quota_sets as qs_schema
from nova_clone.api import validation
from nova_clone import exception
from nova_clone.policies import admin as admin_policies
from nova_clone import quota

_NETWORK = ('floating_ips', 'fixed_ips', 'security_groups',
            'security_group_rules')
_GROUPS = ('server_groups', 'server_group_members')
_PERSONALITY = ('injected_files', 'injected_file_content_bytes',
                'injected_file_path_length')
_API_NAME = {'injected_file_path_length': 'injected_file_path_bytes'}
_RESOURCE = {v: k for k, v in _API_NAME.items()}

_update = {
    'type': 'object',
    'properties': {
        'quota_class_set': copy.deepcopy(
            qs_schema.update['properties']['quota_set']),
    },
    'required': ['quota_class_set'],
    'additionalProperties': False,
}
del _update['properties']['quota_class_set']['properties']['force']
_update_v250 = copy.deepcopy(_update)
for _name in _NETWORK + ('networks',):
    del _update_v250['properties']['quota_class_set']['properties'][_name]
_update_v257 = copy.deepcopy(_update_v250)
for _name in ('injected_files', 'injected_file_content_bytes',
              'injected_file_path_bytes'):
    del _update_v257['properties']['quota_class_set']['properties'][_name]
_update_v250['properties']['quota_class_set']['properties'].update({
    'server_groups': pt.non_negative_integer,
    'server_group_members': pt.non_negative_integer})
_update_v257['properties']['quota_class_set']['properties'].update({
    'server_groups': pt.non_negative_integer,
    'server_group_members': pt.non_negative_integer})


def _format(req, limits, class_name=None):
    out = {}
    v250 = microversion.is_supported(req, '2.50')
    v257 = microversion.is_supported(req, '2.57')
    for res in quota.RESOURCES:
        if res in _GROUPS and not v250:
            continue
        if res in _PERSONALITY and v257:
            continue
        out[_API_NAME.get(res, res)] = limits[res]
    if not v250:
        for res in _NETWORK:
            out[res] = limits[res]
    if class_name is not None:
        out['id'] = class_name
    return {'quota_class_set': out}


class QuotaClassSetsController(object):

    def show(self, req, id):
        context = auth.get_context(req)
        context.can(admin_policies.QUOTA_CLASSES % 'show', target={})
        return _format(req, quota.get_class_quotas(context, id), id)

    @validation.schema(_update_v257, '2.57')
    @validation.schema(_update_v250, '2.50', '2.56')
    @validation.schema(_update, '2.1', '2.49')
    def update(self, req, id, body):
        context = auth.get_context(req)
        context.can(admin_policies.QUOTA_CLASSES % 'update', target={})
        values = {}
        for name, value in body['quota_class_set'].items():
            res = _RESOURCE.get(name, name)
            if res == 'networks':
                continue
            values[res] = int(value)
        try:
            quota.update_class(context, id, values)
        except exception.InvalidQuotaValue as exc:
            raise webob.exc.HTTPBadRequest(explanation=exc.format_message())
        return _format(req, quota.get_class_quotas(context, id))
