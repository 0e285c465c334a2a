"""Schemas of /os-aggregates."""

from nova_clone.api.schemas import parameter_types as pt

_az = {
    'type': ['string', 'null'], 'minLength': 1, 'maxLength': 255,
    'format': 'name',
}


def _wrapped(key, properties, required=(), **extra):
    inner = {'type': 'object', 'properties': properties,
             'additionalProperties': False}
    if required:
        inner['required'] = list(required)
    inner.update(extra)
    return {'type': 'object', 'properties': {key: inner},
            'required': [key], 'additionalProperties': False}


create = _wrapped('aggregate', {'name': pt.name, 'availability_zone': _az},
                  required=['name'])

update = _wrapped('aggregate', {'name': pt.name, 'availability_zone': _az},
                  anyOf=[{'required': ['name']},
                         {'required': ['availability_zone']}])

add_host = _wrapped('add_host', {'host': pt.fqdn}, required=['host'])

remove_host = _wrapped('remove_host', {'host': pt.fqdn}, required=['host'])

set_metadata = _wrapped('set_metadata',
                        {'metadata': pt.metadata_with_null},
                        required=['metadata'])

images = {
    'type': 'object',
    'properties': {
        'cache': {
            'type': 'array',
            'minItems': 1,
            'items': {
                'type': 'object',
                'properties': {'id': pt.image_id},
                'required': ['id'],
                'additionalProperties': False,
            },
        },
    },
    'required': ['cache'],
    'additionalProperties': False,
}
