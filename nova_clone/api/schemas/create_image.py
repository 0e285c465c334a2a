"""Schema of the ``createImage`` server action."""

from nova_clone.api.schemas import parameter_types as pt

create_image = {
    'type': 'object',
    'properties': {
        'createImage': {
            'type': 'object',
            'properties': {
                'name': pt.name,
                'metadata': pt.metadata,
            },
            'required': ['name'],
            'additionalProperties': False,
        },
    },
    'required': ['createImage'],
    'additionalProperties': False,
}
