"""Policies of os-security-groups and os-security-group-rules (Neutron
proxies) and of a server's security groups."""

from nova_clone.policies import base

BASE = 'os_compute_api:os-security-groups:%s'

rules = [
    base.rule(BASE % 'get', base.PROJECT_READER_OR_ADMIN,
              'List security groups (Neutron proxy)',
              [('GET', '/os-security-groups')]),
    base.rule(BASE % 'show', base.PROJECT_READER_OR_ADMIN,
              'Show a security group (Neutron proxy)',
              [('GET', '/os-security-groups/{security_group_id}')]),
    base.rule(BASE % 'create', base.PROJECT_MEMBER_OR_ADMIN,
              'Create a security group (Neutron proxy)',
              [('POST', '/os-security-groups')]),
    base.rule(BASE % 'update', base.PROJECT_MEMBER_OR_ADMIN,
              'Update a security group (Neutron proxy)',
              [('PUT', '/os-security-groups/{security_group_id}')]),
    base.rule(BASE % 'delete', base.PROJECT_MEMBER_OR_ADMIN,
              'Delete a security group (Neutron proxy)',
              [('DELETE', '/os-security-groups/{security_group_id}')]),
    base.rule(BASE % 'rule:create', base.PROJECT_MEMBER_OR_ADMIN,
              'Create a security group rule (Neutron proxy)',
              [('POST', '/os-security-group-rules')]),
    base.rule(BASE % 'rule:delete', base.PROJECT_MEMBER_OR_ADMIN,
              'Delete a security group rule (Neutron proxy)',
              [('DELETE', '/os-security-group-rules/{rule_id}')]),
    base.rule(BASE % 'list', base.PROJECT_READER_OR_ADMIN,
              'List the security groups of a server',
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
