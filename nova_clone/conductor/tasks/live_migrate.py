"""The conductor's part of a live migration (live_migrate_instance).

A Migration record (``live-migration``, status ``accepted``) takes over the
instance's allocation on the source; the instance gets one on the
destination: claimed by the scheduler, or copied onto a host the
operator forced.  The destination checks it can take the guest
(``check_can_live_migrate_destination``, which asks the source too); a
refusal sends the migration to the next host the scheduler finds, or,
for a forced host or when no host is left, ends it in ``error`` with the
instance as it was.  Then the source gets ``live_migration``.
"""

from oslo_log import log as logging

from nova_clone.compute.host import resize as host_resize
from nova_clone.compute import utils as compute_utils
from nova_clone.conf import CONF
from nova_clone import context as nova_context
from nova_clone import exception
from nova_clone import objects
from nova_clone.servicegroup import api as servicegroup

LOG = logging.getLogger(__name__)

EVENT = 'conductor_live_migrate_instance'
ACCEPTED = 'accepted'

# What a destination's refusal looks like: try another one.
_REFUSALS = (exception.MigrationPreCheckError,
             exception.InvalidHypervisorType, exception.InvalidCPUInfo,
             exception.InvalidSharedStorage, exception.InvalidLocalStorage,
             exception.HypervisorUnavailable,
             exception.ComputeServiceUnavailable)


def live_migrate_instance(manager, context, instance, scheduler_hint,
                          block_migration, disk_over_commit, request_spec):
    mapping = objects.InstanceMapping.get_by_instance_uuid(context,
                                                           instance.uuid)
    with nova_context.target_cell(context, mapping.cell_mapping) as cctxt:
        instance._context = cctxt
        with compute_utils.EventReporter(cctxt, EVENT, CONF.host,
                                         instance.uuid):
            LiveMigrationTask(manager, cctxt, instance,
                              (scheduler_hint or {}).get('host'),
                              block_migration, disk_over_commit,
                              request_spec).run()


