"""Resize and cold migration on the compute hosts (scenario 3).

One move is a chain of casts between the two hosts, each step recorded in
the migration's status and the instance's task_state:

  prep_resize (dest)      move claim, migration -> pre-migrating on dest
  resize_instance (src)   guest powered off, disk handed over, migrating
  finish_resize (dest)    ports bound to dest, guest started, RESIZED
  confirm_resize (src)    source guest and the migration's allocation gone
  revert_resize (dest)    dest guest gone, then finish_revert_resize (src):
                          old flavor, ports and allocation back on source

Volumes follow the guest as in Nova: the host that gives the guest up
swaps each volume's Cinder attachment for a new one without a connector
(the volume stays reserved to the server, no host connected), and the
host that starts the guest gives that attachment its own connector,
passes the volumes to the driver and completes the attachments.

While the move is open the source's resources stay allocated in Placement
to the migration as consumer, and the destination's to the instance.
"""

import sys

from oslo_log import log as logging

from nova_clone.compute.host import block_devices
from nova_clone.compute.host import failure_record
from nova_clone.compute.host import resource_tracker
from nova_clone.compute.host import teardown
from nova_clone.compute import instance_actions
from nova_clone.compute import power_state
from nova_clone.compute import task_states
from nova_clone.compute import utils as compute_utils
from nova_clone.compute import vm_states
from nova_clone.conf import CONF
from nova_clone import exception

LOG = logging.getLogger(__name__)

# system_metadata key: the vm_state to return to after the move.
OLD_VM_STATE = 'old_vm_state'


def _objects():
    from nova_clone import objects
    return objects


def flavor_usage(flavor):
    return resource_tracker.Usage(flavor.vcpus, flavor.memory_mb,
                                  flavor.root_gb + flavor.ephemeral_gb)


def _power_on_after(instance):
    """A stopped server stays stopped through its move."""
    old = (instance.system_metadata or {}).get(OLD_VM_STATE)
    return old != vm_states.STOPPED


def _settled_vm_state(instance):
    return vm_states.ACTIVE if _power_on_after(instance) \
        else vm_states.STOPPED


