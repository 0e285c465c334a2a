"""The hard server group policies: ServerGroupAffinityFilter keeps the
members of an affinity group on the host they already use,
ServerGroupAntiAffinityFilter keeps those of an anti-affinity group apart
(at most ``max_server_per_host`` per host, one by default).

``instance_group.hosts`` holds one entry per member already placed (the
conductor reads them; the scheduler appends each host it picks for the
instances of the same request).
"""

from nova_clone.scheduler import filters
from nova_clone.scheduler import utils


def group_of(spec_obj, policy):
    """The request's server group when its policy is ``policy``."""
    group = utils._get(spec_obj, 'instance_group')
    if group is None or utils._get(group, 'policy') != policy:
        return None
    return group


def members_on(group, host):
    return list(utils._get(group, 'hosts') or []).count(host)


class ServerGroupAffinityFilter(filters.BaseHostFilter):

    def host_passes(self, host_state, spec_obj):
        group = group_of(spec_obj, 'affinity')
        if group is None:
            return True
        hosts = utils._get(group, 'hosts') or []
        return not hosts or host_state.host in hosts


class ServerGroupAntiAffinityFilter(filters.BaseHostFilter):

    def host_passes(self, host_state, spec_obj):
        group = group_of(spec_obj, 'anti-affinity')
        if group is None:
            return True
        rules = utils._get(group, 'rules') or {}
        limit = rules.get('max_server_per_host', 1)
        return members_on(group, host_state.host) < limit
