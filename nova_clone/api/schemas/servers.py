"""Schemas of /servers: create and update bodies per microversion, and
the list query string."""

import copy

from nova_clone.api.schemas import parameter_types as pt

_bdm_v2 = {
    'type': 'object',
    'properties': {
        'source_type': {'type': 'string',
                        'enum': ['volume', 'image', 'snapshot', 'blank']},
        'uuid': {'type': 'string', 'minLength': 1, 'maxLength': 255,
                 'pattern': '^[a-zA-Z0-9._-]*$'},
        'image_id': pt.image_id,
        'destination_type': {'type': 'string',
                             'enum': ['local', 'volume']},
        'guest_format': {'type': 'string', 'maxLength': 255},
        'device_type': {'type': 'string', 'maxLength': 255},
        'disk_bus': {'type': 'string', 'maxLength': 255},
        'boot_index': {'type': ['integer', 'string', 'null'],
                       'pattern': '^-?[0-9]+$'},
        'device_name': {'type': 'string', 'minLength': 1,
                        'maxLength': 255, 'pattern': '^[a-zA-Z0-9._/-]*$'},
        'delete_on_termination': pt.boolean,
        'volume_size': pt.non_negative_integer,
        'no_device': {},
        'connection_info': {'type': 'string', 'maxLength': 16777215},
    },
    'additionalProperties': False,
}

_network = {
    'type': 'object',
    'properties': {
        'fixed_ip': pt.ip_address,
        'port': {'oneOf': [{'type': 'string', 'format': 'uuid'},
                           {'type': 'null'}]},
        'uuid': {'type': 'string'},
    },
    'additionalProperties': False,
}

_server_props = {
    'name': pt.name,
    'imageRef': pt.image_id_or_empty_string,
    'flavorRef': pt.flavor_ref,
    'adminPass': pt.admin_password,
    'metadata': pt.metadata,
    'networks': {'type': 'array', 'items': _network},
    'OS-DCF:diskConfig': {'type': 'string', 'enum': ['AUTO', 'MANUAL']},
    'accessIPv4': pt.accessIPv4,
    'accessIPv6': pt.accessIPv6,
    'personality': {
        'type': 'array',
        'items': {
            'type': 'object',
            'properties': {
                'path': {'type': 'string'},
                'contents': {'type': 'string', 'format': 'base64'},
            },
            'additionalProperties': False,
        },
    },
    'availability_zone': pt.name,
    'block_device_mapping': {'type': 'array', 'items': {
        'type': 'object'}},
    'block_device_mapping_v2': {'type': 'array', 'items': _bdm_v2},
    'config_drive': pt.boolean,
    'key_name': pt.name,
    'min_count': pt.positive_integer,
    'max_count': pt.positive_integer,
    'return_reservation_id': pt.boolean,
    'security_groups': {
        'type': 'array',
        'items': {
            'type': 'object',
            'properties': {'name': pt.name},
            'additionalProperties': False,
        },
    },
    'user_data': {'type': 'string', 'format': 'base64',
                  'maxLength': 65535},
}

_hints = {
    'type': 'object',
    'properties': {
        'group': {'type': 'string', 'format': 'uuid'},
        'different_host': {'oneOf': [
            {'type': 'string', 'format': 'uuid'},
            {'type': 'array', 'items': {'type': 'string',
                                        'format': 'uuid'}}]},
        'same_host': {'oneOf': [
            {'type': 'string', 'format': 'uuid'},
            {'type': 'array', 'items': {'type': 'string',
                                        'format': 'uuid'}}]},
        'query': {'type': ['string', 'object']},
        'target_cell': pt.name,
        'different_cell': {'type': ['string', 'array'],
                           'items': {'type': 'string'}},
        'build_near_host_ip': pt.ip_address,
        'cidr': {'type': 'string', 'pattern': '^/[0-9a-f.:]+$'},
    },
    'additionalProperties': True,
}

create = {
    'type': 'object',
    'properties': {
        'server': {
            'type': 'object',
            'properties': _server_props,
            'required': ['name', 'flavorRef'],
            'additionalProperties': False,
        },
        'os:scheduler_hints': _hints,
        'OS-SCH-HNT:scheduler_hints': _hints,
    },
    'required': ['server'],
    'additionalProperties': False,
}


def _derive(base, change):
    schema = copy.deepcopy(base)
    change(schema['properties']['server']['properties'],
           schema['properties']['server'])
    return schema


create_v219 = _derive(create, lambda p, s: p.update(
    {'description': pt.description}))


def _v232(p, s):
    p['networks']['items']['properties']['tag'] = pt.device_tag
    p['block_device_mapping_v2']['items']['properties']['tag'] = (
        pt.device_tag)


