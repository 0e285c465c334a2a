"""Request filters: narrow the Placement query before asking it.

Each function gets the context, the RequestSpec and the ResourceRequest
and may add required/forbidden traits or aggregates (``member_of``), so
Placement returns only providers the request may use; a filter whose
option is off does nothing.  Host aggregates are mirrored to Placement
aggregates of the same uuid (see compute/api/aggregate.py).
"""

import os_traits
from oslo_log import log as logging

from nova_clone.conf import CONF
from nova_clone import exception
from nova_clone import objects
from nova_clone.scheduler import utils

LOG = logging.getLogger(__name__)

TENANT_KEY_PREFIX = 'filter_tenant_id'
TRAIT_KEY_PREFIX = 'trait:'


def compute_status_filter(ctxt, request_spec, resources):
    """Skip providers of computes an operator disabled."""
    resources.forbidden_traits.add(os_traits.COMPUTE_STATUS_DISABLED)
    return True


def map_az_to_placement_aggregate(ctxt, request_spec, resources):
    """Only the providers of the aggregates making up the requested
    zone.  The default zone has no aggregate: AvailabilityZoneFilter
    decides there."""
    if not CONF.scheduler.query_placement_for_availability_zone:
        return False
    zone = utils._get(request_spec, 'availability_zone')
    if not zone:
        return False
    aggregates = objects.AggregateList.get_by_metadata(
        ctxt, key='availability_zone', value=zone)
    if not aggregates:
        return False
    resources.member_of.append(sorted(a.uuid for a in aggregates))
    LOG.debug('Zone %s maps to Placement aggregates %s', zone,
              resources.member_of[-1])
    return True


def limit_tenants_to_placement_aggregate(ctxt, request_spec, resources):
    """A project named by aggregates' filter_tenant_id* metadata goes to
    those aggregates only."""
    if not CONF.scheduler.limit_tenants_to_placement_aggregate:
        return False
    project_id = utils._get(request_spec, 'project_id')
    aggregates = objects.AggregateList.get_by_metadata(ctxt,
                                                       value=project_id)
    mine = sorted({agg.uuid for agg in aggregates
                   for key, value in (agg.metadata or {}).items()
                   if key.startswith(TENANT_KEY_PREFIX) and
                   value == project_id})
    if mine:
        resources.member_of.append(mine)
        return True
    if CONF.scheduler.placement_aggregate_required_for_tenants:
        raise exception.NoValidHost(reason='No hosts available for tenant')
    return False


def isolate_aggregates(ctxt, request_spec, resources):
    """Keep off the aggregates requiring (trait:X=required) a trait the
    request does not ask for."""
    if not CONF.scheduler.enable_isolated_aggregate_filtering:
        return False
    wanted = set(resources.required_traits)
    forbidden = set()
    for agg in objects.AggregateList.get_by_metadata(ctxt, value='required'):
        required = {key[len(TRAIT_KEY_PREFIX):]
                    for key, value in (agg.metadata or {}).items()
                    if key.startswith(TRAIT_KEY_PREFIX) and
                    value == 'required'}
        if required and not required <= wanted:
            forbidden.add(agg.uuid)
    if not forbidden:
        return False
    resources.forbidden_aggregates |= forbidden
    return True


ALL_REQUEST_FILTERS = [
    compute_status_filter,
    map_az_to_placement_aggregate,
    limit_tenants_to_placement_aggregate,
    isolate_aggregates,
]


def process_reqspec(ctxt, request_spec, resources):
    for flt in ALL_REQUEST_FILTERS:
        flt(ctxt, request_spec, resources)
