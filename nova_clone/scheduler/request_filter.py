"""Request filters: narrow the Placement query before asking it.

Each function gets the context, the RequestSpec and the ResourceRequest
and may add required/forbidden traits.  (Mapping a requested availability
zone to Placement aggregates comes with host aggregates.)
"""

import os_traits


def compute_status_filter(ctxt, request_spec, resources):
    """Skip providers of computes an operator disabled."""
    resources.forbidden_traits.add(os_traits.COMPUTE_STATUS_DISABLED)
    return True


ALL_REQUEST_FILTERS = [compute_status_filter]


def process_reqspec(ctxt, request_spec, resources):
    for flt in ALL_REQUEST_FILTERS:
        flt(ctxt, request_spec, resources)
