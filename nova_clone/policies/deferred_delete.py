"""Policies of the ``restore`` and ``forceDelete`` server actions."""

from nova_clone.policies import base

BASE = 'os_compute_api:os-deferred-delete:%s'

rules = [
    base.rule(BASE % 'restore', base.PROJECT_MEMBER_OR_ADMIN,
              'Restore a soft deleted server',
              [('POST', '/servers/{server_id}/action (restore)')]),
    base.rule(BASE % 'force', base.PROJECT_MEMBER_OR_ADMIN,
              'Force delete a server before its reclaim',
              [('POST', '/servers/{server_id}/action (forceDelete)')]),
]


def list_rules():
    return rules
