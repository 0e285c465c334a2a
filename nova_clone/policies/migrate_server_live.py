"""Policy of the os-migrateLive server action."""

from nova_clone.policies import base

MIGRATE_LIVE = 'os_compute_api:os-migrate-server:migrate_live'

rules = [
    base.rule(MIGRATE_LIVE, base.ADMIN,
              'Live migrate a server to a new host without a reboot',
              [('POST', '/servers/{server_id}/action (os-migrateLive)')]),
]


def list_rules():
    return rules
