"""Schemas of POST /servers/{server_id}/os-interface."""

import copy

from nova_clone.api.schemas import parameter_types as pt

create = {
    'type': 'object',
    'properties': {
        'interfaceAttachment': {
            'type': 'object',
            'properties': {
                'net_id': pt.network_id,
                'port_id': pt.network_port_id,
                'fixed_ips': {
                    'type': 'array', 'minItems': 1, 'maxItems': 1,
                    'items': {
                        'type': 'object',
                        'properties': {'ip_address': pt.ip_address},
                        'required': ['ip_address'],
                        'additionalProperties': False,
                    },
                },
            },
            'additionalProperties': False,
        },
    },
    'additionalProperties': False,
}

create_v249 = copy.deepcopy(create)
create_v249['properties']['interfaceAttachment']['properties']['tag'] = (
    pt.device_tag)
