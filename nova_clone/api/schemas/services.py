"""Schemas of /os-services."""

from nova_clone.api.schemas import parameter_types as pt

_host_binary = {
    'host': {'type': 'string', 'minLength': 1, 'maxLength': 255},
    'binary': {'type': 'string', 'minLength': 1, 'maxLength': 255},
}

service_update = {
    'type': 'object',
    'properties': dict(_host_binary, disabled_reason={
        'type': 'string', 'minLength': 1, 'maxLength': 255}),
    'required': ['host', 'binary'],
    'additionalProperties': False,
}

service_update_v211 = {
    'type': 'object',
    'properties': dict(_host_binary, disabled_reason={
        'type': 'string', 'minLength': 1, 'maxLength': 255},
        forced_down=pt.boolean),
    'required': ['host', 'binary'],
    'additionalProperties': False,
}

service_update_v253 = {
    'type': 'object',
    'properties': {
        'status': {'type': 'string', 'enum': ['enabled', 'disabled']},
        'disabled_reason': {'type': 'string', 'minLength': 1,
                            'maxLength': 255},
        'forced_down': pt.boolean,
    },
    'additionalProperties': False,
}

index_query = {
    'type': 'object',
    'properties': {'host': pt.common_query_param,
                   'binary': pt.common_query_param},
    'additionalProperties': True,
}

index_query_v275 = dict(index_query, additionalProperties=False)
