"""Schemas of os-start, os-stop, reboot and trigger_crash_dump."""

from nova_clone.api.schemas import parameter_types as pt

start = pt.server_action('os-start')
stop = pt.server_action('os-stop')
trigger_crash_dump = pt.server_action('trigger_crash_dump')
reboot = pt.server_action('reboot', {
    'type': 'object',
    'properties': {
        'type': {'type': 'string',
                 'enum': ['HARD', 'Hard', 'hard', 'SOFT', 'Soft', 'soft']},
    },
    'required': ['type'],
    'additionalProperties': False,
})
