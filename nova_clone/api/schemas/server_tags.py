"""Schema of PUT /servers/{server_id}/tags."""

from nova_clone.api.schemas import parameter_types as pt

MAX_TAGS = 50

update_all = {
    'type': 'object',
    'properties': {
        'tags': {'type': 'array', 'items': pt.tag, 'maxItems': MAX_TAGS},
    },
    'required': ['tags'],
    'additionalProperties': False,
}
