"""nova-compute's manager: the RPC endpoint of one compute host.

One method per compute RPC method (see rpcapi.py), each handing the call
to its flow in nova_clone.compute.host with the host's collaborators.
The service hooks and the periodic tasks live here too, because the
service runner and oslo.service look for them on the manager.
"""


import oslo_messaging as messaging
from oslo_log import log as logging
from oslo_service import periodic_task

from nova_clone.compute.host import build
from nova_clone.compute.host import collaborators
from nova_clone.compute.host import consoles
from nova_clone.compute.host import deferred_delete
from nova_clone.compute.host import delete
from nova_clone.compute.host import events as compute_events
from nova_clone.compute.host import image_cache
from nova_clone.compute.host import interfaces
from nova_clone.compute.host import live_migration
from nova_clone.compute.host import multinic
from nova_clone.compute.host import nodes
from nova_clone.compute.host import periodic
from nova_clone.compute.host import power
from nova_clone.compute.host import rebuild
from nova_clone.compute.host import rescue
from nova_clone.compute.host import resize
from nova_clone.compute.host import resource_tracker
from nova_clone.compute.host import shelve
from nova_clone.compute.host import snapshot
from nova_clone.compute.host import startup
from nova_clone.compute.host import usage_audit
from nova_clone.compute.host import volumes
from nova_clone.compute import utils as compute_utils
from nova_clone.conf import CONF
from nova_clone import context as nova_context
from nova_clone import exception
from nova_clone import manager
from nova_clone.virt import driver as virt_driver

LOG = logging.getLogger(__name__)



# Periodic task -> (option, whether 0 disables it).  Spacing is applied
# per manager from the parsed configuration (see _apply_task_intervals),
# not frozen at import time.
_TASK_INTERVALS = {
    'update_available_resource': ('update_resources_interval', False),
    '_sync_power_states': ('sync_power_state_interval', False),
    '_cleanup_running_deleted_instances': (
        'running_deleted_instance_poll_interval', True),
    '_reclaim_queued_deletes': ('reclaim_instance_interval', True),
    '_poll_shelved_instances': ('shelved_poll_interval', True),
}


def _interval(option, zero_disables):
    value = getattr(CONF, option)
    if value < 0 or (value == 0 and zero_disables):
        return None
    return value or periodic_task.DEFAULT_INTERVAL


# Longest a stopping compute waits for running builds.
_BUILD_DRAIN_SECONDS = 30


