"""BuildFailureWeigher: hosts whose recent builds failed rank last.

The compute counts its failed builds in a row in its node stats
(``failed_builds``, reset by a success); the large default multiplier puts
any such host behind every healthy one without ruling it out.
"""

from nova_clone.conf import CONF
from nova_clone.scheduler import weights


class BuildFailureWeigher(weights.BaseHostWeigher):
    def weight_multiplier(self, host_state):
        return CONF.filter_scheduler.build_failure_weight_multiplier

    def _weigh_object(self, host_state, spec_obj):
        return -host_state.failed_builds
