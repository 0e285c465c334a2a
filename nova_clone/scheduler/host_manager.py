"""What the scheduler knows about each compute node, and its own claims.

Two sources make a HostState:

* the compute node and service records of every cell (hypervisor facts,
  health, zones), cached and refreshed every few seconds in one query per
  cell and table -- never per instance;
* Placement's provider summaries of the current request (capacity and
  usage), fresher than any database record.

Under a storm many requests fetch their candidates at the same moment and
would all see the same "emptiest" host.  So the manager remembers the
claims it has chosen but Placement may not yet show to a given request
(the in-flight ledger) and subtracts them under a lock before weighing:
concurrent requests spread over equal hosts instead of piling onto one.
"""

import copy
import threading
import time

import os_resource_classes as orc
from oslo_log import log as logging

from nova_clone.conf import CONF
from nova_clone import context as nova_context

LOG = logging.getLogger(__name__)

# Seconds a cached view of compute nodes and services stays valid, and the
# shortest gap between two forced refreshes (for unknown providers).
HOST_STATE_TTL = 5.0
MIN_FORCED_REFRESH_GAP = 1.0
# Claims older than this are certainly visible in Placement's answers.
IN_FLIGHT_MAX_AGE = 60.0
CELL0_UUID = '00000000-0000-0000-0000-000000000000'


def _field(obj, name, default=None):
    if obj is None:
        return default
    if isinstance(obj, dict):
        return obj.get(name, default)
    if hasattr(obj, 'obj_attr_is_set') and name in getattr(
            obj, 'fields', {}) and not obj.obj_attr_is_set(name):
        return default
    return getattr(obj, name, default)


class HostState:
    """One compute node as a candidate for one request."""

    def __init__(self, host, nodename, cell_uuid):
        self.host = host
        self.nodename = nodename
        self.cell_uuid = cell_uuid
        self.uuid = None
        self.service = None
        # From the host aggregates (set_aggregates); the default zone
        # for a host in none that makes a zone.
        self.aggregates = []
        self.availability_zones = {CONF.default_availability_zone}
        self.hypervisor_type = None
        self.hypervisor_version = None
        self.hypervisor_hostname = nodename
        self.cpu_info = None
        self.supported_instances = []
        self.stats = {}
        self.failed_builds = 0
        self.total_usable_ram_mb = 0
        self.free_ram_mb = 0
        self.total_usable_disk_gb = 0
        self.free_disk_mb = 0
        self.vcpus_total = 0
        self.vcpus_used = 0
        self.free_vcpus = 0
        self.num_instances = 0
        self.limits = {}
        self.updated = None
        self.allocation_candidates = []

    def update_from_compute_node(self, compute):
        self.uuid = _field(compute, 'uuid')
        self.hypervisor_type = _field(compute, 'hypervisor_type')
        self.hypervisor_version = _field(compute, 'hypervisor_version')
        self.hypervisor_hostname = _field(compute, 'hypervisor_hostname',
                                          self.nodename)
        self.cpu_info = _field(compute, 'cpu_info')
        supported = _field(compute, 'supported_hv_specs') or _field(
            compute, 'supported_instances') or []
        self.supported_instances = [
            tuple(s) if isinstance(s, (list, tuple)) else
            (_field(s, 'arch'), _field(s, 'hv_type'), _field(s, 'vm_mode'))
            for s in supported]
        stats = _field(compute, 'stats') or {}
        self.stats = dict(stats) if isinstance(stats, dict) else {}
        try:
            self.failed_builds = int(self.stats.get('failed_builds') or 0)
        except ValueError:
            self.failed_builds = 0
        self.total_usable_ram_mb = _field(compute, 'memory_mb', 0) or 0
        self.free_ram_mb = _field(compute, 'free_ram_mb', 0) or 0
        self.total_usable_disk_gb = _field(compute, 'local_gb', 0) or 0
        self.free_disk_mb = (_field(compute, 'free_disk_gb', 0) or 0) * 1024
        self.vcpus_total = _field(compute, 'vcpus', 0) or 0
        self.vcpus_used = _field(compute, 'vcpus_used', 0) or 0
        self.free_vcpus = self.vcpus_total - self.vcpus_used
        self.num_instances = _field(compute, 'running_vms', 0) or 0
        self.updated = _field(compute, 'updated_at')

    def set_aggregates(self, aggregates):
        self.aggregates = list(aggregates)
        zones = {a.availability_zone for a in aggregates
                 if a.availability_zone}
        self.availability_zones = zones or {CONF.default_availability_zone}

    def update_from_summary(self, summary):
        """Capacity and usage from Placement's provider summary."""
        res = (summary or {}).get('resources', {})

        def free(rc):
            r = res.get(rc)
            return (r['capacity'] - r['used']) if r else 0

        if orc.MEMORY_MB in res:
            self.total_usable_ram_mb = res[orc.MEMORY_MB]['capacity']
            self.free_ram_mb = free(orc.MEMORY_MB)
        if orc.VCPU in res:
            self.vcpus_total = res[orc.VCPU]['capacity']
            self.vcpus_used = res[orc.VCPU]['used']
            self.free_vcpus = free(orc.VCPU)
        if orc.DISK_GB in res:
            self.total_usable_disk_gb = res[orc.DISK_GB]['capacity']
            self.free_disk_mb = free(orc.DISK_GB) * 1024

    def consume(self, resources):
        """Take ``resources`` (Placement amounts) off this host's free
        counts."""
        self.free_ram_mb -= resources.get(orc.MEMORY_MB, 0)
        self.vcpus_used += resources.get(orc.VCPU, 0)
        self.free_vcpus -= resources.get(orc.VCPU, 0)
        self.free_disk_mb -= resources.get(orc.DISK_GB, 0) * 1024
        self.num_instances += 1

    def __repr__(self):
        return '(%s, %s) ram: %sMB disk: %sMB vcpus: %s/%s' % (
            self.host, self.nodename, self.free_ram_mb, self.free_disk_mb,
            self.vcpus_used, self.vcpus_total)


