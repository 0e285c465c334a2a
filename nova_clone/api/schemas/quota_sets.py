"""Schemas of /os-quota-sets."""

import copy

from nova_clone.api.schemas import parameter_types as pt

_limit = {'type': ['integer', 'string'], 'pattern': '^-?[0-9]+$',
          'minimum': -1, 'maximum': 0x7FFFFFFF}

_resources = {
    'instances': _limit, 'cores': _limit, 'ram': _limit,
    'floating_ips': _limit, 'fixed_ips': _limit,
    'metadata_items': _limit, 'key_pairs': _limit,
    'security_groups': _limit, 'security_group_rules': _limit,
    'injected_files': _limit, 'injected_file_content_bytes': _limit,
    'injected_file_path_bytes': _limit, 'server_groups': _limit,
    'server_group_members': _limit, 'networks': _limit,
}

update = {
    'type': 'object',
    'properties': {
        'quota_set': {
            'type': 'object',
            'properties': dict(_resources, force=pt.boolean),
            'additionalProperties': False,
        },
    },
    'required': ['quota_set'],
    'additionalProperties': False,
}

update_v236 = copy.deepcopy(update)
for _name in ('floating_ips', 'fixed_ips', 'security_groups',
              'security_group_rules', 'networks'):
    del update_v236['properties']['quota_set']['properties'][_name]

update_v257 = copy.deepcopy(update_v236)
for _name in ('injected_files', 'injected_file_content_bytes',
              'injected_file_path_bytes'):
    del update_v257['properties']['quota_set']['properties'][_name]
