"""Policies of /os-assisted-volume-snapshots: Cinder's (a service user)
or an administrator's."""

from nova_clone.policies import base

AVS = 'os_compute_api:os-assisted-volume-snapshots:%s'

rules = [
    base.rule(AVS % 'create', base.SERVICE_OR_ADMIN,
              'Snapshot an attached volume for Cinder',
              [('POST', '/os-assisted-volume-snapshots')]),
    base.rule(AVS % 'delete', base.SERVICE_OR_ADMIN,
              'Delete an assisted volume snapshot',
              [('DELETE', '/os-assisted-volume-snapshots/{snapshot_id}')]),
]


def list_rules():
    return rules
