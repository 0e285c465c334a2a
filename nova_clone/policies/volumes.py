"""Policies of the Cinder proxies /os-volumes and /os-snapshots (to
2.35)."""

from nova_clone.policies import base

VOLUMES = 'os_compute_api:os-volumes:%s'
SNAPSHOTS = 'os_compute_api:os-volumes:snapshots:%s'

rules = [
    base.rule(VOLUMES % 'list', base.PROJECT_READER_OR_ADMIN,
              'List volumes (Cinder proxy)', [('GET', '/os-volumes')]),
    base.rule(VOLUMES % 'detail', base.PROJECT_READER_OR_ADMIN,
              'List volumes with details (Cinder proxy)',
              [('GET', '/os-volumes/detail')]),
    base.rule(VOLUMES % 'show', base.PROJECT_READER_OR_ADMIN,
              'Show a volume (Cinder proxy)',
              [('GET', '/os-volumes/{volume_id}')]),
    base.rule(VOLUMES % 'create', base.PROJECT_MEMBER_OR_ADMIN,
              'Create a volume (Cinder proxy)', [('POST', '/os-volumes')]),
    base.rule(VOLUMES % 'delete', base.PROJECT_MEMBER_OR_ADMIN,
              'Delete a volume (Cinder proxy)',
              [('DELETE', '/os-volumes/{volume_id}')]),
    base.rule(SNAPSHOTS % 'list', base.PROJECT_READER_OR_ADMIN,
              'List snapshots (Cinder proxy)', [('GET', '/os-snapshots')]),
    base.rule(SNAPSHOTS % 'detail', base.PROJECT_READER_OR_ADMIN,
              'List snapshots with details (Cinder proxy)',
              [('GET', '/os-snapshots/detail')]),
    base.rule(SNAPSHOTS % 'show', base.PROJECT_READER_OR_ADMIN,
              'Show a snapshot (Cinder proxy)',
              [('GET', '/os-snapshots/{snapshot_id}')]),
    base.rule(SNAPSHOTS % 'create', base.PROJECT_MEMBER_OR_ADMIN,
              'Create a snapshot (Cinder proxy)',
              [('POST', '/os-snapshots')]),
    base.rule(SNAPSHOTS % 'delete', base.PROJECT_MEMBER_OR_ADMIN,
              'Delete a snapshot (Cinder proxy)',
              [('DELETE', '/os-snapshots/{snapshot_id}')]),
]


def list_rules():
    return rules
