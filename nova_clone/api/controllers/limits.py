"""GET /limits: absolute limits and what the project uses."""

from nova_clone.api import auth
from nova_clone.api import common
from nova_clone.api import microversion
from nova_clone.api.schemas import parameter_types as pt
from nova_clone.api import validation
from nova_clone.policies import admin as admin_policies
from nova_clone import quota

# API name -> quota resource, with the microversion range of each name.
_LIMIT_NAMES = [
    ('maxServerMeta', 'metadata_items', None, None),
    ('maxTotalCores', 'cores', None, None),
    ('maxTotalInstances', 'instances', None, None),
    ('maxTotalKeypairs', 'key_pairs', None, None),
    ('maxTotalRAMSize', 'ram', None, None),
    ('maxServerGroups', 'server_groups', None, None),
    ('maxServerGroupMembers', 'server_group_members', None, None),
    ('maxPersonality', 'injected_files', None, '2.56'),
    ('maxPersonalitySize', 'injected_file_content_bytes', None, '2.56'),
    ('maxImageMeta', 'metadata_items', None, '2.38'),
]
_USED_NAMES = [
    ('totalCoresUsed', 'cores'),
    ('totalInstancesUsed', 'instances'),
    ('totalRAMUsed', 'ram'),
    ('totalServerGroupsUsed', 'server_groups'),
]
# Network proxy limits, gone with the proxy APIs at 2.36.
_LEGACY_NETWORK = ['maxSecurityGroupRules', 'maxSecurityGroups',
                   'maxTotalFloatingIps']
_LEGACY_NETWORK_USED = ['totalFloatingIpsUsed', 'totalSecurityGroupsUsed']


_QUERY = {'tenant_id': pt.common_query_param}


class LimitsController(object):

    @validation.query_schema(pt.query(_QUERY, True), '2.102')
    @validation.query_schema(pt.query(_QUERY, False), '2.1', '2.101')
    def index(self, req):
        context = auth.get_context(req)
        project_id = context.project_id
        requested = common.last_value(req, 'tenant_id')
        if requested and requested != context.project_id:
            context.can(admin_policies.LIMITS_OTHER_PROJECT, target={})
            project_id = requested
        context.can(admin_policies.LIMITS,
                    target={'project_id': project_id})
        quotas = quota.get_project_quotas(context, project_id)
        absolute = {}
        for name, res, lo, hi in _LIMIT_NAMES:
            if microversion.is_supported(req, lo, hi):
                absolute[name] = quotas[res]['limit']
        for name, res in _USED_NAMES:
            absolute[name] = quotas[res]['in_use']
        if not microversion.is_supported(req, '2.36'):
            for name in _LEGACY_NETWORK:
                absolute[name] = -1
            for name in _LEGACY_NETWORK_USED:
                absolute[name] = 0
        return {'limits': {'absolute': absolute, 'rate': []}}
