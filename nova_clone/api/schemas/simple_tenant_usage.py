"""Query strings of /os-simple-tenant-usage: paging from 2.40, unknown
parameters refused from 2.75."""

from nova_clone.api.schemas import parameter_types as pt

_PERIOD = {'start': pt.common_query_param, 'end': pt.common_query_param}
_PAGING = {'limit': pt.multi_params(pt.non_negative_integer),
           'marker': pt.common_query_param}

index_query = pt.query(dict(_PERIOD, detailed=pt.common_query_param), False)
index_query_v240 = pt.query(dict(index_query['properties'], **_PAGING),
                            False)
index_query_v275 = pt.query(index_query_v240['properties'], True)

show_query = pt.query(_PERIOD, False)
show_query_v240 = pt.query(dict(_PERIOD, **_PAGING), False)
show_query_v275 = pt.query(show_query_v240['properties'], True)