create_v232 = _derive(create_v219, _v232)


def _v237(p, s):
    p['networks'] = {'oneOf': [
        {'type': 'array', 'items': p['networks']['items']},
        {'type': 'string', 'enum': ['none', 'auto']},
    ]}
    s['required'] = ['name', 'flavorRef', 'networks']


create_v237 = _derive(create_v232, _v237)
create_v242 = copy.deepcopy(create_v237)
create_v252 = _derive(create_v242, lambda p, s: p.update({'tags': {
    'type': 'array', 'items': pt.tag, 'maxItems': 50}}))


def _v257(p, s):
    del p['personality']


create_v257 = _derive(create_v252, _v257)
create_v263 = _derive(create_v257, lambda p, s: p.update({
    'trusted_image_certificates': {
        'type': ['array', 'null'], 'minItems': 1, 'maxItems': 50,
        'uniqueItems': True,
        'items': {'type': 'string', 'minLength': 1}}}))


def _v267(p, s):
    p['block_device_mapping_v2']['items']['properties']['volume_type'] = {
        'type': ['string', 'null'], 'minLength': 0, 'maxLength': 255}


create_v267 = _derive(create_v263, _v267)
create_v274 = _derive(create_v267, lambda p, s: p.update({
    'host': pt.fqdn, 'hypervisor_hostname': pt.fqdn}))
create_v290 = _derive(create_v274, lambda p, s: p.update({
    'hostname': pt.hostname}))
create_v294 = _derive(create_v290, lambda p, s: p.update({
    'hostname': pt.fqdn}))

_update_props = {
    'name': pt.name,
    'OS-DCF:diskConfig': {'type': 'string', 'enum': ['AUTO', 'MANUAL']},
    'accessIPv4': pt.accessIPv4,
    'accessIPv6': pt.accessIPv6,
}

update = {
    'type': 'object',
    'properties': {
        'server': {
            'type': 'object',
            'properties': _update_props,
            'additionalProperties': False,
        },
    },
    'required': ['server'],
    'additionalProperties': False,
}

update_v219 = _derive(update, lambda p, s: p.update(
    {'description': pt.description}))
update_v290 = _derive(update_v219, lambda p, s: p.update(
    {'hostname': pt.hostname}))
update_v294 = _derive(update_v290, lambda p, s: p.update(
    {'hostname': pt.fqdn}))
update_v2104 = _derive(update_v294, lambda p, s: p.update(
    {'pinned_availability_zone': {'type': ['string', 'null']}}))

_q = pt.common_query_param
_list_props = {
    'user_id': _q, 'project_id': _q, 'tenant_id': _q,
    'launch_index': _q, 'image_ref': _q, 'image': _q, 'kernel_id': _q,
    'ramdisk_id': _q, 'hostname': _q, 'key_name': _q,
    'power_state': _q, 'vm_state': _q, 'task_state': _q, 'host': _q,
    'node': _q, 'flavor': _q, 'reservation_id': _q,
    'launched_at': _q, 'terminated_at': _q, 'availability_zone': _q,
    'name': pt.common_query_regex_param, 'description': _q,
    'created_at': _q, 'locked_by': _q, 'uuid': _q, 'root_device_name': _q,
    'config_drive': _q, 'access_ip_v4': _q, 'access_ip_v6': _q,
    'auto_disk_config': _q, 'progress': _q, 'sort_key': _q,
    'sort_dir': _q, 'all_tenants': _q, 'soft_deleted': _q, 'deleted': _q,
    'status': _q, 'changes-since': pt.multi_params(
        {'type': 'string', 'format': 'date-time'}),
    'ip': pt.common_query_regex_param, 'ip6': pt.common_query_regex_param,
    'created_at ': _q, 'limit': pt.multi_params(pt.non_negative_integer),
    'marker': _q, 'tags': _q, 'tags-any': _q, 'not-tags': _q,
    'not-tags-any': _q,
}

list_query = {'type': 'object', 'properties': _list_props,
              'additionalProperties': True}
list_query_v266 = copy.deepcopy(list_query)
list_query_v266['properties']['changes-before'] = pt.multi_params(
    {'type': 'string', 'format': 'date-time'})
list_query_v273 = copy.deepcopy(list_query_v266)
list_query_v273['properties']['locked'] = _q
list_query_v2102 = copy.deepcopy(list_query_v273)
list_query_v2102['additionalProperties'] = False

show_query = {'type': 'object', 'properties': {},
              'additionalProperties': True}
show_query_v2102 = {'type': 'object', 'properties': {},
                    'additionalProperties': False}
