"""Policies of a server's security groups."""

from nova_clone.policies import base

BASE = 'os_compute_api:os-security-groups:%s'

rules = [
    base.rule(BASE % 'list', base.PROJECT_READER_OR_ADMIN,
              "List a server's security groups",
              [('GET', '/servers/{server_id}/os-security-groups')]),
    base.rule(BASE % 'add', base.PROJECT_MEMBER_OR_ADMIN,
              'Add a security group to a server',
              [('POST', '/servers/{server_id}/action (addSecurityGroup)')]),
    base.rule(BASE % 'remove', base.PROJECT_MEMBER_OR_ADMIN,
              'Remove a security group from a server',
              [('POST',
                '/servers/{server_id}/action (removeSecurityGroup)')]),
]


def list_rules():
    return rules
