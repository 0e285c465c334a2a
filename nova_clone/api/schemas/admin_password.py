"""Schema of the ``changePassword`` server action."""

from nova_clone.api.schemas import parameter_types as pt

change_password = {
    'type': 'object',
    'properties': {
        'changePassword': {
            'type': 'object',
            'properties': {'adminPass': pt.admin_password},
            'required': ['adminPass'],
            'additionalProperties': False,
        },
    },
    'required': ['changePassword'],
    'additionalProperties': False,
}
