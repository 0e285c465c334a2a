"""Schemas of the ``rescue`` and ``unrescue`` server actions."""

from nova_clone.api.schemas import parameter_types as pt

rescue = {
    'type': 'object',
    'properties': {
        'rescue': {
            'type': ['object', 'null'],
            'properties': {
                'adminPass': pt.admin_password,
                'rescue_image_ref': pt.image_id,
            },
            'additionalProperties': False,
        },
    },
    'required': ['rescue'],
    'additionalProperties': False,
}

unrescue = {
    'type': 'object',
    'properties': {'unrescue': {}},
    'required': ['unrescue'],
    'additionalProperties': False,
}
