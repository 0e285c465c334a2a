"""The rebuild flow: rebuild_instance on the instance's compute.

The guest goes and a new one boots from the new image on the same host,
with the same ports, volumes and allocation.  The task state tells the
steps: rebuilding (the old guest goes), rebuild_block_device_mapping
(volumes), rebuild_spawning (the new guest boots, as a build's spawn).
A driver with its own ``rebuild`` (which can keep ephemeral disks) does
all three; otherwise the guest is destroyed and spawned.

The server ends ACTIVE, or STOPPED when it was stopped before; a failure
leaves it in ERROR with the fault the RPC method records.

An evacuation (``evacuate_instance``) runs on the new host: the instance
is claimed here, its ports are bound here, and a guest is spawned from
its image; the evacuation's Migration ends done (or failed).  Since 2.95
the server ends stopped.
"""

from oslo_log import log as logging
from oslo_utils import excutils
from oslo_utils import timeutils

from nova_clone.compute.host import block_devices
from nova_clone.compute.host import build
from nova_clone.compute.host import collaborators
from nova_clone.compute.host import teardown
from nova_clone.compute import task_states
from nova_clone.compute import utils as compute_utils
from nova_clone.compute import vm_states
from nova_clone import exception

LOG = logging.getLogger(__name__)


def rebuild_instance(collab, context, instance, image_ref, injected_files,
                     new_pass, bdms, preserve_ephemeral=False,
                     request_spec=None):
    """Rebuild ``instance`` here with ``image_ref``; raises on failure
    after putting the instance in ERROR."""
    with collaborators.instance_lock(instance.uuid):
        if bdms is None:
            bdms = block_devices.get_bdms(context, instance)
        compute_utils.notify_about_instance_action(
            context, instance, collab.host, 'rebuild', phase='start',
            bdms=bdms)
        try:
            _rebuild(collab, context, instance, image_ref, injected_files,
                     new_pass, bdms, preserve_ephemeral)
        except exception.InstanceNotFound:
            LOG.info('Instance %s was deleted during its rebuild',
                     instance.uuid)
            raise
        except Exception as exc:
            with excutils.save_and_reraise_exception():
                LOG.exception('Rebuild of %s failed', instance.uuid)
                compute_utils.notify_about_instance_action(
                    context, instance, collab.host, 'rebuild',
                    phase='error', exception=exc, bdms=bdms)
                teardown.set_error_state(instance, clean_task_state=True)
        compute_utils.notify_about_instance_action(
            context, instance, collab.host, 'rebuild', phase='end',
            bdms=bdms)


def evacuate_instance(collab, context, instance, new_pass, migration,
                      node, target_state=None):
    """Rebuild here the instance whose host died."""
    node = node or build.default_nodename(collab.driver, collab.host)
    with collaborators.instance_lock(instance.uuid):
        bdms = block_devices.get_bdms(context, instance)
        compute_utils.notify_about_instance_action(
            context, instance, collab.host, 'evacuate', bdms=bdms)
        try:
            if not collab.driver.capabilities.get('supports_evacuate'):
                raise exception.InstanceRecreateNotSupported()
            if collab.driver.instance_exists(instance):
                raise exception.InstanceExists(name=instance.uuid)
            with collab.rt.instance_claim(context, instance, node):
                _recreate(collab, context, instance, new_pass, bdms,
                          target_state)
        except Exception:
            with excutils.save_and_reraise_exception():
                LOG.exception('Evacuation of %s to %s failed',
                              instance.uuid, collab.host)
                _set_migration_status(migration, 'failed')
                teardown.set_error_state(instance, clean_task_state=True)
        _set_migration_status(migration, 'done')


def _set_migration_status(migration, status):
    if migration is None:
        return
    migration.status = status
    try:
        migration.save()
    except Exception:
        LOG.exception('Could not set migration %s to %s', migration.uuid,
                      status)


