"""The resource tracker: this host's compute nodes, usage and Placement view.

Each hypervisor node the driver reports gets one ComputeNode record
(created and saved through objects, so through the conductor in
nova-compute) and one root resource provider in Placement (named after the
hypervisor hostname, uuid = the compute node's uuid) carrying the driver's
inventory and capability traits.

Usage fields of the ComputeNode (vcpus_used, memory_mb_used, local_gb_used,
running_vms...) come from the instances on the node, read in one query per
periodic run, plus local claims of builds in progress.  Allocations are
never read per instance here: Placement is the authority for them, and
reading them on every run is what makes a busy compute slow.  Inventory and
traits are pushed to Placement only when they change.

A claim or a release changes its node's usage, but the build does not wait
for the record: a background saver writes changed nodes at most once every
NODE_SAVE_INTERVAL seconds, so a storm of builds costs the conductor about
one save a second per node instead of two per server.  The scheduler does
not depend on these fields being fresh (Placement and its own in-flight
claims are its view of capacity); os-hypervisors lags by at most the
interval.
"""

import collections
import threading
import time

import os_resource_classes as orc
import os_traits
from oslo_log import log as logging
from oslo_utils import uuidutils

from nova_clone.compute import task_states
from nova_clone.compute import utils as compute_utils
from nova_clone.compute import vm_states
from nova_clone.compute.host import claims
from nova_clone.conf import CONF
from nova_clone import exception
from nova_clone.objects import migration as migration_obj
from nova_clone import threads
from nova_clone.virt import driver as virt_driver

LOG = logging.getLogger(__name__)

# Statuses after which a migration holds no resources anywhere.
_ENDED_MIGRATION_STATUSES = ('confirmed', 'reverted', 'completed', 'done',
                             'cancelled')
# A failed move settles its allocations itself, unless Placement was
# unreachable just then; the periodic update finishes the job.
_FAILED_MIGRATION_STATUSES = ('error', 'failed')

Usage = collections.namedtuple('Usage', ['vcpus', 'memory_mb', 'disk_gb'])

# Shortest gap between two saves of one node's usage by the saver.
NODE_SAVE_INTERVAL = 1.0

# Fields copied from the driver's resource view onto the ComputeNode.
_NODE_FIELDS = ('vcpus', 'memory_mb', 'local_gb', 'hypervisor_type',
                'hypervisor_version', 'hypervisor_hostname', 'cpu_info',
                'disk_available_least', 'numa_topology')

# Task states counted as "work in progress" (ComputeNode.current_workload).
_WORKLOAD_TASK_STATES = (
    task_states.RESIZE_MIGRATING, task_states.REBUILDING,
    task_states.RESIZE_PREP, task_states.IMAGE_SNAPSHOT,
    task_states.IMAGE_BACKUP, task_states.RESCUING,
    task_states.UNSHELVING, task_states.SHELVING,
) + task_states.BUILD_STATES



def instance_usage(instance):
    """Resources an instance uses on its node (from its own columns)."""
    flavor = None

    def pick(field):
        nonlocal flavor
        value = _field(instance, field)
        if value is None:
            if flavor is None:
                flavor = _field(instance, 'flavor')
            value = getattr(flavor, field, None) if flavor else None
        return int(value or 0)
    return Usage(pick('vcpus'), pick('memory_mb'),
                 pick('root_gb') + pick('ephemeral_gb'))


def _field(obj, name, default=None):
    """A field's value, or ``default`` when a versioned object lacks it."""
    is_set = getattr(obj, 'obj_attr_is_set', None)
    if is_set is not None and not is_set(name):
        return default
    return getattr(obj, name, default)


def _set_if_changed(obj, name, value):
    if not _field(obj, name, _UNSET) == value:
        setattr(obj, name, value)


_UNSET = object()


def _counts_on_host(instance):
    return instance.vm_state not in vm_states.ALLOW_RESOURCE_REMOVAL


