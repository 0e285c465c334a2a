"""Availability zones: made by the ``availability_zone`` metadata of host
aggregates.

A compute host is in the zone(s) of its aggregates, or in
``[DEFAULT] default_availability_zone`` when none has one; every other
service is in ``[DEFAULT] internal_service_availability_zone``.
"""

from nova_clone.conf import CONF

AZ_KEY = 'availability_zone'


def _zone_aggregates(context, hosts=None):
    from nova_clone import objects
    return objects.AggregateList.get_by_metadata_key(context, AZ_KEY,
                                                     hosts=hosts)


def zones_by_host(aggregates):
    """{host: zone name} from aggregates (several zones join with ',')."""
    zones = {}
    for agg in aggregates:
        zone = (agg.metadata or {}).get(AZ_KEY)
        for host in agg.hosts or [] if zone else []:
            zones.setdefault(host, set()).add(zone)
    return {host: ','.join(sorted(names)) for host, names in zones.items()}


def get_host_availability_zone(context, host):
    zones = zones_by_host(_zone_aggregates(context, hosts=[host]))
    return zones.get(host) or CONF.default_availability_zone


def set_availability_zones(context, services):
    """Fill each service's availability_zone (one API-DB query)."""
    zones = zones_by_host(_zone_aggregates(context))
    for service in services:
        if service.binary == 'nova-compute':
            service.availability_zone = (zones.get(service.host) or
                                         CONF.default_availability_zone)
        else:
            service.availability_zone = (
                CONF.internal_service_availability_zone)
    return services


def zone_names(context, enabled_hosts):
    """The zones the hosts ``enabled_hosts`` make up."""
    zones = zones_by_host(_zone_aggregates(context))
    return {zones.get(host) or CONF.default_availability_zone
            for host in enabled_hosts}
