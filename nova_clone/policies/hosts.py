"""Policies of /os-hosts (up to 2.42): the administrator's."""

from nova_clone.policies import base

HOSTS = 'os_compute_api:os-hosts:%s'

rules = [
    base.rule(HOSTS % 'list', base.ADMIN, 'List hosts',
              [('GET', '/os-hosts')]),
    base.rule(HOSTS % 'show', base.ADMIN, 'Show a host\'s resources',
              [('GET', '/os-hosts/{host_name}')]),
    base.rule(HOSTS % 'update', base.ADMIN,
              'Enable or disable a host, or put it in maintenance',
              [('PUT', '/os-hosts/{host_name}')]),
    base.rule(HOSTS % 'reboot', base.ADMIN, 'Reboot a host',
              [('GET', '/os-hosts/{host_name}/reboot')]),
    base.rule(HOSTS % 'shutdown', base.ADMIN, 'Shut a host down',
              [('GET', '/os-hosts/{host_name}/shutdown')]),
    base.rule(HOSTS % 'start', base.ADMIN, 'Start a host',
              [('GET', '/os-hosts/{host_name}/startup')]),
]


def list_rules():
    return rules
