"""Schema of POST /os-server-external-events, per microversion."""

import copy

_names_v21 = ['network-changed', 'network-vif-plugged',
              'network-vif-unplugged', 'network-vif-deleted']

create = {
    'type': 'object',
    'properties': {
        'events': {
            'type': 'array', 'minItems': 1,
            'items': {
                'type': 'object',
                'properties': {
                    'server_uuid': {'type': 'string', 'format': 'uuid'},
                    'name': {'type': 'string', 'enum': _names_v21},
                    'status': {'type': 'string',
                               'enum': ['failed', 'completed',
                                        'in-progress']},
                    'tag': {'type': 'string', 'maxLength': 255},
                },
                'required': ['server_uuid', 'name'],
                'additionalProperties': False,
            },
        },
    },
    'required': ['events'],
    'additionalProperties': False,
}


def _with_names(base, *names):
    schema = copy.deepcopy(base)
    schema['properties']['events']['items']['properties']['name'][
        'enum'].extend(names)
    return schema


create_v251 = _with_names(create, 'volume-extended')
create_v276 = _with_names(create_v251, 'power-update')
create_v282 = _with_names(create_v276, 'accelerator-request-bound')
create_v293 = _with_names(create_v282, 'volume-reimaged')