class _Claim:
    __slots__ = ('rp_uuid', 'resources', 'chosen_at', 'done_at')

    def __init__(self, rp_uuid, resources):
        self.rp_uuid = rp_uuid
        self.resources = resources
        self.chosen_at = time.monotonic()
        self.done_at = None


class HostManager:
    """Builds HostStates and keeps the ledger of in-flight claims."""

    def __init__(self, servicegroup_api=None):
        self.lock = threading.Lock()
        self._refresh_lock = threading.Lock()
        self._base = {}            # compute node uuid -> HostState
        self._unmapped = set()     # compute nodes with no host mapping yet
        self._refreshed_at = 0.0
        self._in_flight = {}       # consumer uuid -> _Claim
        self.servicegroup_api = servicegroup_api

    # -- the cached view of the cells -------------------------------------
    def refresh(self, ctxt=None, force=False):
        """Reload compute nodes and services from every cell when stale."""
        now = time.monotonic()
        age = now - self._refreshed_at
        if not force and age < HOST_STATE_TTL:
            return
        if force and age < MIN_FORCED_REFRESH_GAP:
            return
        with self._refresh_lock:
            if time.monotonic() - self._refreshed_at < (
                    MIN_FORCED_REFRESH_GAP if force else HOST_STATE_TTL):
                return
            try:
                self._do_refresh(ctxt or nova_context.get_admin_context())
            except Exception:
                # Keep scheduling on what we knew; retry on the next call.
                LOG.exception('Could not refresh host states')

    def invalidate(self):
        """The next request reloads (aggregates changed)."""
        self._refreshed_at = 0.0

    def _do_refresh(self, ctxt):
        from nova_clone import objects
        cells = [c for c in objects.CellMappingList.get_all(ctxt)
                 if c.uuid != CELL0_UUID]
        results = nova_context.scatter_gather_cells(
            ctxt, cells, 60, self._load_cell_by_ctx)
        mapped = self._mapped_hosts(ctxt)
        aggregates = self._aggregates_by_host(ctxt)
        base, unmapped = {}, set()
        for cell in cells:
            result = results.get(cell.uuid)
            if nova_context.is_cell_failure_sentinel(result) or not result:
                # Keep what we knew about a cell that did not answer.
                for uuid, hs in self._base.items():
                    if hs.cell_uuid == cell.uuid:
                        base[uuid] = hs
                continue
            computes, services = result
            by_host = {_field(s, 'host'): s for s in services}
            for cn in computes:
                hs = HostState(_field(cn, 'host'),
                               _field(cn, 'hypervisor_hostname'), cell.uuid)
                hs.update_from_compute_node(cn)
                hs.service = by_host.get(hs.host)
                hs.set_aggregates(aggregates.get(hs.host, ()))
                if not hs.uuid:
                    continue
                if mapped is not None and hs.host not in mapped:
                    # The conductor could not find its cell: a server sent
                    # there would end in cell0.  Wait for discover_hosts.
                    unmapped.add(hs.uuid)
                    continue
                base[hs.uuid] = hs
        if unmapped:
            LOG.info('%d compute node(s) are not mapped to a cell yet and '
                     'are not scheduled to; run nova-manage cell_v2 '
                     'discover_hosts', len(unmapped))
        self._base = base
        self._unmapped = unmapped
        self._refreshed_at = time.monotonic()
        LOG.debug('Host states refreshed: %d compute nodes', len(base))

    @staticmethod
    def _mapped_hosts(ctxt):
        """Hosts with a host mapping (one API-DB query), None if unknown."""
        from nova_clone import objects
        try:
            return {m.host for m in objects.HostMappingList.get_all(ctxt)}
        except Exception:
            LOG.exception('Could not read host mappings')
            return None

    @staticmethod
    def _aggregates_by_host(ctxt):
        """{host: [Aggregate]} of every host aggregate (one query)."""
        from nova_clone import objects
        by_host = {}
        for agg in objects.AggregateList.get_all(ctxt):
            for host in agg.hosts or []:
                by_host.setdefault(host, []).append(agg)
        return by_host

    @staticmethod
    def _load_cell_by_ctx(cctxt):
        from nova_clone import objects
        computes = objects.ComputeNodeList.get_all(cctxt)
        services = objects.ServiceList.get_by_binary(
            cctxt, 'nova-compute', include_disabled=True)
        return list(computes), list(services)

    # -- host states for one request ---------------------------------------
    def prepare(self, ctxt, provider_summaries):
        """Refresh the cached records if stale or if Placement names a
        provider we have not seen (a new compute).  Call without the lock."""
        if any(rp not in self._base and rp not in self._unmapped
               for rp in provider_summaries):
            self.refresh(ctxt, force=True)
        else:
            self.refresh(ctxt)

    def get_host_states(self, ctxt, provider_summaries, fetched_at):
        """HostStates of the candidate providers, usage from Placement plus
        our own claims Placement's answer may not include.  Call with
        ``self.lock`` held, after prepare()."""
        pending = self._pending_since(fetched_at)
        states = []
        for rp_uuid, summary in provider_summaries.items():
            base = self._base.get(rp_uuid)
            if base is None:
                continue
            hs = copy.copy(base)
            hs.limits = {}
            hs.allocation_candidates = []
            hs.update_from_summary(summary)
            for resources in pending.get(rp_uuid, ()):
                hs.consume(resources)
            states.append(hs)
        return states

    def known_host_states(self):
        """Copies of the HostStates of every known compute node, as last
        read from the cells (call with ``self.lock`` held)."""
        return [copy.copy(hs) for hs in self._base.values()]

    def _pending_since(self, fetched_at):
        now = time.monotonic()
        pending = {}
        for consumer, claim in list(self._in_flight.items()):
            if claim.done_at is not None and \
                    now - claim.done_at > IN_FLIGHT_MAX_AGE:
                del self._in_flight[consumer]
                continue
            if claim.done_at is None or claim.done_at > fetched_at:
                pending.setdefault(claim.rp_uuid, []).append(claim.resources)
        return pending

    # -- the ledger ----------------------------------------------------------
    def record_choice(self, consumer_uuid, rp_uuid, resources):
        """Note a chosen host before claiming it (hold ``self.lock``)."""
        self._in_flight[consumer_uuid] = _Claim(rp_uuid, dict(resources))

    def claim_done(self, consumer_uuid):
        with self.lock:
            claim = self._in_flight.get(consumer_uuid)
            if claim is not None:
                claim.done_at = time.monotonic()

    def forget(self, consumer_uuid):
        with self.lock:
            self._in_flight.pop(consumer_uuid, None)

    def in_flight_count(self):
        with self.lock:
            return len(self._in_flight)
