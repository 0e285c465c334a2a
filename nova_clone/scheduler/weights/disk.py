"""DiskWeigher: free local disk in MiB."""

from nova_clone.conf import CONF
from nova_clone.scheduler import weights


class DiskWeigher(weights.BaseHostWeigher):
    def weight_multiplier(self, host_state):
        return CONF.filter_scheduler.disk_weight_multiplier

    def _weigh_object(self, host_state, spec_obj):
        return host_state.free_disk_mb