class ResourceTracker:

    def __init__(self, host, driver, reportclient=None):
        self.host = host
        self.driver = driver
        self._reportclient = reportclient
        self.compute_nodes = {}
        # uuid -> (nodename, Usage) of builds claimed on this host, and
        # of moves (by migration uuid, also in move_claims).
        self.tracked_instances = {}
        self.move_claims = set()
        self._lock = threading.RLock()
        # Mirrors services.disabled; reported as COMPUTE_STATUS_DISABLED so
        # the scheduler skips this host.
        self.service_disabled = False
        self._saver = _NodeSaver(self._lock, NODE_SAVE_INTERVAL)

    @property
    def reportclient(self):
        if self._reportclient is None:
            from nova_clone.placement import client
            self._reportclient = client.SchedulerReportClient()
        return self._reportclient

    @reportclient.setter
    def reportclient(self, value):
        self._reportclient = value

    # -- claims ------------------------------------------------------------

    def disabled(self, nodename):
        return nodename not in self.compute_nodes

    def instance_claim(self, context, instance, nodename, allocations=None,
                       limits=None):
        """Claim the instance's resources on ``nodename``.

        Use as a context manager around the build: an exception inside
        releases the claim.
        """
        with self._lock:
            self._set_instance_host_and_node(instance, nodename)
            if self.disabled(nodename):
                LOG.debug('Node %s not tracked yet; claim of %s skipped',
                          nodename, instance.uuid)
                return claims.NopClaim()
            if instance.uuid in self.tracked_instances:
                return claims.NopClaim()
            usage = instance_usage(instance)
            self.tracked_instances[instance.uuid] = (nodename, usage)
            cn = self.compute_nodes[nodename]
            self._add_usage(cn, usage, sign=1)
            cn.running_vms = (_field(cn, 'running_vms') or 0) + 1
            self._save_node(cn)
        return claims.Claim(context, self, instance, nodename, usage)

    def _set_instance_host_and_node(self, instance, nodename):
        """The claim is where an instance becomes this host's.

        Not saved here: the build's next save (task_state networking)
        stores it, one conductor round trip fewer per boot, outside the
        tracker's lock.  The audit counts a claim the database does not
        show yet from tracked_instances.
        """
        instance.host = self.host
        instance.launched_on = self.host
        instance.node = nodename
        cn = self.compute_nodes.get(nodename)
        fields = getattr(instance, 'fields', None)
        if cn is not None and (fields is None or 'compute_id' in fields):
            instance.compute_id = _field(cn, 'id')

    def move_claim(self, context, migration_uuid, nodename, usage):
        """Hold ``usage`` on ``nodename`` for a move until drop_move_claim
        (keyed by the migration: the instance's row may point elsewhere)."""
        with self._lock:
            cn = self.compute_nodes.get(nodename)
            if cn is None or migration_uuid in self.tracked_instances:
                return
            self.tracked_instances[migration_uuid] = (nodename, usage)
            self.move_claims.add(migration_uuid)
            self._add_usage(cn, usage, sign=1)
            cn.running_vms = (_field(cn, 'running_vms') or 0) + 1
            self._save_node(cn)

    def drop_move_claim(self, context, migration_uuid):
        self._drop_instance(migration_uuid)

    def abort_instance_claim(self, context, instance, nodename):
        self._drop_instance(instance.uuid)

    def remove_instance(self, context, instance):
        """Forget a deleted instance's usage now, not at the next run."""
        self._drop_instance(instance.uuid)

    def _drop_instance(self, uuid):
        with self._lock:
            self.move_claims.discard(uuid)
            tracked = self.tracked_instances.pop(uuid, None)
            if tracked is None:
                return
            nodename, usage = tracked
            cn = self.compute_nodes.get(nodename)
            if cn is None:
                return
            self._add_usage(cn, usage, sign=-1)
            cn.running_vms = max(0, (_field(cn, 'running_vms') or 0) - 1)
            self._save_node(cn)

    @staticmethod
    def _add_usage(cn, usage, sign):
        def bump(field, delta):
            setattr(cn, field, (_field(cn, field) or 0) + sign * delta)
        bump('vcpus_used', usage.vcpus)
        bump('memory_mb_used', usage.memory_mb)
        bump('local_gb_used', usage.disk_gb)
        cn.free_ram_mb = (_field(cn, 'memory_mb') or 0) - cn.memory_mb_used
        cn.free_disk_gb = (_field(cn, 'local_gb') or 0) - cn.local_gb_used

    # -- build failures, for the scheduler's BuildFailureWeigher ----------

    def build_failed(self, nodename):
        self._set_failed_builds(nodename, failed=True)

    def build_succeeded(self, nodename):
        self._set_failed_builds(nodename, failed=False)

    @staticmethod
    def _reset_failed_builds(cn):
        stats = dict(_field(cn, 'stats') or {})
        if int(stats.get('failed_builds') or 0):
            stats['failed_builds'] = '0'
            cn.stats = stats

    def _set_failed_builds(self, nodename, failed):
        with self._lock:
            cn = self.compute_nodes.get(nodename)
            if cn is None:
                return
            stats = dict(_field(cn, 'stats') or {})
            count = int(stats.get('failed_builds') or 0)
            new_count = count + 1 if failed else 0
            if new_count == count:
                return  # a success after a success: nothing to save
            stats['failed_builds'] = str(new_count)
            cn.stats = stats
            self._save_node(cn)

    def _save_node(self, cn):
        """Have the saver write the node's changes soon (not now)."""
        self._saver.mark(cn)

    def flush_node_saves(self):
        """Write every pending node change now and end the writer thread
        (service stop)."""
        self._saver.flush()

    # -- the periodic update -------------------------------------------------

    def update_available_resource(self, context, nodename, startup=False):
        """Refresh one node's record and Placement view from the driver."""
        resources = self.driver.get_available_resource(nodename)
        resources['host_ip'] = CONF.my_ip
        resources.setdefault('hypervisor_hostname', nodename)
        with self._lock:
            cn = self._init_compute_node(context, resources)
            self._update_usage(context, cn, nodename)
            if cn.obj_what_changed():
                cn.save()
        self._update_to_placement(context, cn, startup)
        self._remove_deleted_instances_allocations(context, cn)
        return cn

    def _remove_deleted_instances_allocations(self, context, cn):
        """Drop the allocations on this node whose instance is deleted:
        a delete that could not reach Placement leaves them behind.
        Consumers that are no instance of this cell (migrations) stay."""
        try:
            allocations = \
                self.reportclient.get_allocations_for_resource_provider(
                    context, cn.uuid)
        except exception.NovaException as exc:
            LOG.warning('Cannot list the allocations of %s: %s', cn.uuid,
                        exc)
            return
        if not allocations:
            return
        deleted = compute_utils._objects().InstanceList.get_by_filters(
            context.elevated(read_deleted='yes'),
            {'uuid': list(allocations), 'deleted': True,
             'soft_deleted': False}, expected_attrs=[])
        for instance in deleted:
            LOG.info('Removing the allocation of deleted instance %s',
                     instance.uuid)
            self.reportclient.delete_allocation_for_instance(
                context, instance.uuid)
        self._remove_ended_migrations_allocations(
            context, set(allocations) - {i.uuid for i in deleted})

    def _remove_ended_migrations_allocations(self, context, consumers):
        """Settle what a move that ended still holds here: a confirm, or a
        failed move, that could not reach Placement leaves the
        migration's allocation behind."""
        objects = compute_utils._objects()
        live = objects.InstanceList.get_by_filters(
            context, {'uuid': list(consumers)}, expected_attrs=[])
        # A deleted instance takes its migrations with it.
        with_deleted = context.elevated(read_deleted='yes')
        for uuid in consumers - {i.uuid for i in live}:
            try:
                migration = objects.Migration.get_by_uuid(with_deleted, uuid)
            except exception.MigrationNotFound:
                continue
            if (migration.deleted or
                    migration.status in _ENDED_MIGRATION_STATUSES):
                LOG.info('Removing the allocation of %s migration %s%s',
                         migration.status, uuid,
                         ' (deleted)' if migration.deleted else '')
                self.reportclient.delete_allocation_for_instance(
                    context, uuid, consumer_type='migration')
            elif migration.status in _FAILED_MIGRATION_STATUSES:
                self._settle_failed_migration(context, migration)

    def _settle_failed_migration(self, context, migration):
        try:
            instance = compute_utils._objects().Instance.get_by_uuid(
                context, migration.instance_uuid, expected_attrs=[])
        except exception.InstanceNotFound:
            instance = None
        if instance is not None and instance.task_state is not None:
            return  # a new operation owns the instance: not ours to judge
        if (instance is not None and
                instance.host == migration.source_compute):
            # Back on the source: it gets its source allocation again.
            LOG.info('Giving the allocation of %s migration %s back to '
                     'instance %s', migration.status, migration.uuid,
                     instance.uuid)
            self.reportclient.move_allocations(context, migration.uuid,
                                               instance.uuid)
            return
        LOG.info('Removing the allocation of %s migration %s (instance %s '
                 '%s)', migration.status, migration.uuid,
                 migration.instance_uuid,
                 'deleted' if instance is None else 'on ' + instance.host)
        self.reportclient.delete_allocation_for_instance(
            context, migration.uuid, consumer_type='migration')

    def _init_compute_node(self, context, resources):
        nodename = resources['hypervisor_hostname']
        objects = compute_utils._objects()
        cn = self.compute_nodes.get(nodename)
        if cn is None:
            try:
                cn = objects.ComputeNode.get_by_host_and_nodename(
                    context, self.host, nodename)
            except exception.NotFound:
                cn = None
        if cn is None:
            cn = objects.ComputeNode(context=context)
            cn.host = self.host
            cn.uuid = uuidutils.generate_uuid()
            self._copy_resources(cn, resources)
            self._zero_usage(cn)
            cn.create()
            LOG.info('Compute node record created for %s:%s with uuid %s',
                     self.host, nodename, cn.uuid)
        else:
            self._copy_resources(cn, resources)
            if nodename not in self.compute_nodes:
                # As in Nova, the failure count lives with the service: a
                # restart (what an operator does once the host is fixed)
                # lets the scheduler choose the host again.
                self._reset_failed_builds(cn)
        self.compute_nodes[nodename] = cn
        return cn

    @staticmethod
    def _zero_usage(cn):
        cn.vcpus_used = 0
        cn.memory_mb_used = 0
        cn.local_gb_used = 0
        cn.running_vms = 0
        cn.current_workload = 0
        cn.free_ram_mb = cn.memory_mb
        cn.free_disk_gb = cn.local_gb

    @staticmethod
    def _copy_resources(cn, resources):
        for field in _NODE_FIELDS:
            if field in resources:
                _set_if_changed(cn, field, resources[field])
        _set_if_changed(cn, 'host_ip', resources['host_ip'])
        ratios = virt_driver.allocation_ratios({})
        for field, rc in (('cpu_allocation_ratio', orc.VCPU),
                          ('ram_allocation_ratio', orc.MEMORY_MB),
                          ('disk_allocation_ratio', orc.DISK_GB)):
            _set_if_changed(cn, field, ratios[rc])

    def _update_usage(self, context, cn, nodename):
        instances = compute_utils._objects().InstanceList.get_by_host_and_node(
            context, self.host, nodename, expected_attrs=[])
        usage = Usage(0, CONF.reserved_host_memory_mb,
                      virt_driver.mb_to_ceil_gb(
                          CONF.reserved_host_disk_mb))
        seen = set()
        running = workload = 0
        for inst in instances:
            seen.add(inst.uuid)
            if not _counts_on_host(inst):
                # Deleted or offloaded: a claim for it is stale.
                self.tracked_instances.pop(inst.uuid, None)
                continue
            used = instance_usage(inst)
            usage = Usage(usage.vcpus + used.vcpus,
                          usage.memory_mb + used.memory_mb,
                          usage.disk_gb + used.disk_gb)
            running += 1
            if inst.task_state in _WORKLOAD_TASK_STATES:
                workload += 1
        # Open cold moves use the node by their record, whatever this
        # process remembers of its claims (a restart forgot them).
        for migration_uuid, used in self._open_moves(context, nodename,
                                                     seen):
            seen.add(migration_uuid)
            usage = Usage(usage.vcpus + used.vcpus,
                          usage.memory_mb + used.memory_mb,
                          usage.disk_gb + used.disk_gb)
            running += 1
        # Builds claimed here whose instance the query did not return
        # (host not saved yet) still use the node, as do moves claimed
        # here that the database does not show here yet.
        unseen = {uuid: claim for uuid, claim in
                  self.tracked_instances.items()
                  if claim[0] == nodename and uuid not in seen}
        ended = self._ended_build_claims(
            context, [u for u in unseen if u not in self.move_claims])
        for uuid, (_node, used) in unseen.items():
            if uuid in ended or (
                    uuid in self.move_claims and
                    not self._move_claim_in_use(context, uuid, seen)):
                continue
            usage = Usage(usage.vcpus + used.vcpus,
                          usage.memory_mb + used.memory_mb,
                          usage.disk_gb + used.disk_gb)
            running += 1
        values = {
            'vcpus_used': usage.vcpus,
            'memory_mb_used': usage.memory_mb,
            'local_gb_used': usage.disk_gb,
            'free_ram_mb': (_field(cn, 'memory_mb') or 0) - usage.memory_mb,
            'free_disk_gb': (_field(cn, 'local_gb') or 0) - usage.disk_gb,
            'running_vms': running,
            'current_workload': workload,
        }
        for field, value in values.items():
            _set_if_changed(cn, field, value)

    def _ended_build_claims(self, context, uuids):
        """The build claims of ``uuids`` whose instance is gone or went
        to another host (deleted, rescheduled): forgotten, and returned.
        A claim whose instance has no host yet is the build's."""
        if not uuids:
            return set()
        live = compute_utils._objects().InstanceList.get_by_filters(
            context, {'uuid': list(uuids)}, expected_attrs=[])
        kept = {i.uuid for i in live if i.host in (None, self.host)}
        ended = set(uuids) - kept
        for uuid in ended:
            LOG.info('Forgetting the build claim of %s: its instance is '
                     'gone or elsewhere', uuid)
            self.tracked_instances.pop(uuid, None)
        return ended

    def _move_claim_in_use(self, context, migration_uuid, counted):
        """False for the claim of a move that ended (it is forgotten: a
        failure may not have dropped it) or whose instance is counted
        here by its own row."""
        try:
            migration = compute_utils._objects().Migration.get_by_uuid(
                context, migration_uuid)
        except exception.MigrationNotFound:
            migration = None
        if migration is None or \
                migration.status in migration_obj.IN_PROGRESS_EXCLUDED:
            LOG.info('Forgetting the claim of ended move %s',
                     migration_uuid)
            self.tracked_instances.pop(migration_uuid, None)
            self.move_claims.discard(migration_uuid)
            return False
        return migration.instance_uuid not in counted

    def _open_moves(self, context, nodename, instances_here):
        """(migration uuid, Usage) of each open resize or cold migration
        to or from ``nodename`` whose instance is not on it: the new
        flavor on the destination until the guest arrives, the old one
        on the source until the move is confirmed or reverted."""
        objects = compute_utils._objects()
        migrations = [m for m in objects.MigrationList.
                      get_in_progress_by_host_and_node(context, self.host,
                                                       nodename)
                      if m.migration_type in ('resize', 'migration') and
                      m.instance_uuid not in instances_here]
        if not migrations:
            return []
        instances = {i.uuid: i for i in objects.InstanceList.get_by_filters(
            context, {'uuid': [m.instance_uuid for m in migrations]},
            expected_attrs=['flavor'])}
        moves = []
        for migration in migrations:
            instance = instances.get(migration.instance_uuid)
            if instance is None:
                continue
            incoming = (migration.dest_compute == self.host and
                        migration.dest_node == nodename)
            flavor = instance.new_flavor if incoming else \
                instance.old_flavor
            if flavor is None:
                continue
            moves.append((migration.uuid, Usage(
                flavor.vcpus, flavor.memory_mb,
                flavor.root_gb + flavor.ephemeral_gb)))
        return moves

    # -- Placement ---------------------------------------------------------

    def _capability_traits(self):
        traits = self.driver.capabilities_as_traits()
        if hasattr(os_traits, 'OWNER_NOVA'):
            traits[os_traits.OWNER_NOVA] = True
        return traits

    def build_provider_tree(self, context, cn):
        """The node's provider tree as it should be in Placement.

        Returns (tree, changed): ``changed`` is False when the tree equals
        what the report client last saw, so nothing needs sending.
        """
        nodename = cn.hypervisor_hostname
        tree = self.reportclient.get_provider_tree_and_ensure_root(
            context, cn.uuid, name=nodename)
        before = tree.copy()
        try:
            self.driver.update_provider_tree(tree, nodename)
        except NotImplementedError:
            tree.update_inventory(nodename, compute_node_to_inventory(cn))
        for trait, supported in self._capability_traits().items():
            if supported:
                tree.add_traits(nodename, trait)
            else:
                tree.remove_traits(nodename, trait)
        if self.service_disabled:
            tree.add_traits(nodename, os_traits.COMPUTE_STATUS_DISABLED)
        else:
            tree.remove_traits(nodename, os_traits.COMPUTE_STATUS_DISABLED)
        return tree, _tree_changed(before, tree)

    def refresh_service_disabled(self, context):
        """Read services.disabled of this host (one lookup per run)."""
        try:
            service = compute_utils._objects().Service.get_by_compute_host(
                context, self.host)
        except exception.NotFound:
            return
        except Exception:
            LOG.debug('Could not read the service of %s', self.host,
                      exc_info=True)
            return
        self.service_disabled = bool(_field(service, 'disabled', False))

    def _update_to_placement(self, context, cn, startup):
        try:
            tree, changed = self.build_provider_tree(context, cn)
            if changed:
                self.reportclient.update_from_provider_tree(context, tree)
                LOG.info('Inventory and traits of %s updated in Placement',
                         cn.hypervisor_hostname)
        except Exception as exc:
            if not startup:
                raise
            # At start-up Placement may still be coming up; the next
            # periodic run retries.
            LOG.error('Unable to report %s to Placement at start-up: %s',
                      cn.hypervisor_hostname, exc)

    def clean_compute_node_cache(self, nodenames_in_use):
        with self._lock:
            for nodename in list(self.compute_nodes):
                if nodename not in nodenames_in_use:
                    self.compute_nodes.pop(nodename)


