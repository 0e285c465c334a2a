"""Role shorthands shared by every policy module (Nova's names)."""

from oslo_policy import policy

ADMIN = 'rule:context_is_admin'
PROJECT_MEMBER = 'rule:project_member_api'
PROJECT_READER = 'rule:project_reader_api'
PROJECT_MEMBER_OR_ADMIN = 'rule:project_member_or_admin'
PROJECT_READER_OR_ADMIN = 'rule:project_reader_or_admin'
SERVICE_ROLE = 'rule:service_api'
SERVICE_OR_ADMIN = 'rule:service_or_admin'
ADMIN_OR_OWNER_USER = '(rule:context_is_admin) or user_id:%(user_id)s'
ANY = '@'

PROJECT = ['project']

rules = [
    policy.RuleDefault('context_is_admin', 'role:admin',
                       'Decides what is an administrator.'),
    policy.RuleDefault('admin_api', 'is_admin:True or role:admin',
                       'Administrator-only APIs (legacy name).'),
    policy.RuleDefault('project_member_api',
                       'role:member and project_id:%(project_id)s',
                       'A member of the project that owns the resource.'),
    policy.RuleDefault('project_reader_api',
                       'role:reader and project_id:%(project_id)s',
                       'A reader of the project that owns the resource.'),
    policy.RuleDefault('project_member_or_admin',
                       'rule:project_member_api or rule:context_is_admin',
                       'Project member or administrator.'),
    policy.RuleDefault('project_reader_or_admin',
                       'rule:project_reader_api or rule:context_is_admin',
                       'Project reader or administrator.'),
    policy.RuleDefault('service_api', 'role:service',
                       'Another OpenStack service (Neutron, Cinder...).'),
    policy.RuleDefault('service_or_admin',
                       'rule:service_api or rule:context_is_admin',
                       'A service user or an administrator.'),
]


def rule(name, check_str, description, operations, scope_types=None):
    """A DocumentedRuleDefault with project scope unless told otherwise."""
    return policy.DocumentedRuleDefault(
        name=name, check_str=check_str, description=description,
        operations=[{'method': m, 'path': p} for m, p in operations],
        scope_types=scope_types or PROJECT)


def list_rules():
    return rules
