"""Live migration, compute side (scenario 4).

Destination: ``check_can_live_migrate_destination`` (which asks the source
``check_can_live_migrate_source``), ``pre_live_migration`` (inactive
Neutron port bindings for this host, the driver's preparation),
``post_live_migration_at_destination`` (the instance is this host's) and
``rollback_live_migration_at_destination``.

Source: ``live_migration`` queues the migration (at most
``[DEFAULT] max_concurrent_live_migrations`` run at once, the others wait
with status ``queued``), then runs it in its own thread: preparing (the
destination's pre_live_migration), running (the driver's copy), then
``post_live_migration`` or ``rollback_live_migration`` as the driver
calls back.  ``live_migration_abort`` cancels a queued migration here or
asks the driver to stop a running one; ``live_migration_force_complete``
asks the driver to finish it.

How a driver reports progress: its ``live_migration`` receives the
Migration record as ``migrate_data.migration``; while the copy runs it
sets ``memory_total``, ``memory_processed``, ``memory_remaining``,
``disk_total``, ``disk_processed`` and ``disk_remaining`` (bytes) on it
and calls its ``save()``.  It ends by calling ``post_method(context,
instance, dest, block_migration, migrate_data)`` after a copy that
completed, or ``recover_method(context, instance, dest, migrate_data,
migration_status=...)`` ('cancelled' after an abort, else the default
'error'); an exception it raises is treated as a failed copy.
"""

import threading

from oslo_log import log as logging

from nova_clone.compute.host import block_devices
from nova_clone.compute.host import network_info as network_cache
from nova_clone.compute import power_state
from nova_clone.compute import rpcapi as compute_rpcapi
from nova_clone.compute import task_states
from nova_clone.compute import utils as compute_utils
from nova_clone.conf import CONF
from nova_clone import exception
from nova_clone.objects import base as objects_base
from nova_clone import threads

LOG = logging.getLogger(__name__)

QUEUED = 'queued'
PREPARING = 'preparing'
RUNNING = 'running'
COMPLETED = 'completed'
CANCELLED = 'cancelled'
ERROR = 'error'


def _objects():
    return compute_utils._objects()


def _compute_node(context, host, node=None):
    nodes = _objects().ComputeNodeList.get_all_by_host(context, host)
    for cn in nodes:
        if node is None or cn.hypervisor_hostname == node:
            return cn
    raise exception.ComputeHostNotFound(host=host)


def _block_device_info(context, instance):
    return block_devices.block_device_info_from_bdms(
        instance, block_devices.get_bdms(context, instance))


def _set_migration_status(migration, status):
    migration.status = status
    try:
        migration.save()
    except Exception:
        LOG.exception('Could not set migration %s to %s', migration.uuid,
                      status)


# -- destination -------------------------------------------------------------

def check_can_live_migrate_destination(collab, context, instance,
                                       block_migration, disk_over_commit,
                                       migration=None, limits=None):
    """Ask the driver whether this host can take the guest, then the
    source whether it can send it; returns the migrate data."""
    # Drivers get both nodes' records as plain dicts, as Nova's do.
    src_info = objects_base.obj_to_primitive(
        _compute_node(context, instance.host, instance.node))
    dst_info = objects_base.obj_to_primitive(
        _compute_node(context, collab.host))
    dest_check_data = collab.driver.check_can_live_migrate_destination(
        context, instance, src_info, dst_info, block_migration,
        disk_over_commit)
    try:
        return compute_rpcapi.get_compute_rpcapi(
        ).check_can_live_migrate_source(context, instance, dest_check_data)
    finally:
        collab.driver.cleanup_live_migration_destination_check(
            context, dest_check_data)


def check_can_live_migrate_source(collab, context, instance,
                                  dest_check_data):
    return collab.driver.check_can_live_migrate_source(
        context, instance, dest_check_data,
        _block_device_info(context, instance))


def delete_bindings(collab, context, instance, host):
    """Drop the bindings of the instance's ports on ``host``."""
    try:
        collab.network_api.delete_port_bindings(context, instance, host)
    except Exception:
        LOG.exception('Could not delete the port bindings of %s on %s',
                      instance.uuid, host)


