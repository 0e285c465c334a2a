"""Policies of the shelve actions."""

from nova_clone.policies import base

POLICY_ROOT = 'os_compute_api:os-shelve:%s'

_ACTION = [('POST', '/servers/{server_id}/action (%s)')]


def _op(action):
    return [(method, path % action) for method, path in _ACTION]


rules = [
    base.rule(POLICY_ROOT % 'shelve', base.PROJECT_MEMBER_OR_ADMIN,
              'Shelve a server', _op('shelve')),
    base.rule(POLICY_ROOT % 'shelve_offload', base.ADMIN,
              'Offload a shelved server', _op('shelveOffload')),
    base.rule(POLICY_ROOT % 'unshelve', base.PROJECT_MEMBER_OR_ADMIN,
              'Unshelve a server', _op('unshelve')),
    base.rule(POLICY_ROOT % 'unshelve_to_host', base.ADMIN,
              'Unshelve an offloaded server onto a given host (2.91)',
              _op('unshelve')),
]


def list_rules():
    return rules
