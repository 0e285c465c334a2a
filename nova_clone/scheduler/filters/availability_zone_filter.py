"""AvailabilityZoneFilter: the host is in the zone the server asked for."""

from nova_clone.scheduler import filters


class AvailabilityZoneFilter(filters.BaseHostFilter):

    run_on_rebuild = False

    run_filter_once_per_request = True

    def host_passes(self, host_state, spec_obj):
        wanted = getattr(spec_obj, 'availability_zone', None)
        if not wanted:
            return True
        return wanted in host_state.availability_zones
