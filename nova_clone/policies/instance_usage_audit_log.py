"""Policies of /os-instance_usage_audit_log: the administrator's."""

from nova_clone.policies import base

AUDIT = 'os_compute_api:os-instance-usage-audit-log:%s'

rules = [
    base.rule(AUDIT % 'list', base.ADMIN,
              'The audit report of the last whole period',
              [('GET', '/os-instance_usage_audit_log')]),
    base.rule(AUDIT % 'show', base.ADMIN,
              'The audit report of the last whole period before a date',
              [('GET', '/os-instance_usage_audit_log/{before_timestamp}')]),
]


def list_rules():
    return rules
