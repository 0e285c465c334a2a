"""Schemas of /os-keypairs."""

import copy

from nova_clone.api.schemas import parameter_types as pt

create = {
    'type': 'object',
    'properties': {
        'keypair': {
            'type': 'object',
            'properties': {
                'name': pt.keypair_name_special_chars,
                'public_key': {'type': 'string'},
            },
            'required': ['name'],
            'additionalProperties': False,
        },
    },
    'required': ['keypair'],
    'additionalProperties': False,
}

create_v22 = copy.deepcopy(create)
create_v22['properties']['keypair']['properties']['type'] = {
    'type': 'string', 'enum': ['ssh', 'x509']}

create_v210 = copy.deepcopy(create_v22)
create_v210['properties']['keypair']['properties']['user_id'] = {
    'type': 'string'}

create_v292 = copy.deepcopy(create_v210)
create_v292['properties']['keypair']['properties']['name'] = (
    pt.keypair_name_special_chars_292)
create_v292['properties']['keypair']['required'] = ['name', 'public_key']

index_query = {
    'type': 'object', 'properties': {}, 'additionalProperties': True,
}

index_query_v210 = {
    'type': 'object',
    'properties': {'user_id': pt.multi_params({'type': 'string'})},
    'additionalProperties': True,
}

index_query_v235 = copy.deepcopy(index_query_v210)
index_query_v235['properties'].update({
    'limit': pt.multi_params(pt.non_negative_integer),
    'marker': pt.multi_params({'type': 'string'}),
})

index_query_v275 = copy.deepcopy(index_query_v235)
index_query_v275['additionalProperties'] = False

show_query = {'type': 'object', 'properties': {},
              'additionalProperties': True}
show_query_v210 = copy.deepcopy(index_query_v210)
show_query_v275 = copy.deepcopy(show_query_v210)
show_query_v275['additionalProperties'] = False
