"""Schemas of the server actions that move a server: resize, cold and
live migration."""

import copy

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


confirm_resize = pt.server_action('confirmResize')
revert_resize = pt.server_action('revertResize')
migrate = pt.server_action('migrate')

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

_HOST = copy.deepcopy(pt.fqdn)
_HOST['type'] = ['string', 'null']


def _live(properties, required):
    return {
        'type': 'object',
        'properties': {
            'os-migrateLive': {
                'type': 'object',
                'properties': properties,
                'required': required,
                'additionalProperties': False,
            },
        },
        'required': ['os-migrateLive'],
        'additionalProperties': False,
    }


# 2.1-2.24: both flags, as booleans.
migrate_live = _live({'block_migration': pt.boolean,
                      'disk_over_commit': pt.boolean, 'host': _HOST},
                     ['block_migration', 'disk_over_commit', 'host'])

_BLOCK_MIGRATION_V225 = {'oneOf': [pt.boolean, {'enum': ['auto']}]}
# 2.25: block_migration may be "auto"; disk_over_commit is gone.
migrate_live_v225 = _live({'block_migration': _BLOCK_MIGRATION_V225,
                           'host': _HOST},
                          ['block_migration', 'host'])
# 2.30-2.67: force skips the scheduler for the given host.
migrate_live_v230 = _live({'block_migration': _BLOCK_MIGRATION_V225,
                           'host': _HOST, 'force': pt.boolean},
                          ['block_migration', 'host'])
# 2.68: force is gone again.
migrate_live_v268 = migrate_live_v225
