"""nova-scheduler's RPC endpoint: choose hosts, claim them in Placement.

select_destinations asks Placement for allocation candidates, turns them
into HostStates, filters and weighs them, claims the best host for each
instance (PUT /allocations) and returns Selections: the chosen host plus
alternates from the same cell for rescheduling.  When nothing fits it
raises NoValidHost without having claimed anything; the conductor gets the
failure in the reply of its call.
"""

import random

import oslo_messaging as messaging
from oslo_log import log as logging
from oslo_serialization import jsonutils
from oslo_service import periodic_task

from nova_clone.conf import CONF
from nova_clone import exception
from nova_clone import manager
from nova_clone.scheduler import candidates
from nova_clone.scheduler import filters as scheduler_filters
from nova_clone.scheduler import host_manager
from nova_clone.scheduler import request_filter
from nova_clone.scheduler import utils
from nova_clone.scheduler import weights as scheduler_weights

LOG = logging.getLogger(__name__)


def _spec(spec_obj, name, default=None):
    return host_manager._field(spec_obj, name, default)


def _fits(host_state, resources):
    """Whether our (Placement + in-flight) view still has room."""
    return (host_state.free_ram_mb >= resources.get('MEMORY_MB', 0) and
            host_state.free_vcpus >= resources.get('VCPU', 0) and
            host_state.free_disk_mb >= resources.get('DISK_GB', 0) * 1024)


def _place_in_group(spec_obj, host):
    """The next instance of the request sees this one's host in its
    server group (the group filters and weighers count them)."""
    group = _spec(spec_obj, 'instance_group')
    if group is not None:
        group.hosts = list(_spec(group, 'hosts') or []) + [host]


def _root_provider(alloc_request, known):
    """The compute node provider an allocation request lands on."""
    rps = list(alloc_request['allocations'])
    for rp in rps:
        if rp in known:
            return rp
    return rps[0] if rps else None


