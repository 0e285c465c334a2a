"""/os-availability-zone and /os-availability-zone/detail."""

from nova_clone.api import auth
from nova_clone.compute.api import host as host_api
from nova_clone.conf import CONF
from nova_clone.policies import admin as admin_policies

_SUBSECOND = '%Y-%m-%dT%H:%M:%S.%f'


def _zone(service):
    zone = service.availability_zone if service.obj_attr_is_set(
        'availability_zone') else None
    if zone:
        return zone
    if service.binary == 'nova-compute':
        return CONF.default_availability_zone
    return CONF.internal_service_availability_zone


class AvailabilityZoneController(object):

    def __init__(self):
        self.host_api = host_api.HostAPI()

    def _services(self, context):
        return self.host_api.service_get_all(context.elevated(),
                                             set_zones=True)

    def index(self, req):
        context = auth.get_context(req)
        context.can(admin_policies.AZ % 'list')
        available, unavailable = [], []
        for service in self._services(context):
            if service.binary != 'nova-compute':
                continue
            zone = _zone(service)
            if not service.disabled:
                if zone not in available:
                    available.append(zone)
            elif zone not in unavailable:
                unavailable.append(zone)
        unavailable = [z for z in unavailable if z not in available]
        info = [{'zoneName': z, 'zoneState': {'available': True},
                 'hosts': None} for z in available]
        info += [{'zoneName': z, 'zoneState': {'available': False},
                  'hosts': None} for z in unavailable]
        return {'availabilityZoneInfo': info}

    def detail(self, req):
        context = auth.get_context(req)
        context.can(admin_policies.AZ % 'detail', target={})
        zones = {}
        for service in self._services(context):
            if service.disabled and service.binary == 'nova-compute':
                continue
            zone = zones.setdefault(_zone(service), {})
            updated = getattr(service, 'updated_at', None)
            zone.setdefault(service.host, {})[service.binary] = {
                'available': self.host_api.service_is_up(service),
                'active': not service.disabled,
                'updated_at': updated.strftime(_SUBSECOND)
                if updated else None,
            }
        info = [{'zoneName': name, 'zoneState': {'available': True},
                 'hosts': hosts} for name, hosts in sorted(zones.items())]
        return {'availabilityZoneInfo': info}
