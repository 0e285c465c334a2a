"""Reusable JSON-Schema fragments (Nova's parameter types)."""

import copy

boolean = {
    'type': ['boolean', 'string'],
    'enum': [True, 'True', 'TRUE', 'true', '1', 'ON', 'On', 'on',
             'YES', 'Yes', 'yes',
             False, 'False', 'FALSE', 'false', '0', 'OFF', 'Off', 'off',
             'NO', 'No', 'no'],
}

none = {'enum': ['None', None, {}]}

name = {
    'type': 'string', 'minLength': 1, 'maxLength': 255,
    'format': 'name',
}

name_with_leading_trailing_spaces = {
    'type': 'string', 'minLength': 1, 'maxLength': 255,
    'format': 'name_with_leading_trailing_spaces',
}

description = {
    'type': ['string', 'null'], 'minLength': 0, 'maxLength': 255,
    'pattern': r'^[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f]*$',
}

tcp_udp_port = {
    'type': ['integer', 'string'], 'pattern': '^[0-9]*$',
    'minimum': 0, 'maximum': 65535, 'minLength': 1,
}

project_id = {
    'type': 'string', 'minLength': 1, 'maxLength': 255,
    'pattern': '^[a-zA-Z0-9-]*$',
}

server_id = {'type': 'string', 'format': 'uuid'}

image_id = {'type': 'string', 'format': 'uuid'}

image_id_or_empty_string = {
    'oneOf': [{'type': 'string', 'format': 'uuid'},
              {'type': 'string', 'maxLength': 0}],
}

volume_id = {'type': 'string', 'format': 'uuid'}

network_id = {'type': 'string', 'format': 'uuid'}

network_port_id = {'type': 'string', 'format': 'uuid'}

admin_password = {'type': 'string'}

flavor_ref = {'type': ['string', 'integer'], 'minLength': 1}

positive_integer = {
    'type': ['integer', 'string'], 'pattern': '^[0-9]*$', 'minimum': 1,
    'minLength': 1,
}

non_negative_integer = {
    'type': ['integer', 'string'], 'pattern': '^[0-9]*$', 'minimum': 0,
    'minLength': 1,
}

# Flavor sizes must also fit a signed 32-bit database column.
flavor_param_positive = copy.deepcopy(positive_integer)
flavor_param_positive['maximum'] = 2 ** 31 - 1
flavor_param_non_negative = copy.deepcopy(non_negative_integer)
flavor_param_non_negative['maximum'] = 2 ** 31 - 1

hostname = {
    'type': 'string', 'minLength': 2, 'maxLength': 63,
    # One RFC 1123 label (create/update 2.90-2.93): no dots; an FQDN is
    # accepted from 2.94 (fqdn below).
    'pattern': '^[a-zA-Z0-9]+[a-zA-Z0-9-]*[a-zA-Z0-9]+$',
}

fqdn = {
    'type': 'string', 'minLength': 1, 'maxLength': 255,
    'pattern': '^[a-zA-Z0-9-._]*$',
}

hostname_or_ip_address = {
    'type': 'string', 'maxLength': 255,
    'pattern': '^[a-zA-Z0-9-_.:]*$',
}

ipv4 = {'type': 'string', 'format': 'ipv4'}

ipv6 = {'type': 'string', 'format': 'ipv6'}

ip_address = {'type': 'string', 'oneOf': [{'format': 'ipv4'},
                                          {'format': 'ipv6'}]}

accessIPv4 = {'type': 'string', 'format': 'ipv4'}
accessIPv6 = {'type': 'string', 'format': 'ipv6'}

tag = {
    'type': 'string', 'minLength': 1, 'maxLength': 60,
    'pattern': '^[^,/]*$',
}

device_tag = {
    'type': 'string', 'maxLength': 255, 'pattern': '^[^,/]*$',
}

metadata = {
    'type': 'object',
    'patternProperties': {
        '^[a-zA-Z0-9-_:. ]{1,255}$': {'type': 'string', 'maxLength': 255},
    },
    'additionalProperties': False,
}

metadata_with_null = copy.deepcopy(metadata)
metadata_with_null['patternProperties'][
    '^[a-zA-Z0-9-_:. ]{1,255}$']['type'] = ['string', 'null']

availability_zone = {
    'type': 'string', 'minLength': 1, 'maxLength': 255,
    'format': 'name',
}

keypair_name_special_chars = {
    'type': 'string', 'minLength': 1, 'maxLength': 255,
    'format': 'keypair_name_20',
}

keypair_name_special_chars_292 = {
    'type': 'string', 'minLength': 1, 'maxLength': 255,
    'format': 'keypair_name_292',
}


def single_param(schema):
    """A query parameter given once: its schema inside an array."""
    return {'type': 'array', 'minItems': 1, 'maxItems': 1,
            'items': schema}


def multi_params(schema):
    """A query parameter that may repeat."""
    return {'type': 'array', 'items': schema}


common_query_param = multi_params({'type': 'string'})

common_query_regex_param = multi_params({'type': 'string', 'format': 'regex'})

limit_param = single_param(non_negative_integer)
marker_param = single_param({'type': 'string'})


def query(properties, strict):
    """A query-string schema; ``strict`` rejects unknown parameters."""
    return {'type': 'object', 'properties': dict(properties),
            'additionalProperties': not strict}


# The value of an action that takes no argument: clients send null, some
# (Tempest) an empty object.
no_arguments = {'type': ['null', 'object'], 'additionalProperties': False}


def server_action(key, value=no_arguments):
    """The body of ``POST /servers/{id}/action`` whose key is ``key``."""
    return {
        'type': 'object',
        'properties': {key: value},
        'required': [key],
        'additionalProperties': False,
    }