class ResizeFlow:
    """The compute-host steps of a cold move, for one host, with the
    host's collaborators: its driver and resource tracker, Neutron,
    Placement, the peer computes (the next step of the move) and the
    conductor (a reschedule when prep_resize fails here).
    """

    def __init__(self, collab):
        self.collab = collab
        self.host = collab.host
        self.driver = collab.driver
        self.rt = collab.rt

    @property
    def network_api(self):
        return self.collab.network_api

    @property
    def reportclient(self):
        return self.collab.reportclient

    @property
    def compute_rpcapi(self):
        return self.collab.compute_rpcapi

    # -- volumes ------------------------------------------------------------

    def _volume_bdms(self, context, instance):
        return [bdm for bdm in block_devices.get_bdms(context, instance)
                if block_devices.is_volume_bdm(bdm)]

    def _disconnect_volumes(self, context, instance, bdms):
        """This host gives the guest up: each attachment is replaced by
        one with no connector, so the volume stays the server's."""
        volume_api = self.collab.volume_api
        for bdm in bdms:
            if not bdm.attachment_id:
                continue
            new = volume_api.attachment_create(context, bdm.volume_id,
                                               instance.uuid)
            volume_api.attachment_delete(context, bdm.attachment_id)
            bdm.attachment_id = new['id']
            bdm.save()

    def _connect_volumes(self, context, instance, bdms):
        """The guest starts here: the attachments get this host's
        connector; the driver's block_device_info."""
        return block_devices.prep_block_device(
            self.driver, self.collab.volume_api, context, instance, bdms)

    # -- destination ------------------------------------------------------

    def prep_resize(self, context, image, instance, flavor, request_spec,
                    filter_properties, node, clean_shutdown, migration,
                    host_list):
        node = node or self.host
        try:
            if instance.host == self.host and \
                    not self.driver.capabilities.get(
                        'supports_migrate_to_same_host'):
                raise exception.UnableToMigrateToSelf(
                    instance_id=instance.uuid, host=self.host)
            self.rt.move_claim(context, migration.uuid, node,
                               flavor_usage(flavor))
            migration.dest_compute = self.host
            migration.dest_node = node
            migration.dest_host = CONF.my_ip
            cn = self.rt.compute_nodes.get(node)
            if cn is not None:
                migration.dest_compute_id = cn.id
            migration.save()
            instance.old_flavor = instance.flavor
            instance.new_flavor = flavor
            sysmeta = dict(instance.system_metadata or {})
            sysmeta[OLD_VM_STATE] = instance.vm_state
            instance.system_metadata = sysmeta
            instance.save(expected_task_state=[task_states.RESIZE_PREP])
        except Exception as exc:
            LOG.warning('prep_resize of %s on %s failed: %s', instance.uuid,
                        self.host, exc)
            self.rt.drop_move_claim(context, migration.uuid)
            self._reschedule_or_fail(context, instance, flavor, request_spec,
                                     filter_properties, migration, host_list,
                                     clean_shutdown, exc)
            raise
        LOG.info('Resize of %s claimed on %s; asking source %s to migrate',
                 instance.uuid, self.host, instance.host)
        self.compute_rpcapi.resize_instance(
            context, instance, migration, image, flavor, request_spec,
            clean_shutdown=clean_shutdown)

    def _reschedule_or_fail(self, context, instance, flavor, request_spec,
                            filter_properties, migration, host_list,
                            clean_shutdown, exc):
        # The destination's claim is this host's to give back; the source's
        # (held by the migration) stays for the next host or the rollback.
        teardown.release_allocation(self.reportclient, context, instance)
        remaining = [h for h in host_list or []
                     if h.service_host != self.host]
        if remaining:
            LOG.info('Rescheduling the resize of %s after %s failed',
                     instance.uuid, self.host)
            self.collab.compute_task_api.migrate_server(
                context, instance, {'filter_properties': filter_properties},
                False, False, flavor, None, None,
                clean_shutdown=clean_shutdown, request_spec=request_spec,
                host_list=remaining, do_cast=True)
            return
        rollback_to_source(context, self.reportclient, instance, migration,
                           exc)

    def finish_resize(self, context, disk_info, image, instance, migration,
                      request_spec=None):
        try:
            # Saving the step may fail too (the database or the conductor
            # away): the guest has left the source all the same.
            if not _take_step(instance, task_states.RESIZE_MIGRATED,
                              task_states.RESIZE_FINISH):
                return
            self._finish_resize(context, disk_info, image, instance,
                                migration)
        except Exception as exc:
            self._fail(context, instance, migration, exc)
            raise

    def _finish_resize(self, context, disk_info, image, instance, migration):
        resized = migration.old_instance_type_id != \
            migration.new_instance_type_id
        if resized:
            instance.apply_flavor(instance.new_flavor)
        instance.host = self.host
        instance.node = migration.dest_node
        instance.compute_id = migration.dest_compute_id
        instance.save()
        # The instance counts on this node by its own row from now on.
        self.rt.drop_move_claim(context, migration.uuid)
        network_info = self.network_api.setup_instance_network_on_host(
            context, instance, self.host, migration=migration)
        allocations = self.reportclient.get_allocations_for_consumer(
            context, instance.uuid)
        bdms = self._volume_bdms(context, instance)
        block_device_info = self._connect_volumes(context, instance, bdms)
        self.driver.finish_migration(
            context, migration, instance, disk_info, network_info, image,
            resized, allocations, block_device_info=block_device_info,
            power_on=_power_on_after(instance))
        block_devices.complete_volume_attachments(
            self.collab.volume_api, context, bdms)
        migration.status = 'finished'
        migration.save()
        instance.vm_state = vm_states.RESIZED
        instance.task_state = None
        instance.power_state = self._power_state(instance)
        instance.save(expected_task_state=[task_states.RESIZE_FINISH])
        LOG.info('Instance %s moved to %s; waiting for confirm or revert',
                 instance.uuid, self.host)

    def revert_resize(self, context, instance, migration, request_spec=None):
        try:
            network_info = self.network_api.get_instance_nw_info(context,
                                                                 instance)
            # The ports stay: the source binds them back.
            teardown.shutdown_instance(self.collab, context, instance,
                                       bdms=None, deallocate_networks=False,
                                       network_info=network_info)
            self._disconnect_volumes(
                context, instance, self._volume_bdms(context, instance))
            self.network_api.migrate_instance_start(context, instance,
                                                    migration)
        except Exception as exc:
            self._fail(context, instance, migration, exc)
            raise
        self.compute_rpcapi.finish_revert_resize(
            context, instance, migration, migration.source_compute,
            request_spec)

    # -- source -----------------------------------------------------------

    def resize_instance(self, context, instance, image, migration, flavor,
                        clean_shutdown=True, request_spec=None):
        try:
            moving = _take_step(instance, task_states.RESIZE_PREP,
                                task_states.RESIZE_MIGRATING)
        except Exception as exc:
            # Not recorded (the database or the conductor away): the
            # guest is untouched and stays here.
            rollback_to_source(context, self.reportclient, instance,
                               migration, exc)
            raise
        if not moving:
            return
        try:
            migration.status = 'migrating'
            migration.save()
            network_info = self.network_api.get_instance_nw_info(context,
                                                                 instance)
            timeout, interval = ((CONF.shutdown_timeout, 10)
                                 if clean_shutdown else (0, 0))
            bdms = self._volume_bdms(context, instance)
            disk_info = self.driver.migrate_disk_and_power_off(
                context, instance, migration.dest_host, flavor,
                network_info,
                block_device_info=block_devices.block_device_info_from_bdms(
                    instance, bdms),
                timeout=timeout, retry_interval=interval)
            self._disconnect_volumes(context, instance, bdms)
            # The old flavor stays used here until the move is settled.
            self.rt.move_claim(context, migration.uuid, migration.source_node,
                               flavor_usage(instance.flavor))
            self.network_api.migrate_instance_start(context, instance,
                                                    migration)
            migration.status = 'post-migrating'
            migration.save()
            instance.task_state = task_states.RESIZE_MIGRATED
            instance.save(expected_task_state=[task_states.RESIZE_MIGRATING])
        except exception.InstanceFaultRollback as exc:
            # The driver refused before touching the guest: it stays
            # here as it was, and the user sees why in the action.
            LOG.warning('Move of %s refused by the driver, server left on '
                        '%s: %s', instance.uuid, self.host,
                        exc.inner_exception)
            rollback_to_source(context, self.reportclient, instance,
                               migration, exc.inner_exception)
            raise exc.inner_exception
        except Exception as exc:
            self._fail(context, instance, migration, exc)
            raise
        self.compute_rpcapi.finish_resize(
            context, instance, migration, image, disk_info,
            migration.dest_compute, request_spec)

    def confirm_resize(self, context, instance, migration):
        try:
            network_info = self.network_api.get_instance_nw_info(context,
                                                                 instance)
            self.driver.confirm_migration(context, migration, instance,
                                          network_info)
            self.rt.drop_move_claim(context, migration.uuid)
            self.reportclient.delete_allocation_for_instance(
                context, migration.uuid, consumer_type='migration')
            migration.status = 'confirmed'
            migration.save()
            instance.old_flavor = None
            instance.new_flavor = None
            instance.vm_state = _settled_vm_state(instance)
            instance.task_state = None
            instance.save(expected_task_state=[
                None, task_states.RESIZE_CONFIRMING, task_states.DELETING])
        except Exception as exc:
            self._fail(context, instance, migration, exc)
            raise
        LOG.info('Resize of %s confirmed; source %s cleaned up',
                 instance.uuid, self.host)

    def finish_revert_resize(self, context, instance, migration,
                             request_spec=None):
        try:
            instance.apply_flavor(instance.old_flavor)
            instance.old_flavor = None
            instance.new_flavor = None
            instance.host = migration.source_compute
            instance.node = migration.source_node
            cn = self.rt.compute_nodes.get(migration.source_node)
            if cn is not None:
                instance.compute_id = cn.id
            instance.save()
            network_info = self.network_api.setup_instance_network_on_host(
                context, instance, self.host, migration=migration)
            bdms = self._volume_bdms(context, instance)
            self.driver.finish_revert_migration(
                context, instance, network_info, migration,
                block_device_info=self._connect_volumes(context, instance,
                                                        bdms),
                power_on=_power_on_after(instance))
            block_devices.complete_volume_attachments(
                self.collab.volume_api, context, bdms)
            self.reportclient.move_allocations(context, migration.uuid,
                                               instance.uuid)
            self.rt.drop_move_claim(context, migration.uuid)
            migration.status = 'reverted'
            migration.save()
            instance.vm_state = _settled_vm_state(instance)
            instance.task_state = None
            instance.power_state = self._power_state(instance)
            instance.save(expected_task_state=[task_states.RESIZE_REVERTING])
        except Exception as exc:
            self._fail(context, instance, migration, exc)
            raise
        LOG.info('Resize of %s reverted to %s', instance.uuid, self.host)

    def _fail(self, context, instance, migration, exc):
        self.rt.drop_move_claim(context, migration.uuid)
        fail_move(context, instance, migration, exc, self.reportclient)

    def _power_state(self, instance):
        try:
            return self.driver.get_info(instance).state
        except exception.InstanceNotFound:
            return power_state.NOSTATE


