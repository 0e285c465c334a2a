"""Bodies of /os-security-groups, /os-security-group-rules and the
addSecurityGroup / removeSecurityGroup actions."""

_TEXT = {'type': 'string', 'minLength': 1, 'maxLength': 255}

_GROUP = {
    'type': 'object',
    'properties': {
        'security_group': {
            'type': 'object',
            'properties': {'name': _TEXT,
                           'description': dict(_TEXT, minLength=0)},
            'required': ['name', 'description'],
        },
    },
    'required': ['security_group'],
}
create = _GROUP
update = _GROUP

_PORT = {'type': ['integer', 'string', 'null'],
         'pattern': '^-?[0-9]+$'}

create_rule = {
    'type': 'object',
    'properties': {
        'security_group_rule': {
            'type': 'object',
            'properties': {
                'parent_group_id': {'type': 'string'},
                'group_id': {'type': ['string', 'null']},
                'ip_protocol': {'type': ['string', 'null']},
                'from_port': _PORT, 'to_port': _PORT,
                'cidr': {'type': ['string', 'null']},
            },
            'required': ['parent_group_id'],
        },
    },
    'required': ['security_group_rule'],
}


def _server_action(key):
    return {
        'type': 'object',
        'properties': {
            key: {
                'type': 'object',
                'properties': {'name': _TEXT},
                'required': ['name'],
                'additionalProperties': False,
            },
        },
        'required': [key],
        'additionalProperties': False,
    }


add_security_group = _server_action('addSecurityGroup')
remove_security_group = _server_action('removeSecurityGroup')