class LiveMigrationTask:

    def __init__(self, manager, context, instance, destination,
                 block_migration, disk_over_commit, request_spec):
        self.manager = manager
        self.context = context
        self.instance = instance
        self.destination = destination
        self.block_migration = block_migration
        self.disk_over_commit = disk_over_commit
        self.request_spec = request_spec
        self.source = instance.host
        self.migration = None

    @property
    def report_client(self):
        return self.manager.report_client

    def run(self):
        self.migration = self._new_migration()
        try:
            dest, node, migrate_data = self._prepare()
        except Exception as exc:
            LOG.warning('Live migration of %s failed before it started: '
                        '%s', self.instance.uuid, exc)
            self._roll_back(exc)
            raise
        self.migration.dest_compute = dest
        self.migration.dest_node = node
        self.migration.save()
        LOG.info('Live migration %s of %s: %s -> %s',
                 self.migration.uuid, self.instance.uuid, self.source, dest)
        self.manager.compute_rpcapi.live_migration(
            self.context, self.instance, dest, self.block_migration,
            self.source, self.migration, migrate_data)

    def _new_migration(self):
        migration = objects.Migration(context=self.context.elevated())
        migration.instance_uuid = self.instance.uuid
        migration.source_compute = self.source
        migration.source_node = self.instance.node
        migration.dest_compute = self.destination
        migration.status = ACCEPTED
        migration.migration_type = 'live-migration'
        migration.old_instance_type_id = self.instance.instance_type_id
        migration.new_instance_type_id = self.instance.instance_type_id
        migration.user_id = self.instance.user_id
        migration.project_id = self.instance.project_id
        migration.create()
        return migration

    def _prepare(self):
        """(host, node, migrate data) of the destination that accepted."""
        self.report_client.move_allocations(self.context, self.instance.uuid,
                                            self.migration.uuid)
        if self.destination:
            return self._forced_destination()
        return self._scheduled_destination()

    # -- a host the operator forced --------------------------------------

    def _forced_destination(self):
        dest = self.destination
        if dest == self.source:
            raise exception.UnableToMigrateToSelf(
                instance_id=self.instance.uuid, host=dest)
        node = _compute_node(self.context, dest)
        source_node = _compute_node(self.context, self.source,
                                    self.instance.node)
        _check_host_is_up(self.context, dest)
        _check_enough_memory(self.instance, node)
        _check_same_hypervisor(source_node, node)
        self._claim_copy_on(node)
        return dest, node.hypervisor_hostname, self._checks_on(dest)

    def _claim_copy_on(self, node):
        """The instance gets the migration's resources on ``node``."""
        held = self.report_client.get_allocations_for_consumer(
            self.context, self.migration.uuid)
        resources = {}
        for alloc in held.values():
            for rc, amount in alloc['resources'].items():
                resources[rc] = resources.get(rc, 0) + amount
        request = {'allocations': {node.uuid: {'resources': resources}}}
        if not self.report_client.claim_resources(
                self.context, self.instance.uuid, request,
                self.instance.project_id, self.instance.user_id):
            raise exception.MigrationPreCheckError(
                reason='Unable to claim the resources of instance %s on '
                       'host %s' % (self.instance.uuid, node.host))

    # -- hosts the scheduler picks ------------------------------------------

    def _scheduled_destination(self):
        spec = self.request_spec
        # A host forced at boot binds the boot only.
        spec.reset_forced_destinations()
        spec.ignore_hosts = [self.source]
        spec.num_instances = 1
        while True:
            selection = self.manager.query_client.select_destinations(
                self.context, spec, [self.instance.uuid],
                return_objects=True, return_alternates=False)[0][0]
            host = selection.service_host
            try:
                source_node = _compute_node(self.context, self.source,
                                            self.instance.node)
                _check_same_hypervisor(
                    source_node, _compute_node(self.context, host,
                                               selection.nodename))
                migrate_data = self._checks_on(host)
            except _REFUSALS as exc:
                LOG.info('Host %s refused the live migration of %s: %s',
                         host, self.instance.uuid, exc)
                self.report_client.delete_allocation_for_instance(
                    self.context, self.instance.uuid)
                spec.ignore_hosts = list(spec.ignore_hosts) + [host]
                continue
            return host, selection.nodename, migrate_data

    def _checks_on(self, host):
        return self.manager.compute_rpcapi.check_can_live_migrate_destination(
            self.context, self.instance, host, self.block_migration,
            self.disk_over_commit, self.migration, None)

    # -- failure ---------------------------------------------------------

    def _roll_back(self, exc):
        """The instance as it was: allocation at the source, no task."""
        host_resize.rollback_to_source(self.context, self.report_client,
                                       self.instance, self.migration, exc)


def _compute_node(context, host, node=None):
    nodes = objects.ComputeNodeList.get_all_by_host(context, host)
    for cn in nodes:
        if node is None or cn.hypervisor_hostname == node:
            return cn
    raise exception.ComputeHostNotFound(host=host)


def _check_host_is_up(context, host):
    service = objects.Service.get_by_compute_host(context, host)
    if not servicegroup.API().service_is_up(service):
        raise exception.ComputeServiceUnavailable(host=host)


def _check_enough_memory(instance, node):
    free = node.free_ram_mb or 0
    needed = instance.flavor.memory_mb
    if free < needed:
        raise exception.MigrationPreCheckError(
            reason='Unable to migrate %(uuid)s to %(host)s: Lack of '
                   'memory(host:%(free)d <= instance:%(needed)d)' % {
                       'uuid': instance.uuid, 'host': node.host,
                       'free': free, 'needed': needed})


def _check_same_hypervisor(source, dest):
    if source.hypervisor_type != dest.hypervisor_type:
        raise exception.InvalidHypervisorType()