def _take_step(instance, expected, task_state):
    """Move the instance to the next step's task state; False when it
    is not where the move left it (settled by a restarted compute,
    deleted...): the step is no longer wanted."""
    instance.task_state = task_state
    try:
        instance.save(expected_task_state=[expected])
    except (exception.UnexpectedTaskStateError,
            exception.InstanceNotFound) as exc:
        LOG.info('Not moving instance %s on: %s', instance.uuid, exc)
        return False
    return True


def fail_move(context, instance, migration, exc, reportclient):
    """A step failed after the guest started moving: ERROR with a fault
    naming the cause, the migration in error, and Placement holding
    resources only on the host the instance is recorded on."""
    LOG.error('Move of instance %s failed: %s', instance.uuid, exc)

    exc_info = sys.exc_info()

    # The fault before the state: whoever sees ERROR sees why.
    def fault():
        compute_utils.add_instance_fault_from_exc(context, instance, exc,
                                                  exc_info, raise_exc=True)

    def error_state():
        teardown.set_error_state(instance, clean_task_state=True)

    def allocations():
        if instance.host == migration.source_compute:
            reportclient.move_allocations(context, migration.uuid,
                                          instance.uuid)
        else:
            reportclient.delete_allocation_for_instance(
                context, migration.uuid, consumer_type='migration')

    # The allocations last: Placement away must not keep the server in
    # its move (what a delete meanwhile leaves, the resource tracker's
    # periodic update frees).
    failure_record.record(
        instance, [_migration_in_error(migration), fault, error_state,
                   allocations], 'failed move')


