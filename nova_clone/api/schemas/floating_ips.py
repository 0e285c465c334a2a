"""Bodies of /os-floating-ips and the addFloatingIp/removeFloatingIp
server actions."""

_IP = {'type': 'string', 'oneOf': [{'format': 'ipv4'}, {'format': 'ipv6'}]}

create = {
    'type': ['object', 'null'],
    'properties': {'pool': {'type': ['string', 'null']}},
}

add_floating_ip = {
    'type': 'object',
    'properties': {
        'addFloatingIp': {
            'type': 'object',
            'properties': {
                'address': _IP,
                'fixed_address': _IP,
            },
            'required': ['address'],
            'additionalProperties': False,
        },
    },
    'required': ['addFloatingIp'],
    'additionalProperties': False,
}

remove_floating_ip = {
    'type': 'object',
    'properties': {
        'removeFloatingIp': {
            'type': 'object',
            'properties': {
                'address': _IP,
            },
            'required': ['address'],
            'additionalProperties': False,
        },
    },
    'required': ['removeFloatingIp'],
    'additionalProperties': False,
}
