"""Request filters: narrow the Placement query before asking it.

Each function gets the context, the RequestSpec and the ResourceRequest
and may add required/forbidden traits or member_of aggregates.
"""

import os_traits
from oslo_log import log as logging

from nova_clone.conf import CONF

LOG = logging.getLogger(__name__)


def compute_status_filter(ctxt, request_spec, resources):
    """Skip providers of computes an operator disabled."""
    trait = getattr(os_traits, 'COMPUTE_STATUS_DISABLED', None)
    if trait:
        resources.forbidden_traits.add(trait)
    return True


def map_az_to_placement_aggregate(ctxt, request_spec, resources):
    """A requested zone becomes member_of its aggregates, when there are
    aggregates carrying that zone."""
    zone = getattr(request_spec, 'availability_zone', None)
    if not zone or not CONF.scheduler.query_placement_for_availability_zone:
        return False
    from nova_clone import objects
    agg_list = getattr(objects, 'AggregateList', None)
    if agg_list is None or not hasattr(agg_list, 'get_by_metadata'):
        return False
    try:
        aggs = agg_list.get_by_metadata(ctxt, key='availability_zone',
                                        value=zone)
    except Exception:
        LOG.exception('Could not read aggregates for zone %s', zone)
        return False
    uuids = [a.uuid for a in aggs if getattr(a, 'uuid', None)]
    if not uuids:
        return False
    resources.member_of.append(uuids)
    LOG.debug('Zone %s limits the request to aggregates %s', zone, uuids)
    return True


ALL_REQUEST_FILTERS = [compute_status_filter, map_az_to_placement_aggregate]


def process_reqspec(ctxt, request_spec, resources):
    for flt in ALL_REQUEST_FILTERS:
        flt(ctxt, request_spec, resources)
