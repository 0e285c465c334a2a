"""Bodies of the addFixedIp / removeFixedIp server actions."""

_IP = {'type': 'string', 'oneOf': [{'format': 'ipv4'}, {'format': 'ipv6'}]}

add_fixed_ip = {
    'type': 'object',
    'properties': {
        'addFixedIp': {
            'type': 'object',
            'properties': {
                'networkId': {'type': ['string', 'number'], 'minLength': 1,
                              'maxLength': 255},
            },
            'required': ['networkId'],
            'additionalProperties': False,
        },
    },
    'required': ['addFixedIp'],
    'additionalProperties': False,
}

remove_fixed_ip = {
    'type': 'object',
    'properties': {
        'removeFixedIp': {
            'type': 'object',
            'properties': {'address': _IP},
            'required': ['address'],
            'additionalProperties': False,
        },
    },
    'required': ['removeFixedIp'],
    'additionalProperties': False,
}
