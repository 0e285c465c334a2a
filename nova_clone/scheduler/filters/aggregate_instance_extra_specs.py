"""AggregateInstanceExtraSpecsFilter: flavor extra specs against the
metadata of the host's aggregates.

Keys scoped ``aggregate_instance_extra_specs:`` (and un-scoped keys
without a colon) must be matched, with the extra-spec operators, by a
value one of the host's aggregates gives that key.
"""

from nova_clone.scheduler import filters
from nova_clone.scheduler.filters import compute_capabilities_filter
from nova_clone.scheduler import utils

SCOPE = 'aggregate_instance_extra_specs'


def _wanted(flavor):
    specs = utils._get(flavor, 'extra_specs') or {}
    for key, requirement in specs.items():
        scope, _sep, name = key.partition(':')
        if not name:
            yield key, requirement
        elif scope == SCOPE:
            yield name, requirement


class AggregateInstanceExtraSpecsFilter(filters.BaseHostFilter):

    run_filter_once_per_request = True

    def host_passes(self, host_state, spec_obj):
        wanted = list(_wanted(utils._get(spec_obj, 'flavor')))
        if not wanted:
            return True
        metadata = {}
        for agg in host_state.aggregates:
            for key, value in (agg.metadata or {}).items():
                metadata.setdefault(key, set()).add(value)
        for key, requirement in wanted:
            values = metadata.get(key)
            if not values or not any(
                    compute_capabilities_filter.match(v, requirement)
                    for v in values):
                return False
        return True
