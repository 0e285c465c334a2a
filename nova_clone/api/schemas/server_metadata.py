"""Schemas of /servers/{server_id}/metadata."""

from nova_clone.api.schemas import parameter_types as pt

create = {
    'type': 'object',
    'properties': {'metadata': pt.metadata},
    'required': ['metadata'],
    'additionalProperties': False,
}

update_all = create

update = {
    'type': 'object',
    'properties': {
        'meta': {
            'type': 'object',
            'patternProperties': {
                '^[a-zA-Z0-9-_:. ]{1,255}$': {'type': 'string',
                                               'maxLength': 255},
            },
            'additionalProperties': False,
            'minProperties': 1,
            'maxProperties': 1,
        },
    },
    'required': ['meta'],
    'additionalProperties': False,
}
