"""RAMWeigher: free RAM; a positive multiplier spreads, negative stacks."""

from nova_clone.conf import CONF
from nova_clone.scheduler import weights


class RAMWeigher(weights.BaseHostWeigher):
    def weight_multiplier(self, host_state):
        return CONF.filter_scheduler.ram_weight_multiplier

    def _weigh_object(self, host_state, spec_obj):
        return host_state.free_ram_mb