def pre_live_migration(collab, context, instance, disk, migrate_data):
    """Inactive port bindings for this host, then the driver's part."""
    collab.network_api.bind_ports_to_host(context, instance, collab.host)
    try:
        return collab.driver.pre_live_migration(
            context, instance, _block_device_info(context, instance),
            network_cache.cached(instance), disk, migrate_data)
    except Exception:
        delete_bindings(collab, context, instance, collab.host)
        raise


def post_live_migration_at_destination(collab, context, instance,
                                       block_migration):
    """The guest runs here now: the instance becomes this host's."""
    network_info = collab.network_api.get_instance_nw_info(context,
                                                           instance)
    collab.driver.post_live_migration_at_destination(
        context, instance, network_info, block_migration,
        _block_device_info(context, instance))
    nodename = _compute_node(context, collab.host).hypervisor_hostname
    collab.rt.instance_claim(context, instance, nodename)
    instance.power_state = power_state.RUNNING
    instance.task_state = None
    instance.save(expected_task_state=[task_states.MIGRATING])
    LOG.info('Instance %s live-migrated to %s', instance.uuid, collab.host)


def rollback_live_migration_at_destination(collab, context, instance,
                                           destroy_disks, migrate_data):
    """Nothing of the instance stays here: its bindings, its guest."""
    delete_bindings(collab, context, instance, collab.host)
    collab.driver.rollback_live_migration_at_destination(
        context, instance, network_cache.cached(instance),
        _block_device_info(context, instance), destroy_disks=destroy_disks,
        migrate_data=migrate_data)


# -- source ------------------------------------------------------------------

class LiveMigrations:
    """The outgoing live migrations of one compute host.

    At most ``max_concurrent_live_migrations`` copy at once; each waits
    for its turn in its own thread, so a queued one can be cancelled.
    """

    def __init__(self, collab):
        self.collab = collab
        limit = CONF.max_concurrent_live_migrations
        self._slots = threading.BoundedSemaphore(limit) if limit else None
        self._lock = threading.Lock()
        # instance uuid -> (migration, cancelled event) while not running.
        self._waiting = {}

    def start(self, context, dest, instance, block_migration, migration,
              migrate_data):
        cancelled = threading.Event()
        with self._lock:
            self._waiting[instance.uuid] = (migration, cancelled)
        _set_migration_status(migration, QUEUED)
        threads.spawn(self._run, context, dest, instance, block_migration,
                      migration, migrate_data, cancelled,
                      name='live-migration-%s' % instance.uuid)

    def _run(self, context, dest, instance, block_migration, migration,
             migrate_data, cancelled):
        if self._slots is not None:
            self._slots.acquire()
        try:
            with self._lock:
                self._waiting.pop(instance.uuid, None)
            if cancelled.is_set():
                return
            _do_live_migration(self.collab, context, dest, instance,
                               block_migration, migration, migrate_data)
        finally:
            if self._slots is not None:
                self._slots.release()

    def abort(self, context, instance, migration_id):
        """Cancel a migration still waiting here, else stop the copy."""
        with self._lock:
            waiting = self._waiting.pop(instance.uuid, None)
        if waiting is not None:
            migration, cancelled = waiting
            cancelled.set()
            LOG.info('Queued live migration %s of %s cancelled',
                     migration.uuid, instance.uuid)
            _revert(self.collab, context, instance, migration, CANCELLED)
            return
        self.collab.driver.live_migration_abort(instance)


