"""Schemas of the shelve, shelveOffload and unshelve actions."""

import copy

from nova_clone.api.schemas import parameter_types as pt

shelve = pt.server_action('shelve')
shelve_offload = pt.server_action('shelveOffload')
unshelve = pt.server_action('unshelve')

# 2.77: a zone to unshelve an offloaded server into.
unshelve_v277 = {
    'type': 'object',
    'properties': {
        'unshelve': {
            'type': ['object', 'null'],
            'properties': {'availabilityZone': pt.availability_zone},
            'required': ['availabilityZone'],
            'additionalProperties': False,
        },
    },
    'required': ['unshelve'],
    'additionalProperties': False,
}

# 2.91: a host (admins), and a null zone to unpin the server.
unshelve_v291 = copy.deepcopy(unshelve_v277)
unshelve_v291['properties']['unshelve'].update({
    'properties': {
        'availabilityZone': {'oneOf': [pt.availability_zone,
                                       {'type': 'null'}]},
        'host': pt.fqdn,
    },
    'required': [],
    'minProperties': 1,
})
