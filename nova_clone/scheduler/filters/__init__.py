"""Host filters: each says whether one host can take one request.

Filters run after Placement has already checked resources and traits, so
they look only at what Placement cannot know: service health, zones,
capabilities and image requirements.
"""

from oslo_log import log as logging

LOG = logging.getLogger(__name__)


class BaseHostFilter:
    """A filter; subclasses implement host_passes(host_state, spec_obj)."""

    # Filters whose answer cannot change between the instances of one
    # multi-create request are evaluated once per request.
    run_filter_once_per_request = False
    # Whether the filter runs when a rebuild with a new image checks the
    # instance's own host: only what the image changes matters there.
    run_on_rebuild = True

    def host_passes(self, host_state, spec_obj):
        raise NotImplementedError()

    def filter_all(self, host_states, spec_obj):
        for host_state in host_states:
            if self.host_passes(host_state, spec_obj):
                yield host_state


def all_filters():
    from nova_clone.scheduler.filters import affinity_filter
    from nova_clone.scheduler.filters import aggregate_instance_extra_specs
    from nova_clone.scheduler.filters import availability_zone_filter
    from nova_clone.scheduler.filters import compute_capabilities_filter
    from nova_clone.scheduler.filters import compute_filter
    from nova_clone.scheduler.filters import host_hint_filters
    from nova_clone.scheduler.filters import image_props_filter
    return {
        'ComputeFilter': compute_filter.ComputeFilter,
        'AvailabilityZoneFilter':
            availability_zone_filter.AvailabilityZoneFilter,
        'ComputeCapabilitiesFilter':
            compute_capabilities_filter.ComputeCapabilitiesFilter,
        'ImagePropertiesFilter': image_props_filter.ImagePropertiesFilter,
        'AggregateInstanceExtraSpecsFilter':
            aggregate_instance_extra_specs.AggregateInstanceExtraSpecsFilter,
        'ServerGroupAffinityFilter': affinity_filter.ServerGroupAffinityFilter,
        'ServerGroupAntiAffinityFilter':
            affinity_filter.ServerGroupAntiAffinityFilter,
        'SameHostFilter': host_hint_filters.SameHostFilter,
        'DifferentHostFilter': host_hint_filters.DifferentHostFilter,
    }


def load_filters(names):
    """Instances of the named filters; an unknown name is a config error."""
    known = all_filters()
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError('Unknown scheduler filter(s) %s in [filter_scheduler]'
                         ' enabled_filters; available: %s'
                         % (', '.join(unknown), ', '.join(sorted(known))))
    return [known[name]() for name in names]


def run_filters(filters, host_states, spec_obj):
    """Apply filters in order; log which filter emptied the list."""
    hosts = list(host_states)
    for flt in filters:
        before = len(hosts)
        hosts = list(flt.filter_all(hosts, spec_obj))
        LOG.debug('Filter %s returned %d host(s)', type(flt).__name__,
                  len(hosts))
        if not hosts:
            LOG.info('Filter %(f)s returned 0 hosts (of %(n)d) for '
                     'instance %(uuid)s',
                     {'f': type(flt).__name__, 'n': before,
                      'uuid': getattr(spec_obj, 'instance_uuid', None)})
            break
    return hosts
