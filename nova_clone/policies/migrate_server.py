"""Policies of the resize, cold and live migration server actions."""

from nova_clone.policies import base

SERVERS = 'os_compute_api:servers:%s'
MIGRATE = 'os_compute_api:os-migrate-server:%s'

_ACTION = [('POST', '/servers/{server_id}/action')]

rules = [
    base.rule(SERVERS % 'resize', base.PROJECT_MEMBER_OR_ADMIN,
              'Resize a server (action resize)', _ACTION),
    base.rule(SERVERS % 'confirm_resize', base.PROJECT_MEMBER_OR_ADMIN,
              'Confirm a resize (action confirmResize)', _ACTION),
    base.rule(SERVERS % 'revert_resize', base.PROJECT_MEMBER_OR_ADMIN,
              'Revert a resize (action revertResize)', _ACTION),
    base.rule(MIGRATE % 'migrate', base.ADMIN,
              'Cold migrate a server (action migrate)', _ACTION),
    base.rule(MIGRATE % 'migrate:host', base.ADMIN,
              'Cold migrate a server to a given host (2.56+)', _ACTION),
    base.rule(MIGRATE % 'migrate_live', base.ADMIN,
              'Live migrate a server to a new host without a reboot',
              [('POST', '/servers/{server_id}/action (os-migrateLive)')]),
]


def list_rules():
    return rules