def _do_live_migration(collab, context, dest, instance, block_migration,
                       migration, migrate_data):
    _set_migration_status(migration, PREPARING)
    rpcapi = compute_rpcapi.get_compute_rpcapi()
    try:
        # A block migration's destination recreates the local disks the
        # copy then fills.
        disk = (collab.driver.get_instance_disk_info(
                    instance, _block_device_info(context, instance))
                if 'block_migration' in migrate_data and
                migrate_data.block_migration else None)
        migrate_data = rpcapi.pre_live_migration(
            context, instance, disk, dest, migrate_data)
    except Exception as exc:
        LOG.error('Pre live migration of %s on %s failed: %s',
                  instance.uuid, dest, exc)
        rollback_live_migration(collab, context, instance, dest,
                                migrate_data, migration=migration)
        return
    migrate_data.migration = migration
    _set_migration_status(migration, RUNNING)
    LOG.info('Live migrating %s from %s to %s (migration %s)',
             instance.uuid, collab.host, dest, migration.uuid)

    def post_method(ctxt, inst, dest_host, block_mig, data):
        post_live_migration(collab, ctxt, inst, dest_host, block_mig, data)

    def recover_method(ctxt, inst, dest_host, data,
                       migration_status=ERROR):
        rollback_live_migration(collab, ctxt, inst, dest_host, data,
                                migration_status=migration_status)

    try:
        collab.driver.live_migration(context, instance, dest, post_method,
                                     recover_method, block_migration,
                                     migrate_data)
    except Exception:
        LOG.exception('Live migration failed.')
        try:
            recover_method(context, instance, dest, migrate_data)
        except Exception:
            # E.g. the instance was deleted meanwhile: nothing to restore.
            LOG.exception('Could not roll back the live migration of %s',
                          instance.uuid)


def post_live_migration(collab, context, instance, dest, block_migration,
                        migrate_data):
    """The copy is over: the destination takes the instance, ports and
    resources."""
    migration = migrate_data.migration
    network_info = network_cache.cached(instance)
    collab.driver.post_live_migration(
        context, instance, _block_device_info(context, instance),
        migrate_data)
    collab.network_api.activate_port_bindings(context, instance, dest)
    collab.driver.post_live_migration_at_source(context, instance,
                                                network_info)
    # The source's binding was left inactive by the activation.
    delete_bindings(collab, context, instance, collab.host)
    compute_rpcapi.get_compute_rpcapi().post_live_migration_at_destination(
        context, instance, block_migration, dest)
    collab.rt.remove_instance(context, instance)
    release_migration_allocation(collab.reportclient, context, migration)
    _set_migration_status(migration, COMPLETED)
    LOG.info('Migrating instance %s to %s finished successfully.',
             instance.uuid, dest)


def release_migration_allocation(reportclient, context, migration):
    """The source's resources, held by the migration, are free."""
    try:
        reportclient.delete_allocation_for_instance(
            context, migration.uuid, consumer_type='migration', force=False)
    except Exception:
        LOG.exception('Could not release the allocation of migration %s',
                      migration.uuid)


def rollback_live_migration(collab, context, instance, dest, migrate_data,
                            migration_status=ERROR, migration=None):
    """The guest stays here: allocation back on the instance at the
    source, nothing left on the destination."""
    if migration is None:
        migration = migrate_data.migration
    _revert(collab, context, instance, migration, migration_status)
    compute_rpcapi.get_compute_rpcapi(
    ).rollback_live_migration_at_destination(
        context, instance, dest, destroy_disks=True,
        migrate_data=migrate_data)
    LOG.warning('Live migration of %s to %s rolled back (%s)',
                instance.uuid, dest, migration_status)


def _revert(collab, context, instance, migration, migration_status):
    _give_back_allocation(collab, context, instance, migration)
    instance.task_state = None
    instance.save(expected_task_state=[task_states.MIGRATING])
    _set_migration_status(migration, migration_status)


def _give_back_allocation(collab, context, instance, migration):
    try:
        collab.reportclient.move_allocations(context, migration.uuid,
                                             instance.uuid)
    except Exception:
        LOG.exception('Could not give the allocation of migration %s back '
                      'to instance %s', migration.uuid, instance.uuid)


def force_complete(collab, context, instance):
    collab.driver.live_migration_force_complete(instance)


def settle_at_startup(collab, context, instance):
    """This service stopped while the instance was live-migrating from
    here: the guest is still here, so the migration failed."""
    try:
        collab.driver.live_migration_abort(instance)
    except (NotImplementedError, exception.NoActiveMigrationForInstance):
        pass
    migrations = _objects().MigrationList.get_in_progress_by_instance(
        context, instance.uuid, 'live-migration')
    for migration in migrations:
        if migration.dest_compute:
            delete_bindings(collab, context, instance,
                            migration.dest_compute)
        _give_back_allocation(collab, context, instance, migration)
        _set_migration_status(migration, ERROR)
    instance.task_state = None
    instance.save()
    LOG.info('Instance %s found in migrating state during startup; its '
             'live migration is set to error', instance.uuid)
