"""HostAPI: services and compute nodes across every cell, for the REST
layer (os-services, os-hypervisors, os-availability-zone, host_status),
and the one answer nova-api has to "is this compute up".

Each listing is one query per cell, run in parallel; lookups by uuid try
the cells until one has the record.  A cell that does not answer is left
out, or (services from 2.69) listed from the API database's host mappings.
"""

from oslo_log import log as logging
from oslo_utils import uuidutils

from nova_clone.compute.api import down_cells
from nova_clone import context as nova_context
from nova_clone import exception

LOG = logging.getLogger(__name__)

CELL_TIMEOUT = 60


def _objects():
    from nova_clone import objects
    return objects


def _cells(context):
    return list(_objects().CellMappingList.get_all(context))


def _gather(context, fn, *args, **kwargs):
    """[(cell, result)] of ``fn(cell_ctxt, ...)`` in every cell that
    answered; failing cells are logged and skipped."""
    answered, _failed = _gather_all(context, fn, *args, **kwargs)
    return answered


def _gather_all(context, fn, *args, **kwargs):
    """([(cell, result)] of the cells that answered, [cell] of those that
    did not), both in the order the API DB lists the cells."""
    cells = _cells(context)
    # Targeting cell0 sets only its database (it has no queue).
    results = nova_context.scatter_gather_cells(
        context, cells, CELL_TIMEOUT, lambda c: fn(c, *args, **kwargs))
    answered, failed = [], []
    for cell in cells:
        result = results.get(cell.uuid)
        if nova_context.is_cell_failure_sentinel(result):
            LOG.warning('Cell %s did not answer; its records are missing',
                        cell.uuid)
            failed.append(cell)
        else:
            answered.append((cell, result))
    return answered, failed


def _find_in_cells(context, fn):
    """The first (cell, result) where fn(cell_ctxt) returned non-None."""
    for cell in _cells(context):
        with nova_context.target_cell(context, cell) as cctxt:
            try:
                result = fn(cctxt)
            except exception.NotFound:
                continue
            if result is not None:
                return cell, result
    return None, None


