"""ComputeFilter: only hosts whose nova-compute is up and enabled."""

from oslo_log import log as logging

from nova_clone.scheduler import filters

LOG = logging.getLogger(__name__)


class ComputeFilter(filters.BaseHostFilter):

    run_on_rebuild = False

    run_filter_once_per_request = True

    def __init__(self, servicegroup_api=None):
        if servicegroup_api is None:
            from nova_clone.servicegroup import api as sg_api
            servicegroup_api = sg_api.API()
        self.servicegroup_api = servicegroup_api

    def host_passes(self, host_state, spec_obj):
        service = host_state.service
        if not service:
            LOG.debug('%s has no nova-compute service record', host_state)
            return False
        disabled = (service.get('disabled') if isinstance(service, dict)
                    else getattr(service, 'disabled', False))
        if disabled:
            LOG.debug('%s is disabled', host_state)
            return False
        if not self.servicegroup_api.service_is_up(service):
            LOG.warning('%s has not been heard from in a while', host_state)
            return False
        return True