class _NodeSaver:
    """Writes changed compute nodes behind the builds that change them.

    ``lock`` is the tracker's: nodes change under it, so a save reads a
    consistent node.  The first change after a quiet spell is written at
    once; later ones wait until ``interval`` has passed since the last
    write, and are written together.
    """

    def __init__(self, lock, interval):
        self._node_lock = lock
        self._interval = interval
        self._cond = threading.Condition()
        self._pending = {}          # id(cn) -> cn
        self._last_write = 0.0
        self._thread = None

    def mark(self, cn):
        with self._cond:
            self._pending[id(cn)] = cn
            if self._thread is None:
                # Saves go where the service's objects go (the conductor
                # in nova-compute): the thread runs in the caller's context.
                self._thread = threads.spawn(self._run,
                                             name='compute-node-saver')
            self._cond.notify()

    def flush(self):
        """Write what is pending now; the writer thread ends (a later
        change starts another)."""
        with self._cond:
            nodes = list(self._pending.values())
            self._pending.clear()
            writer, self._thread = self._thread, None
            self._cond.notify_all()
        self._write(nodes)
        if writer is not None:
            writer.join(timeout=5)

    def _run(self):
        me = threading.current_thread()
        while True:
            with self._cond:
                self._cond.wait_for(
                    lambda: self._pending or self._thread is not me)
                deadline = self._last_write + self._interval
                while (time.monotonic() < deadline and
                       self._thread is me):
                    self._cond.wait(deadline - time.monotonic())
                if self._thread is not me:
                    return
                nodes = list(self._pending.values())
                self._pending.clear()
                self._last_write = time.monotonic()
            self._write(nodes)

    def _write(self, nodes):
        for cn in nodes:
            try:
                with self._node_lock:
                    if cn.obj_what_changed():
                        cn.save()
            except Exception:
                LOG.warning('Could not save usage of compute node %s',
                            _field(cn, 'hypervisor_hostname'), exc_info=True)


