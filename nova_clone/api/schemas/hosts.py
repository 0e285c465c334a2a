"""Bodies and query strings of /os-hosts."""

from nova_clone.api.schemas import parameter_types as pt

_MODE = {'type': 'string', 'enum': ['enable', 'disable', 'Enable',
                                    'Disable', 'ENABLE', 'DISABLE']}

# Nova's schema nests its "one of the two is required" inside
# 'properties', where it constrains nothing: an empty body is accepted.
update = {
    'type': 'object',
    'properties': {'status': _MODE, 'maintenance_mode': _MODE},
    'additionalProperties': False,
}

index_query = pt.query({'zone': pt.common_query_param}, False)
