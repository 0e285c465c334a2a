"""Schemas of the addSecurityGroup and removeSecurityGroup actions."""


def _action(key):
    return {
        'type': 'object',
        'properties': {
            key: {
                'type': 'object',
                'properties': {
                    'name': {'type': 'string', 'minLength': 1,
                             'maxLength': 255},
                },
                'required': ['name'],
                'additionalProperties': False,
            },
        },
        'required': [key],
        'additionalProperties': False,
    }


add_security_group = _action('addSecurityGroup')
remove_security_group = _action('removeSecurityGroup')