def rollback_to_source(context, reportclient, instance, migration, exc):
    """No host took the move: the server stays where it is, as it was,
    with a fault saying why; its allocation goes back to it."""

    def fault():
        compute_utils.add_instance_fault_from_exc(context, instance, exc,
                                                  raise_exc=True)

    def no_task():
        instance.task_state = None
        instance.save()

    def allocation():
        reportclient.move_allocations(context, migration.uuid,
                                      instance.uuid)

    # The allocation last, as in fail_move.
    failure_record.record(
        instance, [_migration_in_error(migration), fault, no_task,
                   allocation], 'given up move')


def _migration_in_error(migration):
    def migration_in_error():
        migration.status = 'error'
        migration.save()
    return migration_in_error


def poll_unconfirmed_resizes(collab, context):
    """Confirm the moves to this host left unconfirmed for longer than
    [DEFAULT] resize_confirm_window seconds, as their user would
    (0 = never)."""
    confirm_window = CONF.resize_confirm_window
    if not confirm_window:
        return
    objects = _objects()
    migrations = objects.MigrationList.get_unconfirmed_by_dest_compute(
        context, confirm_window, collab.host)
    for migration in migrations:
        try:
            instance = objects.Instance.get_by_uuid(
                context, migration.instance_uuid,
                expected_attrs=['flavor', 'system_metadata', 'info_cache'])
        except exception.InstanceNotFound:
            LOG.info('Instance %s of unconfirmed migration %s is gone',
                     migration.instance_uuid, migration.uuid)
            migration.status = 'error'
            migration.save()
            continue
        if instance.vm_state == vm_states.ERROR:
            migration.status = 'error'
            migration.save()
            continue
        if instance.vm_state != vm_states.RESIZED or \
                instance.task_state is not None:
            LOG.info('Not confirming the resize of %s automatically: it is '
                     '%s/%s', instance.uuid, instance.vm_state,
                     instance.task_state)
            continue
        LOG.info('Confirming the resize of %s automatically after %ss',
                 instance.uuid, confirm_window)
        migration.status = 'confirming'
        migration.save()
        objects.InstanceAction.action_start(
            context, instance.uuid, instance_actions.CONFIRM_RESIZE,
            want_result=False)
        collab.compute_rpcapi.confirm_resize(context, instance, migration,
                                             migration.source_compute)