class HostAPI(object):
    """Sub-set of the compute API about hosts and services."""

    def __init__(self, servicegroup_api=None):
        self._servicegroup_api = servicegroup_api

    @property
    def servicegroup_api(self):
        if self._servicegroup_api is None:
            from nova_clone.servicegroup import api as sg_api
            self._servicegroup_api = sg_api.API()
        return self._servicegroup_api

    def get_host_uptime(self, service):
        """The hypervisor's uptime text, asked of its compute (RPC call);
        ComputeServiceUnavailable when that compute is down."""
        if service is None or not self.service_is_up(service):
            raise exception.ComputeServiceUnavailable(
                host=getattr(service, 'host', None))
        from nova_clone.compute import rpcapi
        return rpcapi.get_compute_rpcapi().get_host_uptime(service._context,
                                                           service.host)

    def service_is_up(self, service):
        return self.servicegroup_api.service_is_up(service)

    def _up_compute(self, context, host_name):
        """The compute service of ``host_name``, which must be up."""
        objects = _objects()
        try:
            mapping = objects.HostMapping.get_by_host(context, host_name)
            with nova_context.target_cell(context,
                                          mapping.cell_mapping) as cctxt:
                service = objects.Service.get_by_compute_host(cctxt,
                                                              host_name)
        except (exception.HostMappingNotFound,
                exception.ComputeHostNotFound):
            raise exception.HostNotFound(host=host_name)
        if not self.service_is_up(service):
            raise exception.ComputeServiceUnavailable(host=host_name)
        return service

    def _compute_rpc(self):
        from nova_clone.compute import rpcapi
        return rpcapi.get_compute_rpcapi()

    def set_host_enabled(self, context, host_name, enabled):
        """'enabled'/'disabled' as the compute answers (RPC call)."""
        service = self._up_compute(context, host_name)
        return self._compute_rpc().set_host_enabled(
            service._context, service.host, enabled)

    def set_host_maintenance(self, context, host_name, mode):
        service = self._up_compute(context, host_name)
        return self._compute_rpc().host_maintenance_mode(
            service._context, service.host, host_name, mode)

    def host_power_action(self, context, host_name, action):
        service = self._up_compute(context, host_name)
        return self._compute_rpc().host_power_action(
            service._context, service.host, action)

    def compute_is_up(self, cell_context, host):
        """Whether the nova-compute of ``host`` (in the cell that
        ``cell_context`` targets) is up; False when it has no record."""
        try:
            service = _objects().Service.get_by_compute_host(cell_context,
                                                            host)
        except exception.ComputeHostNotFound:
            return False
        return self.service_is_up(service)

    def host_status(self, service):
        """Nova's host_status of a server whose compute service record is
        ``service`` (None: no record)."""
        if service is None:
            return 'UNKNOWN'
        if not self.service_is_up(service):
            return 'DOWN'
        return 'MAINTENANCE' if service.disabled else 'UP'

    # -- services ---------------------------------------------------------
    def service_get_all(self, context, filters=None, set_zones=False,
                        all_cells=True, cell_down_support=False):
        """Services of every cell, filtered on host/binary/disabled/zone.

        ``cell_down_support`` (2.69): a cell that does not answer gives a
        minimal nova-compute service per host mapped to it.
        """
        filters = dict(filters or {})
        disabled = filters.pop('disabled', None)
        objects = _objects()

        def get(cctxt):
            return list(objects.ServiceList.get_all(
                cctxt, disabled=disabled,
                set_zones=set_zones or 'availability_zone' in filters))
        answered, failed = _gather_all(context, get)
        services = []
        for _cell, found in answered:
            services.extend(found)
        if cell_down_support:
            for cell in failed:
                services.extend(down_cells.compute_services(context, cell))
        result = []
        for service in services:
            keep = True
            for key, value in filters.items():
                if getattr(service, key, None) != value:
                    keep = False
                    break
            if keep:
                result.append(service)
        return result

    def service_get_by_id(self, context, service_id):
        """A service by uuid (2.53+) or by integer id (ambiguous across
        cells: raises ServiceNotUnique when two cells have that id)."""
        objects = _objects()
        if uuidutils.is_uuid_like(service_id):
            _cell, service = _find_in_cells(
                context, lambda c: objects.Service.get_by_uuid(
                    c, service_id))
            if service is None:
                raise exception.ServiceNotFound(service_id=service_id)
            return service
        found = []
        for _cell, service in _gather(
                context, lambda c: _try(objects.Service.get_by_id, c,
                                        int(service_id))):
            if service is not None:
                found.append(service)
        if not found:
            raise exception.ServiceNotFound(service_id=service_id)
        if len(found) > 1:
            raise exception.ServiceNotUnique()
        return found[0]

    service_get_by_uuid = service_get_by_id

    def service_get_by_host_and_binary(self, context, host, binary):
        objects = _objects()
        _cell, service = _find_in_cells(
            context, lambda c: objects.Service.get_by_args(c, host, binary))
        if service is None:
            raise exception.HostBinaryNotFound(host=host, binary=binary)
        return service

    def service_update(self, context, service):
        """Save a service fetched from its cell (its context is targeted)."""
        service.save()
        return service

    def service_delete(self, context, service_id):
        service = self.service_get_by_id(context, service_id)
        service.destroy()
        return service

    # -- compute nodes ----------------------------------------------------
    def compute_node_get_all(self, context, limit=None, marker=None):
        """Compute nodes of every cell; ``marker`` is a node uuid."""
        objects = _objects()

        def get(cctxt):
            return list(objects.ComputeNodeList.get_all(cctxt))
        nodes = []
        for _cell, found in _gather(context, get):
            nodes.extend(found)
        if marker is not None:
            uuids = [n.uuid for n in nodes]
            if marker not in uuids:
                raise exception.MarkerNotFound(marker=marker)
            nodes = nodes[uuids.index(marker) + 1:]
        if limit is not None:
            nodes = nodes[:limit]
        return nodes

    def compute_node_get(self, context, compute_id):
        objects = _objects()
        if uuidutils.is_uuid_like(compute_id):
            _cell, node = _find_in_cells(
                context, lambda c: objects.ComputeNode.get_by_uuid(
                    c, compute_id))
        else:
            try:
                node_id = int(compute_id)
            except (TypeError, ValueError):
                node_id = None
            node = None
            if node_id is not None:
                _cell, node = _find_in_cells(
                    context, lambda c: objects.ComputeNode.get_by_id(
                        c, node_id))
        if node is None:
            raise exception.ComputeHostNotFound(host=compute_id)
        return node

    def compute_node_search_by_hypervisor(self, context, hypervisor_match):
        objects = _objects()
        nodes = []
        for _cell, found in _gather(
                context, lambda c: list(
                    objects.ComputeNodeList.get_by_hypervisor(
                        c, hypervisor_match))):
            nodes.extend(found)
        return nodes

    def instance_get_all_by_host(self, context, host_name):
        """Instances on a host, from the host's cell."""
        objects = _objects()
        try:
            mapping = objects.HostMapping.get_by_host(context, host_name)
        except exception.HostMappingNotFound:
            return []
        with nova_context.target_cell(context,
                                        mapping.cell_mapping) as cctxt:
            return list(objects.InstanceList.get_by_host(cctxt, host_name))


def _try(fn, *args):
    try:
        return fn(*args)
    except exception.NotFound:
        return None
