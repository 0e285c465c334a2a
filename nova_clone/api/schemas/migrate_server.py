"""Schemas of the resize and cold-migration server actions."""

from nova_clone.api.schemas import parameter_types as pt

resize = {
    'type': 'object',
    'properties': {
        'resize': {
            'type': 'object',
            'properties': {
                'flavorRef': pt.flavor_ref,
                'OS-DCF:diskConfig': {'type': 'string',
                                      'enum': ['AUTO', 'MANUAL']},
            },
            'required': ['flavorRef'],
            'additionalProperties': False,
        },
    },
    'required': ['resize'],
    'additionalProperties': False,
}


def _no_body_action(name):
    return {
        'type': 'object',
        'properties': {name: {'type': 'null'}},
        'required': [name],
        'additionalProperties': False,
    }


confirm_resize = _no_body_action('confirmResize')
revert_resize = _no_body_action('revertResize')
migrate = _no_body_action('migrate')

migrate_v256 = {
    'type': 'object',
    'properties': {
        'migrate': {
            'type': ['object', 'null'],
            'properties': {'host': pt.fqdn},
            'additionalProperties': False,
        },
    },
    'required': ['migrate'],
    'additionalProperties': False,
}
