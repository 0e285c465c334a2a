"""Schemas of the ``rebuild`` server action, per microversion."""

import copy

from nova_clone.api.schemas import parameter_types as pt
from nova_clone.api.schemas import servers

_props = {
    'name': pt.name,
    'imageRef': pt.image_id,
    'adminPass': pt.admin_password,
    'metadata': pt.metadata,
    'preserve_ephemeral': pt.boolean,
    'OS-DCF:diskConfig': {'type': 'string', 'enum': ['AUTO', 'MANUAL']},
    'accessIPv4': pt.accessIPv4,
    'accessIPv6': pt.accessIPv6,
    'personality': servers.create['properties']['server']['properties'][
        'personality'],
}

rebuild = {
    'type': 'object',
    'properties': {
        'rebuild': {
            'type': 'object',
            'properties': _props,
            'required': ['imageRef'],
            'additionalProperties': False,
        },
    },
    'required': ['rebuild'],
    'additionalProperties': False,
}


def _derive(base, change):
    schema = copy.deepcopy(base)
    change(schema['properties']['rebuild']['properties'])
    return schema


rebuild_v219 = _derive(rebuild, lambda p: p.update(
    {'description': pt.description}))
rebuild_v254 = _derive(rebuild_v219, lambda p: p.update(
    {'key_name': {'oneOf': [pt.name, {'type': 'null'}]}}))


def _v257(p):
    del p['personality']
    p['user_data'] = {'oneOf': [
        {'type': 'string', 'format': 'base64', 'maxLength': 65535},
        {'type': 'null'}]}


rebuild_v257 = _derive(rebuild_v254, _v257)
rebuild_v263 = _derive(rebuild_v257, lambda p: p.update({
    'trusted_image_certificates': servers.create_v263['properties'][
        'server']['properties']['trusted_image_certificates']}))
rebuild_v290 = _derive(rebuild_v263, lambda p: p.update(
    {'hostname': pt.hostname}))
rebuild_v294 = _derive(rebuild_v290, lambda p: p.update(
    {'hostname': pt.fqdn}))
