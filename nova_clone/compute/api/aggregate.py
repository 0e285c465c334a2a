"""AggregateAPI: host aggregates as operators manage them.

Besides the API-DB records, a change reaches:
  * Placement: each compute node of a host added to (removed from) an
    aggregate joins (leaves) the Placement aggregate of the same uuid, which
    the scheduler's request filters ask Placement about;
  * the schedulers (fanout cast update_aggregates / delete_aggregate), so
    their cached host states see the new zones and metadata.
"""

from oslo_log import log as logging

from nova_clone import availability_zones
from nova_clone.conf import CONF
from nova_clone import context as nova_context
from nova_clone import exception
from nova_clone import objects

LOG = logging.getLogger(__name__)

AZ_KEY = availability_zones.AZ_KEY


class AggregateAPI(object):

    def __init__(self, placement_client=None, query_client=None,
                 compute_task_api=None, image_api=None):
        self._placement = placement_client
        self._query = query_client
        self._compute_task = compute_task_api
        self._image = image_api

    @property
    def image_api(self):
        if self._image is None:
            from nova_clone.image import glance
            self._image = glance.API()
        return self._image

    @property
    def compute_task_api(self):
        if self._compute_task is None:
            from nova_clone.conductor import api as conductor_api
            self._compute_task = conductor_api.ComputeTaskAPI()
        return self._compute_task

    @property
    def placement_client(self):
        if self._placement is None:
            from nova_clone.placement import client
            self._placement = client.SchedulerReportClient()
        return self._placement

    @property
    def query_client(self):
        if self._query is None:
            from nova_clone.scheduler.client import query
            self._query = query.SchedulerQueryClient()
        return self._query

    def _updated(self, context, aggregate):
        try:
            self.query_client.update_aggregates(context, [aggregate])
        except Exception:
            # The schedulers reload on their own a few seconds later.
            LOG.warning('Could not tell the schedulers about aggregate %s',
                        aggregate.id, exc_info=True)
        return aggregate

    # -- records ------------------------------------------------------------
    def create_aggregate(self, context, name, availability_zone=None):
        if availability_zone:
            _check_zone_name(availability_zone, None)
        aggregate = objects.Aggregate(context, name=name)
        if availability_zone:
            aggregate.metadata = {AZ_KEY: availability_zone}
        aggregate.create()
        return self._updated(context, aggregate)

    def get_aggregate(self, context, aggregate_id):
        return objects.Aggregate.get_by_id(context, aggregate_id)

    def get_aggregate_list(self, context):
        return objects.AggregateList.get_all(context)

    def update_aggregate(self, context, aggregate_id, values):
        aggregate = objects.Aggregate.get_by_id(context, aggregate_id)
        values = dict(values)
        if AZ_KEY in values:
            self._check_zone_change(context, aggregate, values[AZ_KEY])
        if 'name' in values:
            aggregate.name = values.pop('name')
            aggregate.save()
        if values:
            aggregate.update_metadata(values)
        return self._updated(context, aggregate)

    def update_aggregate_metadata(self, context, aggregate_id, metadata):
        aggregate = objects.Aggregate.get_by_id(context, aggregate_id)
        if AZ_KEY in metadata:
            self._check_zone_change(context, aggregate, metadata[AZ_KEY])
        aggregate.update_metadata(metadata)
        return self._updated(context, aggregate)

    def delete_aggregate(self, context, aggregate_id):
        aggregate = objects.Aggregate.get_by_id(context, aggregate_id)
        if aggregate.hosts:
            raise exception.InvalidAggregateAction(
                action='delete', aggregate_id=aggregate_id,
                reason='Host aggregate is not empty')
        aggregate.destroy()
        try:
            self.query_client.delete_aggregate(context, aggregate)
        except Exception:
            LOG.warning('Could not tell the schedulers aggregate %s is gone',
                        aggregate_id, exc_info=True)

    # -- hosts ----------------------------------------------------------------
    def add_host_to_aggregate(self, context, aggregate_id, host_name):
        nodes = _compute_nodes(context, host_name)
        aggregate = objects.Aggregate.get_by_id(context, aggregate_id)
        zone = aggregate.availability_zone
        if zone:
            current = _other_zones(context, host_name, aggregate.id)
            if current and current != {zone}:
                raise exception.InvalidAggregateAction(
                    action='add_host', aggregate_id=aggregate_id,
                    reason='One or more hosts already in availability '
                           'zone(s) %s' % sorted(current))
        aggregate.add_host(host_name)
        for node in nodes:
            self._mirror(context, 'aggregate_add_host', aggregate, node)
        return self._updated(context, aggregate)

    def remove_host_from_aggregate(self, context, aggregate_id, host_name):
        nodes = _compute_nodes(context, host_name)
        aggregate = objects.Aggregate.get_by_id(context, aggregate_id)
        aggregate.delete_host(host_name)
        for node in nodes:
            self._mirror(context, 'aggregate_remove_host', aggregate, node)
        return self._updated(context, aggregate)

    def cache_images(self, context, aggregate_id, image_ids):
        """Ask the conductor to have the aggregate's hosts fetch the
        images (known to Glance) into their caches."""
        aggregate = objects.Aggregate.get_by_id(context, aggregate_id)
        for image_id in image_ids:
            self.image_api.get(context, image_id)
        self.compute_task_api.cache_images(context, aggregate, image_ids)

    def _mirror(self, context, method, aggregate, node):
        try:
            getattr(self.placement_client, method)(
                context, aggregate.uuid, node.hypervisor_hostname)
        except Exception:
            # Like Nova: the aggregate stands; nova-manage placement
            # sync_aggregates repairs Placement later.
            LOG.warning('Placement not updated for host %s in aggregate '
                        '%s (%s)', node.hypervisor_hostname, aggregate.uuid,
                        method, exc_info=True)

    def _check_zone_change(self, context, aggregate, zone):
        _check_zone_name(zone, aggregate.id)
        for host in aggregate.hosts or []:
            others = _other_zones(context, host, aggregate.id)
            if others and others != {zone}:
                raise exception.InvalidAggregateAction(
                    action='update', aggregate_id=aggregate.id,
                    reason='One or more hosts already in availability '
                           'zone(s) %s' % sorted(others))
        # A server keeps the zone it was booted in: renaming the zone
        # under it would leave it in a zone that no longer exists.
        if (zone != aggregate.availability_zone and
                _hosts_have_instances(context, aggregate.hosts or [])):
            raise exception.InvalidAggregateAction(
                action='update', aggregate_id=aggregate.id,
                reason='One or more hosts contain instances in this zone')


