"""Schemas of /flavors (flavor-manage, extra specs)."""

import copy

from nova_clone.api.schemas import parameter_types as pt

_flavor_id = {
    'type': ['string', 'number', 'null'], 'minLength': 1, 'maxLength': 255,
    'pattern': '^(?! )[a-zA-Z0-9. _-]+(?<! )$',
}

_flavor_props = {
    'name': pt.name,
    'id': _flavor_id,
    'ram': pt.flavor_param_positive,
    'vcpus': pt.flavor_param_positive,
    'disk': pt.flavor_param_non_negative,
    'OS-FLV-EXT-DATA:ephemeral': pt.flavor_param_non_negative,
    'swap': pt.flavor_param_non_negative,
    'rxtx_factor': {
        'type': ['number', 'string'],
        'pattern': r'^[0-9]+(\.[0-9]+)?$',
        'minimum': 0, 'exclusiveMinimum': True,
        'maximum': 3.40282e+38,
    },
    'os-flavor-access:is_public': pt.boolean,
}

create = {
    'type': 'object',
    'properties': {
        'flavor': {
            'type': 'object',
            'properties': _flavor_props,
            'required': ['name', 'ram', 'vcpus', 'disk'],
            'additionalProperties': False,
        },
    },
    'required': ['flavor'],
    'additionalProperties': False,
}

create_v20 = copy.deepcopy(create)
create_v20['properties']['flavor']['properties']['name'] = (
    pt.name_with_leading_trailing_spaces)

create_v255 = copy.deepcopy(create)
create_v255['properties']['flavor']['properties']['description'] = (
    pt.description)

create_v2102 = copy.deepcopy(create_v255)
del create_v2102['properties']['flavor']['properties']['rxtx_factor']

update = {
    'type': 'object',
    'properties': {
        'flavor': {
            'type': 'object',
            'properties': {'description': pt.description},
            'required': ['description'],
            'additionalProperties': False,
        },
    },
    'required': ['flavor'],
    'additionalProperties': False,
}

_index_props = {
    'limit': pt.multi_params(pt.non_negative_integer),
    'marker': pt.common_query_param,
    'is_public': pt.common_query_param,
    'minRam': pt.common_query_param,
    'minDisk': pt.common_query_param,
    'sort_key': pt.common_query_param,
    'sort_dir': pt.common_query_param,
}

index_query = {
    'type': 'object', 'properties': _index_props,
    'additionalProperties': True,
}

index_query_v275 = copy.deepcopy(index_query)
index_query_v275['additionalProperties'] = False

index_query_v2102 = copy.deepcopy(index_query_v275)
index_query_v2102['properties']['name'] = pt.common_query_param

_spec_value = {
    'type': ['string', 'number', 'boolean'], 'minLength': 0,
    'maxLength': 255,
}

extra_specs_create = {
    'type': 'object',
    'properties': {
        'extra_specs': {
            'type': 'object',
            'patternProperties': {'^[a-zA-Z0-9-_:. ]{1,255}$': _spec_value},
            'additionalProperties': False,
        },
    },
    'required': ['extra_specs'],
    'additionalProperties': False,
}

extra_specs_update = {
    'type': 'object',
    'patternProperties': {'^[a-zA-Z0-9-_:. ]{1,255}$': _spec_value},
    'additionalProperties': False,
    'minProperties': 1,
    'maxProperties': 1,
}
