"""Schema of os-resetState."""

from nova_clone.api.schemas import parameter_types as pt

reset_state = pt.server_action('os-resetState', {
    'type': 'object',
    'properties': {'state': {'type': 'string', 'enum': ['active', 'error']}},
    'required': ['state'],
    'additionalProperties': False,
})