def _check_zone_name(zone, aggregate_id):
    if zone == CONF.internal_service_availability_zone:
        raise exception.InvalidAggregateAction(
            action='update', aggregate_id=aggregate_id,
            reason='The availability zone name must not be the internal '
                   'service availability zone %s' % zone)


def _other_zones(context, host, aggregate_id):
    """Zones the host has from aggregates other than ``aggregate_id``."""
    return {a.availability_zone for a in
            objects.AggregateList.get_by_host(context, host, key=AZ_KEY)
            if a.id != aggregate_id and a.availability_zone}


def _hosts_have_instances(context, hosts):
    """Whether any instance, soft-deleted ones included, is on ``hosts``."""
    if not hosts:
        return False
    return any(objects.InstanceList.get_count_by_hosts(cctxt, hosts)
               for _cell, cctxt in nova_context.each_cell(context))


def _compute_nodes(context, host_name):
    """The compute nodes of a mapped compute host; ComputeHostNotFound
    when there is no such compute."""
    try:
        mapping = objects.HostMapping.get_by_host(context, host_name)
    except exception.HostMappingNotFound:
        raise exception.ComputeHostNotFound(host=host_name)
    with nova_context.target_cell(context, mapping.cell_mapping) as cctxt:
        objects.Service.get_by_compute_host(cctxt, host_name)
        return list(objects.ComputeNodeList.get_all_by_host(cctxt,
                                                            host_name))