def compute_node_to_inventory(cn):
    """Inventory built from a ComputeNode, for drivers without a tree."""
    return {
        orc.VCPU: {'total': cn.vcpus, 'min_unit': 1, 'max_unit': cn.vcpus,
                   'step_size': 1, 'reserved': CONF.reserved_host_cpus,
                   'allocation_ratio': cn.cpu_allocation_ratio},
        orc.MEMORY_MB: {'total': cn.memory_mb, 'min_unit': 1,
                        'max_unit': cn.memory_mb, 'step_size': 1,
                        'reserved': CONF.reserved_host_memory_mb,
                        'allocation_ratio': cn.ram_allocation_ratio},
        orc.DISK_GB: {'total': cn.local_gb, 'min_unit': 1,
                      'max_unit': cn.local_gb, 'step_size': 1,
                      'reserved': virt_driver.mb_to_ceil_gb(
                          CONF.reserved_host_disk_mb),
                      'allocation_ratio': cn.disk_allocation_ratio},
    }


def _tree_changed(before, after):
    uuids = after.get_provider_uuids()
    if set(uuids) != set(before.get_provider_uuids()):
        return True
    for uuid in uuids:
        new = after.data(uuid)
        if before.has_inventory_changed(uuid, new.inventory):
            return True
        if before.have_traits_changed(uuid, new.traits):
            return True
        if before.have_aggregates_changed(uuid, new.aggregates):
            return True
    return False
