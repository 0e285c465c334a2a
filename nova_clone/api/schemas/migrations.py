"""Query schemas of GET /os-migrations, by microversion."""

from nova_clone.api.schemas import parameter_types as pt

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
