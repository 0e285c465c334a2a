"""Schemas of /os-server-groups."""

import copy

from nova_clone.api.schemas import parameter_types as pt

_HARD = ['anti-affinity', 'affinity']
_ALL = _HARD + ['soft-anti-affinity', 'soft-affinity']

create = {
    'type': 'object',
    'properties': {
        'server_group': {
            'type': 'object',
            'properties': {
                'name': pt.name,
                'policies': {
                    'type': 'array',
                    'items': [{'type': 'string', 'enum': _HARD}],
                    'uniqueItems': True,
                    'minItems': 1,
                    'maxItems': 1,
                    'additionalItems': False,
                },
            },
            'required': ['name', 'policies'],
            'additionalProperties': False,
        },
    },
    'required': ['server_group'],
    'additionalProperties': False,
}

create_v215 = copy.deepcopy(create)
create_v215['properties']['server_group']['properties']['policies'][
    'items'][0]['enum'] = _ALL

create_v264 = copy.deepcopy(create_v215)
_group = create_v264['properties']['server_group']
del _group['properties']['policies']
_group['properties']['policy'] = {'type': 'string', 'enum': _ALL}
_group['properties']['rules'] = {
    'type': 'object',
    'properties': {'max_server_per_host': pt.positive_integer},
    'additionalProperties': False,
}
_group['required'] = ['name', 'policy']

index_query = pt.query({
    'all_projects': pt.multi_params({'type': 'string'}),
    'limit': pt.multi_params(pt.non_negative_integer),
    'offset': pt.multi_params(pt.non_negative_integer),
}, strict=False)

index_query_v275 = pt.query({
    'all_projects': pt.single_param(pt.boolean),
    'limit': pt.single_param(pt.non_negative_integer),
    'offset': pt.single_param(pt.non_negative_integer),
}, strict=True)
