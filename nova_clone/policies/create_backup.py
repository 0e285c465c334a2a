"""Policy of the ``createBackup`` server action."""

from nova_clone.policies import base

CREATE_BACKUP = 'os_compute_api:os-create-backup'

rules = [
    base.rule(CREATE_BACKUP, base.PROJECT_MEMBER_OR_ADMIN,
              'Create a back up of a server',
              [('POST', '/servers/{server_id}/action (createBackup)')]),
]


def list_rules():
    return rules