def _recreate(collab, context, instance, new_pass, bdms, target_state):
    orig_vm_state = instance.vm_state
    instance.save(expected_task_state=[task_states.REBUILDING])
    # network-vif-plugged may come as soon as the ports are bound here.
    collab.instance_events.expect_events_for(instance.uuid)
    try:
        network_info = collab.network_api.setup_instance_network_on_host(
            context, instance, collab.host)
        resources = _resources(collab, context, instance, network_info,
                               bdms)
        _spawn_steps(collab, context, instance,
                     _image(collab, context, instance.image_ref), [],
                     new_pass, resources)
    finally:
        collab.instance_events.clear_events_for_instance(instance.uuid)
    _finish(collab, instance, [task_states.REBUILD_SPAWNING],
            stopped=(target_state == vm_states.STOPPED or
                     orig_vm_state == vm_states.STOPPED))


def _finish(collab, instance, expected_task_states, stopped):
    """ACTIVE with the new guest, or STOPPED with it powered off."""
    instance.power_state = build.get_power_state(collab.driver, instance)
    instance.vm_state = vm_states.ACTIVE
    instance.task_state = None
    instance.launched_at = timeutils.utcnow()
    instance.save(expected_task_state=expected_task_states)
    if stopped:
        collab.driver.power_off(instance)
        instance.power_state = build.get_power_state(collab.driver,
                                                     instance)
        instance.vm_state = vm_states.STOPPED
        instance.save()


def _image(collab, context, image_ref):
    if not image_ref:
        return {}
    return collab.image_api.get(context, image_ref)


def _rebuild(collab, context, instance, image_ref, injected_files,
             new_pass, bdms, preserve_ephemeral):
    orig_vm_state = instance.vm_state
    image = _image(collab, context, image_ref)
    instance.power_state = build.get_power_state(collab.driver, instance)
    instance.task_state = task_states.REBUILDING
    instance.save(expected_task_state=[task_states.REBUILDING])

    network_info = collab.network_api.get_instance_nw_info(context,
                                                           instance)
    resources = _resources(collab, context, instance, network_info, bdms)
    try:
        collab.driver.rebuild(
            context, instance, image, injected_files, new_pass,
            resources['allocations'], bdms, network_info=network_info,
            block_device_info=resources['block_device_info'],
            preserve_ephemeral=preserve_ephemeral)
    except NotImplementedError:
        _destroy_and_spawn(collab, context, instance, image, injected_files,
                           new_pass, resources, preserve_ephemeral)

    # A stopped server is rebuilt stopped, as the user left it.
    _finish(collab, instance, [task_states.REBUILD_SPAWNING,
                               task_states.REBUILDING],
            stopped=orig_vm_state == vm_states.STOPPED)


def _destroy_and_spawn(collab, context, instance, image, injected_files,
                       new_pass, resources, preserve_ephemeral):
    """What a rebuild is when the driver has no rebuild of its own."""
    if preserve_ephemeral:
        raise exception.PreserveEphemeralNotSupported()
    collab.driver.destroy(context, instance, resources['network_info'],
                          block_device_info=resources['block_device_info'])
    _spawn_steps(collab, context, instance, image, injected_files, new_pass,
                 resources)


def _resources(collab, context, instance, network_info, bdms):
    """What spawn_guest takes, for the instance's current ports and
    block devices."""
    return {
        'network_info': network_info, 'bdms': bdms,
        'block_device_info': block_devices.block_device_info_from_bdms(
            instance, bdms),
        'allocations': collab.reportclient.get_allocations_for_consumer(
            context, instance.uuid),
    }


def _spawn_steps(collab, context, instance, image, injected_files,
                 new_pass, resources):
    """rebuild_block_device_mapping, then rebuild_spawning: the new
    guest boots."""
    instance.task_state = task_states.REBUILD_BLOCK_DEVICE_MAPPING
    instance.save(expected_task_state=[task_states.REBUILDING])
    instance.task_state = task_states.REBUILD_SPAWNING
    instance.save(expected_task_state=[
        task_states.REBUILD_BLOCK_DEVICE_MAPPING])
    build.spawn_guest(collab, context, instance, image, injected_files,
                      new_pass, resources)

