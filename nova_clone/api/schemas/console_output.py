"""Schema of os-getConsoleOutput."""

from nova_clone.api.schemas import parameter_types as pt

get_console_output = pt.server_action('os-getConsoleOutput', {
    'type': 'object',
    'properties': {
        # A number, or its decimal string; -1 is the whole log.
        'length': {'type': ['integer', 'string', 'null'],
                   'pattern': '^-?[0-9]+$', 'minimum': -1},
    },
    'additionalProperties': False,
})
