"""Schemas of the resize and cold-migration server actions and of
GET /os-migrations."""

from nova_clone.api.schemas import parameter_types as pt

resize = {
    'type': 'object',
    'properties': {
        'resize': {
            'type': 'object',
            'properties': {
                'flavorRef': pt.flavor_ref,
                'OS-DCF:diskConfig': {'type': 'string',
                                      'enum': ['AUTO', 'MANUAL']},
            },
            'required': ['flavorRef'],
            'additionalProperties': False,
        },
    },
    'required': ['resize'],
    'additionalProperties': False,
}


def _no_body_action(name):
    return {
        'type': 'object',
        'properties': {name: {'type': 'null'}},
        'required': [name],
        'additionalProperties': False,
    }


confirm_resize = _no_body_action('confirmResize')
revert_resize = _no_body_action('revertResize')
migrate = _no_body_action('migrate')

migrate_v256 = {
    'type': 'object',
    'properties': {
        'migrate': {
            'type': ['object', 'null'],
            'properties': {'host': pt.fqdn},
            'additionalProperties': False,
        },
    },
    'required': ['migrate'],
    'additionalProperties': False,
}

_LIST = {
    'hidden': pt.common_query_param,
    'host': pt.common_query_param,
    'instance_uuid': pt.common_query_param,
    'source_compute': pt.common_query_param,
    'status': pt.common_query_param,
    'migration_type': pt.common_query_param,
}
_LIST_V259 = dict(_LIST, **{
    'limit': pt.multi_params(pt.non_negative_integer),
    'marker': pt.common_query_param,
    'changes-since': pt.multi_params({'type': 'string',
                                      'format': 'date-time'}),
})
_LIST_V266 = dict(_LIST_V259, **{
    'changes-before': pt.multi_params({'type': 'string',
                                       'format': 'date-time'}),
})
_LIST_V280 = dict(_LIST_V266, user_id=pt.common_query_param,
                  project_id=pt.common_query_param)

list_query = pt.query(_LIST, False)
# From 2.59 unknown parameters are refused.
list_query_v259 = pt.query(_LIST_V259, True)
list_query_v266 = pt.query(_LIST_V266, True)
list_query_v280 = pt.query(_LIST_V280, True)
