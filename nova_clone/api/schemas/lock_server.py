"""Schemas of the lock and unlock actions (a reason from 2.73)."""

from nova_clone.api.schemas import parameter_types as pt

lock = pt.server_action('lock')
lock_v273 = pt.server_action('lock', {
    'type': ['object', 'null'],
    'properties': {
        'locked_reason': {'type': 'string', 'minLength': 1,
                          'maxLength': 255},
    },
    'additionalProperties': False,
})
unlock = pt.server_action('unlock')
