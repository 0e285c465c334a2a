"""The soft server group policies: ServerGroupSoftAffinityWeigher prefers
hosts holding more members of a soft-affinity group,
ServerGroupSoftAntiAffinityWeigher those holding fewer members of a
soft-anti-affinity group."""

from nova_clone.conf import CONF
from nova_clone.scheduler.filters import affinity_filter
from nova_clone.scheduler import weights


class _GroupWeigher(weights.BaseHostWeigher):
    policy = None
    sign = 1

    def _weigh_object(self, host_state, spec_obj):
        group = affinity_filter.group_of(spec_obj, self.policy)
        if group is None:
            return 0
        return self.sign * affinity_filter.members_on(group, host_state.host)


class ServerGroupSoftAffinityWeigher(_GroupWeigher):
    policy = 'soft-affinity'

    def weight_multiplier(self, host_state):
        return CONF.filter_scheduler.soft_affinity_weight_multiplier


class ServerGroupSoftAntiAffinityWeigher(_GroupWeigher):
    policy = 'soft-anti-affinity'
    sign = -1

    def weight_multiplier(self, host_state):
        return CONF.filter_scheduler.soft_anti_affinity_weight_multiplier
