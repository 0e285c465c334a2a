"""Schemas of the flavor access actions."""

add_tenant_access = {
    'type': 'object',
    'properties': {
        'addTenantAccess': {
            'type': 'object',
            'properties': {'tenant': {'type': 'string', 'minLength': 1,
                                      'maxLength': 255}},
            'required': ['tenant'],
            'additionalProperties': False,
        },
    },
    'required': ['addTenantAccess'],
    'additionalProperties': False,
}

remove_tenant_access = {
    'type': 'object',
    'properties': {
        'removeTenantAccess': {
            'type': 'object',
            'properties': {'tenant': {'type': 'string', 'minLength': 1,
                                      'maxLength': 255}},
            'required': ['tenant'],
            'additionalProperties': False,
        },
    },
    'required': ['removeTenantAccess'],
    'additionalProperties': False,
}