# Task states of a move a restarted compute finds on its instances.
INTERRUPTED = task_states.RESIZE_STATES + (task_states.RESIZE_REVERTING,)
# ... of which those where the guest has not left the source yet.
_BEFORE_FINISH = (task_states.RESIZE_PREP, task_states.RESIZE_MIGRATING,
                  task_states.RESIZE_MIGRATED)


def settle_interrupted_move(collab, context, instance):
    """On start: the step of a move this host was running is lost.

    Until finish_resize the server is still this (source) host's and its
    guest is still here: it is started again and the server stays as it
    was.  Later steps cannot be finished or undone safely, so the server
    goes to ERROR.  Either way the migration is in error and no task state
    stays set.
    """
    objects = _objects()
    task_state = instance.task_state
    migrations = objects.MigrationList.get_in_progress_by_instance(
        context, instance.uuid)
    migration = migrations[-1] if len(migrations) else None
    exc = exception.MoveInterrupted(host=collab.host, task_state=task_state)
    if task_state in _BEFORE_FINISH and migration is not None:
        LOG.warning('Instance %s was being moved away when this service '
                    'stopped; restoring it here', instance.uuid)
        try:
            collab.driver.finish_revert_migration(
                context, instance, [], migration, block_device_info=None,
                power_on=_power_on_after(instance))
            instance.vm_state = _settled_vm_state(instance)
            rollback_to_source(context, collab.reportclient, instance,
                               migration, exc)
            return
        except Exception:
            LOG.exception('Could not restore instance %s', instance.uuid)
    LOG.warning('Instance %s was %s when this service stopped; setting it '
                'to ERROR', instance.uuid, task_state)
    if migration is None:
        compute_utils.add_instance_fault_from_exc(context, instance, exc)
        teardown.set_error_state(instance, clean_task_state=True)
        return
    fail_move(context, instance, migration, exc, collab.reportclient)
