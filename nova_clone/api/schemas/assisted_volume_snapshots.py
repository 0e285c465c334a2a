"""Body and query of /os-assisted-volume-snapshots."""

from nova_clone.api.schemas import parameter_types as pt

_TEXT = {'type': 'string', 'minLength': 1}

snapshots_create = {
    'type': 'object',
    'properties': {
        'snapshot': {
            'type': 'object',
            'properties': {
                'volume_id': _TEXT,
                'create_info': {
                    'type': 'object',
                    'properties': {
                        'snapshot_id': _TEXT,
                        'type': {'type': 'string', 'enum': ['qcow2']},
                        'new_file': _TEXT,
                        'id': _TEXT,
                    },
                    'required': ['snapshot_id', 'type', 'new_file'],
                    'additionalProperties': False,
                },
            },
            'required': ['volume_id', 'create_info'],
            'additionalProperties': False,
        },
    },
    'required': ['snapshot'],
    'additionalProperties': False,
}

delete_query = pt.query({'delete_info': pt.common_query_param}, False)
delete_query_v275 = pt.query({'delete_info': pt.common_query_param}, True)
