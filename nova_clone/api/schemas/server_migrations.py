"""Schemas of /servers/{server_id}/migrations."""

force_complete = {
    'type': 'object',
    'properties': {'force_complete': {'type': 'null'}},
    'required': ['force_complete'],
    'additionalProperties': False,
}