class SchedulerManager(manager.Manager):
    """Target version 4.5, as Nova's."""

    target = messaging.Target(version='4.5')

    def __init__(self, *args, **kwargs):
        kwargs.setdefault('service_name', 'scheduler')
        super().__init__(*args, **kwargs)
        self.host_manager = host_manager.HostManager()
        self.filters = scheduler_filters.load_filters(
            CONF.filter_scheduler.enabled_filters)
        self.weighers = scheduler_weights.load_weighers(
            CONF.filter_scheduler.weight_classes)
        self._report_client = None
        self.candidates = candidates.CandidateCache(
            lambda: self.report_client)
        self._arm_host_discovery()

    def _arm_host_discovery(self):
        """Schedule _discover_hosts_in_cells from the interval set now.

        The decorator's spacing is read when this module is imported,
        which can be before the configuration is loaded (an embedded
        cloud, tests): take the value at start-up instead.
        """
        name = '_discover_hosts_in_cells'
        interval = CONF.scheduler.discover_hosts_in_cells_interval
        # Per-instance copies: the class lists are shared by every manager.
        self._periodic_tasks = [(n, t) for n, t in self._periodic_tasks
                                if n != name]
        self._periodic_spacing = {n: s for n, s in
                                  self._periodic_spacing.items()
                                  if n != name}
        if interval < 0:
            return
        self._periodic_tasks.append(
            (name, type(self)._discover_hosts_in_cells))
        self._periodic_spacing[name] = (interval or
                                        periodic_task.DEFAULT_INTERVAL)
        self._periodic_last_run[name] = None  # run at once

    @property
    def report_client(self):
        if self._report_client is None:
            from nova_clone.placement import client as report
            self._report_client = report.SchedulerReportClient()
        return self._report_client

    @report_client.setter
    def report_client(self, value):
        self._report_client = value

    # -- periodic work ------------------------------------------------------
    @periodic_task.periodic_task(
        spacing=CONF.scheduler.discover_hosts_in_cells_interval,
        run_immediately=True)
    def _discover_hosts_in_cells(self, context):
        """Map new computes to their cells (nova-manage's function)."""
        from nova_clone.objects import host_mapping
        try:
            mappings = host_mapping.discover_hosts(context)
        except Exception:
            LOG.exception('Periodic discover_hosts failed')
            return
        if mappings:
            LOG.info('Discovered %d new hosts', len(mappings))
            self.host_manager.refresh(context, force=True)

    # -- RPC ----------------------------------------------------------------
    @messaging.expected_exceptions(exception.NoValidHost)
    def select_destinations(self, ctxt, request_spec=None,
                            filter_properties=None, spec_obj=None,
                            instance_uuids=None, return_objects=False,
                            return_alternates=False):
        spec_obj = spec_obj if spec_obj is not None else request_spec
        if spec_obj is None:
            raise exception.NoValidHost(reason='No request spec given.')
        if utils.request_is_rebuild(spec_obj):
            return self._check_rebuild_host(ctxt, spec_obj, return_objects)
        resources = utils.ResourceRequest.from_request_spec(spec_obj)
        request_filter.process_reqspec(ctxt, spec_obj, resources)

        answer = self.candidates.get(ctxt, resources)
        while True:
            try:
                chosen = self._schedule_answer(
                    ctxt, spec_obj, instance_uuids, resources, answer,
                    return_alternates)
                break
            except exception.NoValidHost:
                if not answer.shared:
                    raise
                # A shared answer misses room freed since it was fetched.
                answer = self.candidates.get(ctxt, resources,
                                             newer_than=answer.fetched_at)
        if not return_objects:
            return [{'host': hosts[0][0].host,
                     'nodename': hosts[0][0].nodename, 'limits': {}}
                    for hosts in chosen]
        from nova_clone import objects
        return [[objects.Selection(
                    service_host=hs.host, nodename=hs.nodename,
                    compute_node_uuid=hs.uuid, cell_uuid=hs.cell_uuid,
                    limits=None,
                    allocation_request=jsonutils.dumps(ar),
                    allocation_request_version=answer.version)
                 for hs, ar in hosts] for hosts in chosen]

    def _schedule_answer(self, ctxt, spec_obj, instance_uuids, resources,
                         answer, return_alternates):
        if not answer.alloc_reqs:
            LOG.info('Got no allocation candidates from the Placement API. '
                     'This could be due to insufficient resources or a '
                     'temporary occurrence as compute nodes start up.')
            raise exception.NoValidHost(reason='')
        return self._schedule(ctxt, spec_obj, instance_uuids, resources,
                              answer.alloc_reqs, answer.summaries,
                              answer.fetched_at, return_alternates,
                              ar_version=answer.version)

    def _check_rebuild_host(self, ctxt, spec_obj, return_objects):
        """A rebuild with a new image stays where it is: the requested
        destination (the instance's host) must pass the filters that run
        on a rebuild.  The instance keeps its allocation; nothing is
        claimed."""
        hm = self.host_manager
        hm.refresh(ctxt)
        with hm.lock:
            states = self._candidate_hosts(spec_obj, hm.known_host_states())
        filters = [f for f in self.filters if f.run_on_rebuild]
        hosts = scheduler_filters.run_filters(filters, states, spec_obj)
        if not hosts:
            raise exception.NoValidHost(
                reason='The host of the instance does not accept the '
                       'new image.')
        hs = hosts[0]
        if not return_objects:
            return [{'host': hs.host, 'nodename': hs.nodename,
                     'limits': {}}]
        from nova_clone import objects
        return [[objects.Selection(
            service_host=hs.host, nodename=hs.nodename,
            compute_node_uuid=hs.uuid, cell_uuid=hs.cell_uuid, limits=None,
            allocation_request=None, allocation_request_version=None)]]

    # -- the choice --------------------------------------------------------
    def _candidate_hosts(self, spec_obj, states):
        ignore = set(_spec(spec_obj, 'ignore_hosts') or [])
        force = set(_spec(spec_obj, 'force_hosts') or [])
        dest = _spec(spec_obj, 'requested_destination')
        dest_host = _spec(dest, 'host') if dest is not None else None
        dest_cell = _spec(dest, 'cell') if dest is not None else None
        out = []
        for hs in states:
            if hs.host in ignore:
                continue
            if force and hs.host not in force:
                continue
            if dest_host and hs.host != dest_host:
                continue
            if dest_cell is not None and \
                    hs.cell_uuid != _spec(dest_cell, 'uuid'):
                continue
            out.append(hs)
        return out

    def _choose(self, ctxt, spec_obj, resources, summaries, alloc_by_rp,
                fetched_at, excluded):
        """Filter and weigh under the lock; returns (chosen, weighed)."""
        hm = self.host_manager
        states = hm.get_host_states(ctxt, summaries, fetched_at)
        states = [s for s in states
                  if s.uuid in alloc_by_rp and s.uuid not in excluded]
        states = self._candidate_hosts(spec_obj, states)
        hosts = scheduler_filters.run_filters(self.filters, states, spec_obj)
        hosts = [h for h in hosts if _fits(h, resources)]
        if not hosts:
            return None, []
        weighed = scheduler_weights.weigh(self.weighers, hosts, spec_obj)
        subset = max(1, min(CONF.filter_scheduler.host_subset_size,
                            len(weighed)))
        chosen = random.choice(weighed[:subset]) if subset > 1 \
            else weighed[0]
        return chosen.obj, [w.obj for w in weighed]

    def _schedule(self, ctxt, spec_obj, instance_uuids, resource_request,
                  alloc_reqs, summaries, fetched_at, return_alternates,
                  ar_version=None):
        """Per instance, [(HostState, allocation_request), ...]: the
        claimed host first, then its alternates."""
        hm = self.host_manager
        resources = resource_request.resources
        num = len(instance_uuids) if instance_uuids else \
            (_spec(spec_obj, 'num_instances', 1) or 1)
        alloc_by_rp = {}
        for ar in alloc_reqs:
            rp = _root_provider(ar, summaries)
            if rp:
                alloc_by_rp.setdefault(rp, []).append(ar)
        hm.prepare(ctxt, summaries)
        project_id = _spec(spec_obj, 'project_id')
        user_id = _spec(spec_obj, 'user_id')
        max_alts = max(0, CONF.scheduler.max_attempts - 1)

        results, claimed = [], []
        try:
            for index in range(num):
                uuid = instance_uuids[index] if instance_uuids else None
                chosen, weighed = self._claim_one(
                    ctxt, spec_obj, resources, summaries, alloc_by_rp,
                    fetched_at, uuid, project_id, user_id, ar_version)
                if chosen is None:
                    raise exception.NoValidHost(
                        reason='There are not enough hosts available.')
                if uuid:
                    claimed.append(uuid)
                _place_in_group(spec_obj, chosen.host)
                hosts = [chosen]
                if return_alternates:
                    hosts += [h for h in weighed
                              if h is not chosen and
                              h.cell_uuid == chosen.cell_uuid][:max_alts]
                results.append([(h, alloc_by_rp[h.uuid][0]) for h in hosts])
        except Exception:
            # All or nothing: give back what this request already took.
            for uuid in claimed:
                hm.forget(uuid)
                try:
                    self.report_client.delete_allocation_for_instance(
                        ctxt, uuid)
                except Exception:
                    LOG.exception('Could not remove the allocation of %s',
                                  uuid)
            raise
        return results

    def _claim_one(self, ctxt, spec_obj, resources, summaries, alloc_by_rp,
                   fetched_at, uuid, project_id, user_id, ar_version):
        hm = self.host_manager
        excluded = set()
        while True:
            with hm.lock:
                chosen, weighed = self._choose(ctxt, spec_obj, resources,
                                               summaries, alloc_by_rp,
                                               fetched_at, excluded)
                if chosen is None:
                    return None, []
                if uuid is None:
                    return chosen, weighed
                hm.record_choice(uuid, chosen.uuid, resources)
            if not self._still_mapped(ctxt, chosen):
                hm.forget(uuid)
                excluded.add(chosen.uuid)
                continue
            claimed = self.report_client.claim_resources(
                ctxt, uuid, alloc_by_rp[chosen.uuid][0], project_id,
                user_id, allocation_request_version=ar_version)
            if claimed:
                hm.claim_done(uuid)
                LOG.debug('Claimed %s for instance %s', chosen, uuid)
                return chosen, weighed
            # Someone else took that room meanwhile: next best host.
            hm.forget(uuid)
            excluded.add(chosen.uuid)
            LOG.debug('Claim on %s failed for %s, trying another host',
                      chosen, uuid)

    def _still_mapped(self, ctxt, host_state):
        """The cached view may predate a compute's removal: one indexed
        lookup saves the server from being buried in cell0."""
        from nova_clone import objects
        try:
            objects.HostMapping.get_by_host(ctxt, host_state.host)
        except exception.HostMappingNotFound:
            LOG.info('Host %s lost its cell mapping; not using it',
                     host_state.host)
            self.host_manager.refresh(ctxt, force=True)
            return False
        except Exception:
            LOG.debug('Host mapping check of %s failed; going on',
                      host_state.host, exc_info=True)
        return True

    # -- host info updates (aggregates reload; the rest is not cached) -----
    def update_aggregates(self, ctxt, aggregates):
        self.host_manager.invalidate()

    def delete_aggregate(self, ctxt, aggregate):
        self.host_manager.invalidate()

    def update_instance_info(self, ctxt, host_name, instance_info):
        pass

    def delete_instance_info(self, ctxt, host_name, instance_uuid):
        pass

    def sync_instance_info(self, ctxt, host_name, instance_uuids):
        pass

    def reset(self):
        self.host_manager.refresh(force=True)
