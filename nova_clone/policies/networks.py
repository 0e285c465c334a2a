"""Policies of the Neutron proxies os-networks, os-tenant-networks,
os-floating-ips and os-floating-ip-pools (os-security-groups has its own
module)."""

from nova_clone.policies import base

NETWORKS = 'os_compute_api:os-networks:%s'
TENANT_NETWORKS = 'os_compute_api:os-tenant-networks:%s'
FLOATING_IPS = 'os_compute_api:os-floating-ips:%s'
FLOATING_IP_POOLS = 'os_compute_api:os-floating-ip-pools:list'

rules = [
    base.rule(NETWORKS % 'list', base.PROJECT_READER_OR_ADMIN,
              'List networks (Neutron proxy)', [('GET', '/os-networks')]),
    base.rule(NETWORKS % 'show', base.PROJECT_READER_OR_ADMIN,
              'Show a network (Neutron proxy)',
              [('GET', '/os-networks/{network_id}')]),
    base.rule(TENANT_NETWORKS % 'list', base.PROJECT_READER_OR_ADMIN,
              'List project networks (Neutron proxy)',
              [('GET', '/os-tenant-networks')]),
    base.rule(TENANT_NETWORKS % 'show', base.PROJECT_READER_OR_ADMIN,
              'Show a project network (Neutron proxy)',
              [('GET', '/os-tenant-networks/{network_id}')]),
    base.rule(FLOATING_IPS % 'list', base.PROJECT_READER_OR_ADMIN,
              'List floating IPs (Neutron proxy)',
              [('GET', '/os-floating-ips')]),
    base.rule(FLOATING_IPS % 'show', base.PROJECT_READER_OR_ADMIN,
              'Show a floating IP (Neutron proxy)',
              [('GET', '/os-floating-ips/{floating_ip_id}')]),
    base.rule(FLOATING_IPS % 'create', base.PROJECT_MEMBER_OR_ADMIN,
              'Allocate a floating IP (Neutron proxy)',
              [('POST', '/os-floating-ips')]),
    base.rule(FLOATING_IPS % 'delete', base.PROJECT_MEMBER_OR_ADMIN,
              'Release a floating IP (Neutron proxy)',
              [('DELETE', '/os-floating-ips/{floating_ip_id}')]),
    base.rule(FLOATING_IPS % 'add', base.PROJECT_MEMBER_OR_ADMIN,
              'Bind a floating IP to a server (to 2.43)',
              [('POST', '/servers/{server_id}/action (addFloatingIp)')]),
    base.rule(FLOATING_IPS % 'remove', base.PROJECT_MEMBER_OR_ADMIN,
              'Unbind a floating IP from a server (to 2.43)',
              [('POST', '/servers/{server_id}/action (removeFloatingIp)')]),
    base.rule(FLOATING_IP_POOLS, base.PROJECT_READER_OR_ADMIN,
              'List floating IP pools (Neutron proxy)',
              [('GET', '/os-floating-ip-pools')]),
]


def list_rules():
    return rules
