"""Settling, at start-up, the instances a previous run left mid-flow."""

from oslo_log import log as logging

from nova_clone.compute.host import delete
from nova_clone.compute.host import live_migration
from nova_clone.compute.host import periodic
from nova_clone.compute.host import resize
from nova_clone.compute.host import teardown
from nova_clone.compute import task_states
from nova_clone.compute import utils as compute_utils
from nova_clone.compute import vm_states
from nova_clone import exception

LOG = logging.getLogger(__name__)

_POWER_TASKS = (
    task_states.POWERING_OFF, task_states.POWERING_ON,
    task_states.REBOOTING, task_states.REBOOT_PENDING,
    task_states.REBOOT_STARTED, task_states.REBOOTING_HARD,
    task_states.REBOOT_PENDING_HARD, task_states.REBOOT_STARTED_HARD,
    task_states.PAUSING, task_states.UNPAUSING, task_states.SUSPENDING,
    task_states.RESUMING)


def destroy_evacuated_instances(collab, context):
    """Guests of instances evacuated away while this host was down: the
    guest goes (the disks too, unless on shared storage: nothing is
    shared here), the old host's allocation the evacuation's Migration
    holds is deleted, and the Migration is completed."""
    objects = compute_utils._objects()
    try:
        migrations = objects.MigrationList.get_by_filters(context, {
            'source_compute': collab.host, 'migration_type': 'evacuation',
            'status': ['accepted', 'done']})
    except Exception:
        LOG.exception('Could not list the evacuations from %s', collab.host)
        return
    for migration in migrations:
        try:
            instance = objects.Instance.get_by_uuid(
                context, migration.instance_uuid,
                expected_attrs=['info_cache'])
        except exception.InstanceNotFound:
            instance = None
        if instance is not None and collab.driver.instance_exists(instance):
            LOG.info('Destroying the guest of %s, evacuated to %s',
                     instance.uuid, migration.dest_compute)
            collab.driver.destroy(context, instance, [],
                                  destroy_disks=True)
        teardown.release_allocation(collab.reportclient, context, migration)
        migration.status = 'completed'
        migration.save()


def init_instances(collab, context):
    """Finish or fail the work left on every instance of this host."""
    destroy_evacuated_instances(collab, context)
    try:
        instances = compute_utils._objects().InstanceList.get_by_host(
            context, collab.host, expected_attrs=['info_cache'])
    except Exception:
        LOG.exception('Could not list the instances of %s at start-up',
                      collab.host)
        return
    for instance in instances:
        try:
            _init_instance(collab, context, instance)
        except Exception:
            LOG.exception('Failed to restore the state of instance %s',
                          instance.uuid)


def _init_instance(collab, context, instance):
    if instance.vm_state == vm_states.SOFT_DELETED:
        return
    if instance.vm_state == vm_states.DELETED:
        # The service died between the guest's end and the row's.
        LOG.info('Completing the partial delete of %s', instance.uuid)
        delete.complete_deletion(collab, context, instance)
        return
    if instance.task_state == task_states.DELETING:
        LOG.info('Completing the interrupted delete of %s', instance.uuid)
        delete.delete_instance(collab, context, instance, None)
        return
    if (instance.vm_state == vm_states.BUILDING or
            instance.task_state in task_states.BUILD_STATES):
        LOG.warning('Instance %s was building when this service stopped; '
                    'setting it to ERROR', instance.uuid)
        compute_utils.add_instance_fault_from_exc(
            context, instance, exception.BuildAbortException(
                instance_uuid=instance.uuid,
                reason='nova-compute on %s stopped during the build; '
                       'delete the server and boot it again' % collab.host))
        teardown.set_error_state(instance, clean_task_state=True)
        return
    if instance.task_state == task_states.MIGRATING:
        # Still this host's: its live migration never finished.
        live_migration.settle_at_startup(collab, context, instance)
    if instance.task_state in resize.INTERRUPTED:
        resize.settle_interrupted_move(collab, context, instance)
        return
    if instance.task_state in _POWER_TASKS:
        # The power action died with the service: nobody would finish it.
        LOG.warning('Instance %s was %s when this service stopped; '
                    'clearing the task', instance.uuid, instance.task_state)
        instance.task_state = None
        instance.save()
    periodic.sync_instance_power_state(collab, context, instance)
