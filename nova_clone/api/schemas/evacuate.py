"""Schemas of the ``evacuate`` server action, per microversion."""

import copy

from nova_clone.api.schemas import parameter_types as pt

evacuate = {
    'type': 'object',
    'properties': {
        'evacuate': {
            'type': 'object',
            'properties': {
                'host': pt.fqdn,
                'onSharedStorage': pt.boolean,
                'adminPass': pt.admin_password,
            },
            'required': ['onSharedStorage'],
            'additionalProperties': False,
        },
    },
    'required': ['evacuate'],
    'additionalProperties': False,
}

evacuate_v214 = copy.deepcopy(evacuate)
del evacuate_v214['properties']['evacuate']['properties']['onSharedStorage']
del evacuate_v214['properties']['evacuate']['required']

evacuate_v229 = copy.deepcopy(evacuate_v214)
evacuate_v229['properties']['evacuate']['properties']['force'] = pt.boolean

evacuate_v268 = copy.deepcopy(evacuate_v229)
del evacuate_v268['properties']['evacuate']['properties']['force']
