"""Schemas of POST /servers/{server_id}/remote-consoles and of the
console actions it replaced (before 2.6)."""

import copy

create_v26 = {
    'type': 'object',
    'properties': {
        'remote_console': {
            'type': 'object',
            'properties': {
                'protocol': {'type': 'string',
                             'enum': ['vnc', 'spice', 'rdp', 'serial']},
                'type': {'type': 'string',
                         'enum': ['novnc', 'xvpvnc', 'rdp-html5',
                                  'spice-html5', 'serial']},
            },
            'required': ['protocol', 'type'],
            'additionalProperties': False,
        },
    },
    'required': ['remote_console'],
    'additionalProperties': False,
}

create_v28 = copy.deepcopy(create_v26)
_props = create_v28['properties']['remote_console']['properties']
_props['protocol']['enum'].append('mks')
_props['type']['enum'].append('webmks')

create_v299 = copy.deepcopy(create_v28)
create_v299['properties']['remote_console']['properties']['type'][
    'enum'].append('spice-direct')


def _legacy(key, types):
    return {
        'type': 'object',
        'properties': {
            key: {
                'type': 'object',
                'properties': {'type': {'type': 'string', 'enum': types}},
                'required': ['type'],
                'additionalProperties': False,
            },
        },
        'required': [key],
        'additionalProperties': False,
    }


get_vnc_console = _legacy('os-getVNCConsole', ['novnc', 'xvpvnc'])
get_spice_console = _legacy('os-getSPICEConsole', ['spice-html5'])
get_serial_console = _legacy('os-getSerialConsole', ['serial'])