class ComputeManager(manager.Manager):
    """Builds, deletes and watches the guests of one compute host."""

    target = messaging.Target(version='6.5')

    def __init__(self, compute_driver=None, *args, **kwargs):
        super().__init__(*args, service_name='compute', **kwargs)
        instance_events = compute_events.InstanceEvents()
        virtapi = compute_events.ComputeVirtAPI(instance_events)
        self.driver = virt_driver.load_compute_driver(virtapi,
                                                      compute_driver)
        self.rt = resource_tracker.ResourceTracker(self.host, self.driver)
        self.collaborators = collaborators.Collaborators(
            self.host, self.driver, self.rt, instance_events, virtapi)
        self._builds = build.Builds(self.collaborators)
        self._resizes = resize.ResizeFlow(self.collaborators)
        self._live_migrations = live_migration.LiveMigrations(
            self.collaborators)
        self._apply_task_intervals()

    def _apply_task_intervals(self):
        spacing = dict(self._periodic_spacing)
        tasks = []
        for name, task in self._periodic_tasks:
            option = _TASK_INTERVALS.get(name)
            if option is not None:
                interval = _interval(*option)
                if interval is None:
                    LOG.info('Periodic task %s disabled by %s', name,
                             option[0])
                    continue
                spacing[name] = interval
            tasks.append((name, task))
        self._periodic_spacing = spacing
        self._periodic_tasks = tasks

    def wait_for_builds(self, timeout=None):
        """Block until no build runs here (tests, graceful stop)."""
        return self._builds.wait_idle(timeout)

    # -- RPC methods (rpcapi.ComputeAPI) -----------------------------------

    def build_and_run_instance(self, context, instance, image, request_spec,
                               filter_properties, accel_uuids=None,
                               admin_password=None, injected_files=None,
                               requested_networks=None, security_groups=None,
                               block_device_mapping=None, node=None,
                               limits=None, host_list=None):
        """Cast: start the build in its own thread and return."""
        self._builds.start(
            context, instance, image=image, request_spec=request_spec,
            filter_properties=filter_properties,
            admin_password=admin_password, injected_files=injected_files,
            requested_networks=requested_networks,
            security_groups=security_groups,
            block_device_mapping=block_device_mapping, node=node,
            limits=limits, host_list=host_list, accel_uuids=accel_uuids)

    @compute_utils.wrap_instance_event(prefix='compute')
    @compute_utils.wrap_instance_fault
    def terminate_instance(self, context, instance, bdms):
        """Cast: delete the instance's guest, resources and row."""
        delete.terminate_instance(self.collaborators, context, instance,
                                  bdms)

    # Power and state actions (host/power.py): an event per call; on
    # failure a fault and no task_state left behind.
    @compute_utils.wrap_instance_event(prefix='compute')
    @compute_utils.reverts_task_state
    @compute_utils.wrap_instance_fault
    def stop_instance(self, context, instance, clean_shutdown=True):
        power.stop_instance(self.collaborators, context, instance,
                            clean_shutdown)

    @compute_utils.wrap_instance_event(prefix='compute')
    @compute_utils.reverts_task_state
    @compute_utils.wrap_instance_fault
    def start_instance(self, context, instance):
        power.start_instance(self.collaborators, context, instance)

    @compute_utils.wrap_instance_event(prefix='compute')
    @compute_utils.reverts_task_state
    @compute_utils.wrap_instance_fault
    def reboot_instance(self, context, instance, block_device_info,
                        reboot_type):
        power.reboot_instance(self.collaborators, context, instance,
                              block_device_info, reboot_type)

    @compute_utils.wrap_instance_event(prefix='compute')
    @compute_utils.reverts_task_state
    @compute_utils.wrap_instance_fault
    def pause_instance(self, context, instance):
        power.pause_instance(self.collaborators, context, instance)

    @compute_utils.wrap_instance_event(prefix='compute')
    @compute_utils.reverts_task_state
    @compute_utils.wrap_instance_fault
    def unpause_instance(self, context, instance):
        power.unpause_instance(self.collaborators, context, instance)

    @compute_utils.wrap_instance_event(prefix='compute')
    @compute_utils.reverts_task_state
    @compute_utils.wrap_instance_fault
    def suspend_instance(self, context, instance):
        power.suspend_instance(self.collaborators, context, instance)

    @compute_utils.wrap_instance_event(prefix='compute')
    @compute_utils.reverts_task_state
    @compute_utils.wrap_instance_fault
    def resume_instance(self, context, instance):
        power.resume_instance(self.collaborators, context, instance)

    @compute_utils.wrap_instance_event(prefix='compute')
    @compute_utils.wrap_instance_fault
    def trigger_crash_dump(self, context, instance):
        power.trigger_crash_dump(self.collaborators, context, instance)

    # A guest that cannot be frozen is the caller's answer, not an error
    # of this service.
    @messaging.expected_exceptions(NotImplementedError,
                                   exception.QemuGuestAgentNotEnabled,
                                   exception.InstanceQuiesceFailed)
    def quiesce_instance(self, context, instance):
        """Call: freeze the guest's filesystems before the API snapshots
        its volumes."""
        snapshot.quiesce_instance(self.collaborators, context, instance)

    def unquiesce_instance(self, context, instance, mapping=None):
        """Cast: thaw them once the snapshots in ``mapping`` are taken."""
        snapshot.unquiesce_instance(self.collaborators, context, instance,
                                    mapping)

    def get_console_output(self, context, instance, tail_length):
        """Call: the guest's console log (its last lines)."""
        return power.get_console_output(self.collaborators, instance,
                                        tail_length)

    def get_diagnostics(self, context, instance):
        """Call: the driver's free-form diagnostics (before 2.48)."""
        return power.get_diagnostics(self.collaborators, instance)

    def get_instance_diagnostics(self, context, instance):
        """Call: the diagnostics in the 2.48 structure."""
        return power.get_instance_diagnostics(self.collaborators, instance)

    # Resize and cold migration (compute/host/resize.py): each step runs
    # under the instance's lock, recorded as an event of its action.

    @compute_utils.wrap_instance_event(prefix='compute')
    def prep_resize(self, context, image, instance, flavor, request_spec,
                    filter_properties, node, clean_shutdown, migration,
                    host_list=None):
        with collaborators.instance_lock(instance.uuid):
            self._resizes.prep_resize(
                context, image, instance, flavor, request_spec,
                filter_properties, node, clean_shutdown, migration, host_list)

    @compute_utils.wrap_instance_event(prefix='compute')
    def resize_instance(self, context, instance, image, migration, flavor,
                        clean_shutdown=True, request_spec=None):
        with collaborators.instance_lock(instance.uuid):
            self._resizes.resize_instance(
                context, instance, image, migration, flavor,
                clean_shutdown=clean_shutdown, request_spec=request_spec)

    @compute_utils.wrap_instance_event(prefix='compute')
    def finish_resize(self, context, disk_info, image, instance, migration,
                      request_spec=None):
        with collaborators.instance_lock(instance.uuid):
            self._resizes.finish_resize(context, disk_info, image, instance,
                                        migration, request_spec)

    @compute_utils.wrap_instance_event(prefix='compute')
    def confirm_resize(self, context, instance, migration):
        with collaborators.instance_lock(instance.uuid):
            self._resizes.confirm_resize(context, instance, migration)

    @compute_utils.wrap_instance_event(prefix='compute')
    def revert_resize(self, context, instance, migration, request_spec=None):
        with collaborators.instance_lock(instance.uuid):
            self._resizes.revert_resize(context, instance, migration,
                                        request_spec)

    @compute_utils.wrap_instance_event(prefix='compute')
    def finish_revert_resize(self, context, instance, migration,
                             request_spec=None):
        with collaborators.instance_lock(instance.uuid):
            self._resizes.finish_revert_resize(context, instance, migration,
                                               request_spec)

    @compute_utils.wrap_instance_event(prefix='compute')
    @compute_utils.wrap_instance_fault
    def rebuild_instance(self, context, instance, orig_image_ref, image_ref,
                         injected_files, new_pass, orig_sys_metadata, bdms,
                         recreate, on_shared_storage, preserve_ephemeral,
                         migration, scheduled_node, limits, request_spec,
                         accel_uuids, reimage_boot_volume=False,
                         target_state=None):
        """Cast: re-image the instance's guest on this host, or (recreate)
        rebuild an evacuated instance here."""
        if recreate:
            rebuild.evacuate_instance(
                self.collaborators, context, instance, new_pass, migration,
                scheduled_node, target_state=target_state)
            return
        rebuild.rebuild_instance(
            self.collaborators, context, instance, image_ref,
            injected_files, new_pass, bdms,
            preserve_ephemeral=preserve_ephemeral, request_spec=request_spec)

    @compute_utils.wrap_instance_event(prefix='compute')
    @compute_utils.wrap_instance_fault
    def snapshot_instance(self, context, image_id, instance):
        """Cast: createImage of an image-backed server."""
        snapshot.snapshot_instance(self.collaborators, context, image_id,
                                   instance)

    @compute_utils.wrap_instance_event(prefix='compute')
    @compute_utils.wrap_instance_fault
    def backup_instance(self, context, image_id, instance, backup_type,
                        rotation):
        """Cast: createBackup, with the rotation of older backups."""
        snapshot.backup_instance(self.collaborators, context, image_id,
                                 instance, backup_type, rotation)

    @compute_utils.wrap_instance_event(prefix='compute')
    @compute_utils.wrap_instance_fault
    def rescue_instance(self, context, instance, rescue_password,
                        rescue_image_ref=None, clean_shutdown=True):
        """Cast: boot the guest from a rescue image."""
        rescue.rescue_instance(self.collaborators, context, instance,
                               rescue_password, rescue_image_ref,
                               clean_shutdown)

    @compute_utils.wrap_instance_event(prefix='compute')
    @compute_utils.wrap_instance_fault
    def unrescue_instance(self, context, instance):
        """Cast: boot the guest from its own disk again."""
        rescue.unrescue_instance(self.collaborators, context, instance)

    @compute_utils.wrap_instance_event(prefix='compute')
    @compute_utils.wrap_instance_fault
    def set_admin_password(self, context, instance, new_pass):
        """Call: changePassword."""
        rescue.set_admin_password(self.collaborators, context, instance,
                                  new_pass)

    @compute_utils.wrap_instance_event(prefix='compute')
    @compute_utils.wrap_instance_fault
    def attach_interface(self, context, instance, network_id, port_id,
                         requested_ip, tag=None):
        """Call: bind and plug a port; returns its VIF."""
        return interfaces.attach_interface(
            self.collaborators, context, instance, network_id, port_id,
            requested_ip, tag=tag)

    @compute_utils.wrap_instance_event(prefix='compute')
    @compute_utils.wrap_instance_fault
    def detach_interface(self, context, instance, port_id):
        """Cast: unplug a port and give it back to Neutron."""
        interfaces.detach_interface(self.collaborators, context, instance,
                                    port_id)

    @compute_utils.wrap_instance_event(prefix='compute')
    @compute_utils.wrap_instance_fault
    def soft_delete_instance(self, context, instance):
        """Cast: a deferred delete powers the guest off."""
        deferred_delete.soft_delete_instance(self.collaborators, context,
                                             instance)

    @compute_utils.wrap_instance_event(prefix='compute')
    @compute_utils.wrap_instance_fault
    def restore_instance(self, context, instance):
        """Cast: a soft-deleted server comes back."""
        deferred_delete.restore_instance(self.collaborators, context,
                                         instance)

    @compute_utils.wrap_instance_fault
    def inject_network_info(self, context, instance):
        """Cast: the guest gets its current network info."""
        network_info = self.collaborators.network_api.get_instance_nw_info(
            context, instance)
        self.driver.inject_network_info(instance, network_info)

    @compute_utils.wrap_instance_fault
    def get_vnc_console(self, context, console_type, instance):
        """Call: a noVNC console's connect info."""
        return consoles.get_console(self.collaborators, context, 'vnc',
                                    console_type, instance)

    @compute_utils.wrap_instance_fault
    def get_spice_console(self, context, console_type, instance):
        """Call: a SPICE console's connect info."""
        return consoles.get_console(self.collaborators, context, 'spice',
                                    console_type, instance)

    @compute_utils.wrap_instance_fault
    def get_serial_console(self, context, console_type, instance):
        """Call: a serial console's connect info."""
        return consoles.get_console(self.collaborators, context, 'serial',
                                    console_type, instance)
    def reserve_block_device_name(self, context, instance, device, volume_id,
                                  disk_bus=None, device_type=None, tag=None,
                                  multiattach=False):
        """Call from the API: the attach's BDM, with its device name."""
        return volumes.reserve_block_device_name(
            self.collaborators, context, instance, device, volume_id,
            disk_bus=disk_bus, device_type=device_type, tag=tag,
            multiattach=multiattach)

    @compute_utils.wrap_instance_event(prefix='compute')
    @compute_utils.wrap_instance_fault
    def attach_volume(self, context, instance, bdm):
        """Cast: connect the reserved volume to the guest."""
        volumes.attach_volume(self.collaborators, context, instance, bdm)

    @compute_utils.wrap_instance_event(prefix='compute')
    @compute_utils.wrap_instance_fault
    def detach_volume(self, context, volume_id, instance,
                      attachment_id=None):
        """Cast: disconnect a volume and forget its BDM."""
        volumes.detach_volume(self.collaborators, context, volume_id,
                              instance, attachment_id=attachment_id)

    @compute_utils.wrap_instance_event(prefix='compute')
    @compute_utils.wrap_instance_fault
    def swap_volume(self, context, old_volume_id, new_volume_id, instance,
                    new_attachment_id):
        """Cast: the guest's disk moves to another volume."""
        volumes.swap_volume(self.collaborators, context, old_volume_id,
                            new_volume_id, instance, new_attachment_id)

    @compute_utils.wrap_instance_event(prefix='compute')
    @compute_utils.wrap_instance_fault
    def shelve_instance(self, context, instance, image_id,
                        clean_shutdown=True, accel_uuids=None):
        """Cast: stop and snapshot the guest (offload when configured)."""
        shelve.shelve_instance(self.collaborators, context, instance,
                               image_id, clean_shutdown=clean_shutdown)

    @compute_utils.wrap_instance_event(prefix='compute')
    @compute_utils.wrap_instance_fault
    def shelve_offload_instance(self, context, instance, clean_shutdown=True,
                                accel_uuids=None):
        """Cast: take the shelved server off this host."""
        shelve.shelve_offload_instance(self.collaborators, context,
                                       instance,
                                       clean_shutdown=clean_shutdown)

    @compute_utils.wrap_instance_event(prefix='compute')
    @compute_utils.wrap_instance_fault
    def unshelve_instance(self, context, instance, image=None,
                          filter_properties=None, node=None,
                          request_spec=None, accel_uuids=None):
        """Cast from the conductor: spawn the offloaded server here."""
        shelve.unshelve_instance(self.collaborators, context, instance,
                                 image, filter_properties, node,
                                 request_spec=request_spec)


    def external_instance_event(self, context, instances, events):
        """Cast from nova-api: Neutron's and Cinder's events."""
        compute_events.external_instance_event(self.collaborators, context,
                                               instances, events)

    def add_fixed_ip_to_instance(self, context, network_id, instance):
        """Cast from the API: addFixedIp (multinic, to 2.43)."""
        multinic.add_fixed_ip(self.collaborators, context, instance,
                              network_id)

    def remove_fixed_ip_from_instance(self, context, address, instance):
        """Cast from the API: removeFixedIp (multinic, to 2.43)."""
        multinic.remove_fixed_ip(self.collaborators, context, instance,
                                 address)

    def volume_snapshot_create(self, context, instance, volume_id,
                               create_info):
        """Cast from the API: Cinder asks for a snapshot of an attached
        volume (os-assisted-volume-snapshots)."""
        self.driver.volume_snapshot_create(context, instance, volume_id,
                                           create_info)

    def volume_snapshot_delete(self, context, instance, volume_id,
                               snapshot_id, delete_info):
        self.driver.volume_snapshot_delete(context, instance, volume_id,
                                           snapshot_id, delete_info)

    def set_host_enabled(self, context, enabled):
        """Call from the API when the service is enabled or disabled."""
        return nodes.set_host_enabled(self.collaborators, context, enabled)

    def get_host_uptime(self, context):
        """Call from the API: GET /os-hypervisors/{id}/uptime."""
        return self.driver.get_host_uptime()

    # -- live migration (destination) --------------------------------------

    @compute_utils.wrap_instance_event(prefix='compute')
    @compute_utils.wrap_instance_fault
    def check_can_live_migrate_destination(self, context, instance,
                                           block_migration, disk_over_commit,
                                           migration=None, limits=None):
        return live_migration.check_can_live_migrate_destination(
            self.collaborators, context, instance, block_migration,
            disk_over_commit, migration=migration, limits=limits)

    @compute_utils.wrap_instance_event(prefix='compute')
    @compute_utils.wrap_instance_fault
    def check_can_live_migrate_source(self, context, instance,
                                      dest_check_data):
        return live_migration.check_can_live_migrate_source(
            self.collaborators, context, instance, dest_check_data)

    @compute_utils.wrap_instance_event(prefix='compute')
    @compute_utils.wrap_instance_fault
    def pre_live_migration(self, context, instance, disk, migrate_data):
        return live_migration.pre_live_migration(
            self.collaborators, context, instance, disk, migrate_data)

    @compute_utils.wrap_instance_event(prefix='compute')
    @compute_utils.wrap_instance_fault
    def post_live_migration_at_destination(self, context, instance,
                                           block_migration):
        live_migration.post_live_migration_at_destination(
            self.collaborators, context, instance, block_migration)

    @compute_utils.wrap_instance_event(prefix='compute')
    @compute_utils.wrap_instance_fault
    def rollback_live_migration_at_destination(self, context, instance,
                                               destroy_disks, migrate_data):
        live_migration.rollback_live_migration_at_destination(
            self.collaborators, context, instance, destroy_disks,
            migrate_data)

    # -- live migration (source) -------------------------------------------

    @compute_utils.wrap_instance_event(prefix='compute')
    @compute_utils.wrap_instance_fault
    def live_migration(self, context, dest, instance, block_migration,
                       migration, migrate_data):
        """Cast: queue the migration; it runs in its own thread."""
        self._live_migrations.start(context, dest, instance,
                                    block_migration, migration, migrate_data)

    @compute_utils.wrap_instance_event(prefix='compute')
    @compute_utils.wrap_instance_fault
    def live_migration_force_complete(self, context, instance):
        live_migration.force_complete(self.collaborators, context, instance)

    @compute_utils.wrap_instance_event(prefix='compute')
    @compute_utils.wrap_instance_fault
    def live_migration_abort(self, context, instance, migration_id):
        self._live_migrations.abort(context, instance, migration_id)

    def host_power_action(self, context, action):
        """Call from the API: GET /os-hosts/{host}/{startup,...}."""
        return self.driver.host_power_action(action)

    def host_maintenance_mode(self, context, host, mode):
        """Call from the API: PUT /os-hosts/{host} maintenance_mode."""
        return self.driver.host_maintenance_mode(host, mode)
    def cache_images(self, context, image_ids):
        """Call from the conductor: pre-cache images of an aggregate."""
        return image_cache.cache_images(self.driver, context, image_ids)

    # -- service hooks -----------------------------------------------------

    def init_host(self, service_ref=None):
        self.driver.init_host(host=self.host)
        startup.init_instances(self.collaborators,
                               nova_context.get_admin_context())

    def pre_start_hook(self, service_ref=None):
        # Compute nodes and providers exist before the service takes work.
        self.update_available_resource(nova_context.get_admin_context(),
                                       startup=True)

    def cleanup_host(self):
        # Builds in flight get a bounded chance to finish; one stuck on a
        # Neutron event must not hold the stop for vif_plugging_timeout.
        if not self.wait_for_builds(min(CONF.graceful_shutdown_timeout,
                                        _BUILD_DRAIN_SECONDS)):
            LOG.warning('Stopping with %d build(s) still running',
                        self._builds.count)
        self.collaborators.instance_events.cancel_all_events()
        # Usage changed by the last builds and deletes reaches the record.
        self.rt.flush_node_saves()
        try:
            self.driver.cleanup_host(host=self.host)
        except NotImplementedError:
            pass

    # -- periodic tasks ----------------------------------------------------

    @periodic_task.periodic_task
    def update_available_resource(self, context, startup=False):
        nodes.update_available_resource(self.collaborators, context,
                                        startup=startup)

    @periodic_task.periodic_task
    def _poll_unconfirmed_resizes(self, context):
        resize.poll_unconfirmed_resizes(self.collaborators, context)

    @periodic_task.periodic_task
    def _sync_power_states(self, context):
        periodic.sync_power_states(self.collaborators, context)

    @periodic_task.periodic_task
    def _instance_usage_audit(self, context):
        usage_audit.instance_usage_audit(self.collaborators, context)

    @periodic_task.periodic_task
    def _poll_shelved_instances(self, context):
        shelve.poll_shelved_instances(self.collaborators, context)

    @periodic_task.periodic_task
    def _cleanup_running_deleted_instances(self, context):
        periodic.cleanup_running_deleted_instances(self.collaborators,
                                                   context)

    @periodic_task.periodic_task
    def _reclaim_queued_deletes(self, context):
        deferred_delete.reclaim_queued_deletes(self.collaborators, context)
