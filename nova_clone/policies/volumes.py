"""Policies of the Cinder proxy /os-volumes (to 2.35)."""

from nova_clone.policies import base

VOLUMES = 'os_compute_api:os-volumes:%s'

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
]


def list_rules():
    return rules
