"""Schema of the ``createBackup`` server action."""

from nova_clone.api.schemas import parameter_types as pt

create_backup = {
    'type': 'object',
    'properties': {
        'createBackup': {
            'type': 'object',
            'properties': {
                'name': pt.name,
                'backup_type': {'type': 'string'},
                'rotation': pt.non_negative_integer,
                'metadata': pt.metadata,
            },
            'required': ['name', 'backup_type', 'rotation'],
            'additionalProperties': False,
        },
    },
    'required': ['createBackup'],
    'additionalProperties': False,
}
