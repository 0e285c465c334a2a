"""Policies of /servers/{server_id}/os-volume_attachments."""

from nova_clone.policies import base

POLICY_ROOT = 'os_compute_api:os-volumes-attachments:%s'

_PATH = '/servers/{server_id}/os-volume_attachments'
_ONE = _PATH + '/{volume_id}'

rules = [
    base.rule(POLICY_ROOT % 'index', base.PROJECT_READER_OR_ADMIN,
              'List volume attachments of a server', [('GET', _PATH)]),
    base.rule(POLICY_ROOT % 'show', base.PROJECT_READER_OR_ADMIN,
              'Show a volume attachment of a server', [('GET', _ONE)]),
    base.rule(POLICY_ROOT % 'create', base.PROJECT_MEMBER_OR_ADMIN,
              'Attach a volume to a server', [('POST', _PATH)]),
    base.rule(POLICY_ROOT % 'update', base.PROJECT_MEMBER_OR_ADMIN,
              'Update a volume attachment (delete_on_termination, 2.85)',
              [('PUT', _ONE)]),
    base.rule(POLICY_ROOT % 'swap', base.SERVICE_OR_ADMIN,
              'Swap the volume of an attachment for another',
              [('PUT', _ONE)]),
    base.rule(POLICY_ROOT % 'delete', base.PROJECT_MEMBER_OR_ADMIN,
              'Detach a volume from a server', [('DELETE', _ONE)]),
]


def list_rules():
    return rules
