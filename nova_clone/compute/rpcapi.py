"""Client side of the compute RPC API (topic ``compute``, server = host).

Messages go to the message queue of the cell the request context is
targeted at (rpc.ClientRouter).  Methods Nova sends to the second topic
``compute-alt`` (kept alive while a compute drains) go there when the
version cap allows 6.5.

History kept as Nova's (only the versions this client sends):
  6.0 - the 6.x baseline (build_and_run_instance, terminate_instance,
        external_instance_event, prep_resize, resize_instance,
        finish_resize, confirm_resize, revert_resize,
        finish_revert_resize ...)
  6.2 - rebuild_instance with reimage_boot_volume (6.1) and target_state
        finish_revert_resize, the live migration methods ...)
        finish_revert_resize, reserve_block_device_name, attach_volume,
        detach_volume, swap_volume, shelve_instance,
        shelve_offload_instance, unshelve_instance ...)
  6.5 - the compute-alt topic
"""

import threading

import oslo_messaging as messaging
from oslo_log import log as logging

from nova_clone.conf import CONF
from nova_clone import exception
from nova_clone import rpc

LOG = logging.getLogger(__name__)

RPC_TOPIC = 'compute'
RPC_TOPIC_ALT = 'compute-alt'
CURRENT_VERSION = '6.5'

# Release names accepted in [upgrade_levels] compute.
VERSION_ALIASES = {
    'epoxy': '6.4',
    'flamingo': '6.4',
    'gazpacho': '6.5',
    'hibiscus': '6.5',
}


def _version_cap():
    levels = getattr(CONF, 'upgrade_levels', None)
    level = getattr(levels, 'compute', None) if levels is not None else None
    if not level or level == 'auto':
        # "auto" would ask every cell for the oldest compute; this
        # deployment runs one release, so the current version is the cap.
        return CURRENT_VERSION
    return VERSION_ALIASES.get(level.lower(), level)


def _compute_host(host, instance):
    """The host to send to: the given one, else the instance's."""
    if host:
        return host
    if instance is None:
        raise exception.NovaException('No compute host specified')
    if not instance.host:
        raise exception.NovaException(
            'Unable to find host for Instance %s' % instance.uuid)
    return instance.host


class ComputeAPI:
    """Client of nova-compute's RPC API."""

    def __init__(self):
        target = messaging.Target(topic=RPC_TOPIC, version='6.0')
        self.version_cap = _version_cap()
        default_client = rpc.get_client(target, version_cap=self.version_cap)
        self.router = rpc.ClientRouter(default_client)

    def _prepare(self, ctxt, server, version='6.0', alt=False, **kwargs):
        client = self.router.client(ctxt)
        topic = RPC_TOPIC
        if alt and client.can_send_version('6.5'):
            topic = RPC_TOPIC_ALT
        return client.prepare(server=server, version=version, topic=topic,
                              **kwargs)

    # -- build / delete ------------------------------------------------------

    def build_and_run_instance(self, ctxt, instance, host, image,
                               request_spec, filter_properties,
                               admin_password=None, injected_files=None,
                               requested_networks=None, security_groups=None,
                               block_device_mapping=None, node=None,
                               limits=None, host_list=None,
                               accel_uuids=None):
        cctxt = self._prepare(ctxt, host)
        cctxt.cast(ctxt, 'build_and_run_instance', instance=instance,
                   image=image, request_spec=request_spec,
                   filter_properties=filter_properties,
                   admin_password=admin_password,
                   injected_files=injected_files,
                   requested_networks=requested_networks,
                   security_groups=security_groups,
                   block_device_mapping=block_device_mapping, node=node,
                   limits=limits, host_list=host_list,
                   accel_uuids=accel_uuids)

    def terminate_instance(self, ctxt, instance, bdms):
        cctxt = self._prepare(ctxt, _compute_host(None, instance))
        cctxt.cast(ctxt, 'terminate_instance', instance=instance, bdms=bdms)

    # -- power and state (6.0 baseline) ------------------------------------

    def _instance_cast(self, ctxt, method, instance, **kwargs):
        cctxt = self._prepare(ctxt, _compute_host(None, instance))
        cctxt.cast(ctxt, method, instance=instance, **kwargs)

    def _instance_call(self, ctxt, method, instance, **kwargs):
        cctxt = self._prepare(ctxt, _compute_host(None, instance))
        return cctxt.call(ctxt, method, instance=instance, **kwargs)

    def stop_instance(self, ctxt, instance, do_cast=True,
                      clean_shutdown=True):
        send = self._instance_cast if do_cast else self._instance_call
        return send(ctxt, 'stop_instance', instance,
                    clean_shutdown=clean_shutdown)

    def start_instance(self, ctxt, instance):
        self._instance_cast(ctxt, 'start_instance', instance)

    def reboot_instance(self, ctxt, instance, block_device_info,
                        reboot_type):
        self._instance_cast(ctxt, 'reboot_instance', instance,
                            block_device_info=block_device_info,
                            reboot_type=reboot_type)

    def pause_instance(self, ctxt, instance):
        self._instance_cast(ctxt, 'pause_instance', instance)

    def unpause_instance(self, ctxt, instance):
        self._instance_cast(ctxt, 'unpause_instance', instance)

    def suspend_instance(self, ctxt, instance):
        self._instance_cast(ctxt, 'suspend_instance', instance)

    def resume_instance(self, ctxt, instance):
        self._instance_cast(ctxt, 'resume_instance', instance)

    def trigger_crash_dump(self, ctxt, instance):
        self._instance_cast(ctxt, 'trigger_crash_dump', instance)

    def quiesce_instance(self, ctxt, instance):
        self._instance_call(ctxt, 'quiesce_instance', instance)

    def unquiesce_instance(self, ctxt, instance, mapping=None):
        self._instance_cast(ctxt, 'unquiesce_instance', instance,
                            mapping=mapping)

    def get_console_output(self, ctxt, instance, tail_length):
        return self._instance_call(ctxt, 'get_console_output', instance,
                                   tail_length=tail_length)

    def get_diagnostics(self, ctxt, instance):
        return self._instance_call(ctxt, 'get_diagnostics', instance)

    def get_instance_diagnostics(self, ctxt, instance):
        return self._instance_call(ctxt, 'get_instance_diagnostics',
                                   instance)

    # -- resize / cold migration -------------------------------------------

    def prep_resize(self, ctxt, instance, image, flavor, host, migration,
                    request_spec, filter_properties, node, clean_shutdown,
                    host_list=None):
        cctxt = self._prepare(ctxt, host)
        cctxt.cast(ctxt, 'prep_resize', instance=instance, image=image,
                   flavor=flavor, migration=migration,
                   request_spec=request_spec,
                   filter_properties=filter_properties, node=node,
                   clean_shutdown=clean_shutdown, host_list=host_list)

    def resize_instance(self, ctxt, instance, migration, image, flavor,
                        request_spec, clean_shutdown=True):
        cctxt = self._prepare(ctxt, _compute_host(None, instance), alt=True)
        cctxt.cast(ctxt, 'resize_instance', instance=instance,
                   migration=migration, image=image, flavor=flavor,
                   clean_shutdown=clean_shutdown, request_spec=request_spec)

    def finish_resize(self, ctxt, instance, migration, image, disk_info,
                      host, request_spec):
        cctxt = self._prepare(ctxt, host, alt=True)
        cctxt.cast(ctxt, 'finish_resize', instance=instance,
                   migration=migration, image=image, disk_info=disk_info,
                   request_spec=request_spec)

    def confirm_resize(self, ctxt, instance, migration, host, cast=True):
        cctxt = self._prepare(ctxt, host)
        method = cctxt.cast if cast else cctxt.call
        return method(ctxt, 'confirm_resize', instance=instance,
                      migration=migration)

    def revert_resize(self, ctxt, instance, migration, host, request_spec):
        cctxt = self._prepare(ctxt, host)
        cctxt.cast(ctxt, 'revert_resize', instance=instance,
                   migration=migration, request_spec=request_spec)

    def finish_revert_resize(self, ctxt, instance, migration, host,
                             request_spec):
        cctxt = self._prepare(ctxt, host, alt=True)
        cctxt.cast(ctxt, 'finish_revert_resize', instance=instance,
                   migration=migration, request_spec=request_spec)

    # -- live migration ----------------------------------------------------

    def check_can_live_migrate_destination(self, ctxt, instance, destination,
                                           block_migration, disk_over_commit,
                                           migration, limits):
        cctxt = self._prepare(ctxt, destination)
        return cctxt.call(ctxt, 'check_can_live_migrate_destination',
                          instance=instance, block_migration=block_migration,
                          disk_over_commit=disk_over_commit,
                          migration=migration, limits=limits)

    def check_can_live_migrate_source(self, ctxt, instance, dest_check_data):
        cctxt = self._prepare(ctxt, _compute_host(None, instance))
        return cctxt.call(ctxt, 'check_can_live_migrate_source',
                          instance=instance, dest_check_data=dest_check_data)

    def pre_live_migration(self, ctxt, instance, disk, host, migrate_data):
        cctxt = self._prepare(ctxt, host, alt=True)
        return cctxt.call(ctxt, 'pre_live_migration', instance=instance,
                          disk=disk, migrate_data=migrate_data)

    def live_migration(self, ctxt, instance, dest, block_migration, host,
                       migration, migrate_data=None):
        cctxt = self._prepare(ctxt, host, alt=True)
        cctxt.cast(ctxt, 'live_migration', instance=instance, dest=dest,
                   block_migration=block_migration, migration=migration,
                   migrate_data=migrate_data)

    def post_live_migration_at_destination(self, ctxt, instance,
                                           block_migration, host):
        cctxt = self._prepare(ctxt, host, alt=True)
        return cctxt.call(ctxt, 'post_live_migration_at_destination',
                          instance=instance, block_migration=block_migration)

    def rollback_live_migration_at_destination(self, ctxt, instance, host,
                                               destroy_disks, migrate_data):
        cctxt = self._prepare(ctxt, host, alt=True)
        cctxt.cast(ctxt, 'rollback_live_migration_at_destination',
                   instance=instance, destroy_disks=destroy_disks,
                   migrate_data=migrate_data)

    def live_migration_force_complete(self, ctxt, instance, migration):
        cctxt = self._prepare(ctxt, migration.source_compute)
        cctxt.cast(ctxt, 'live_migration_force_complete', instance=instance)

    def live_migration_abort(self, ctxt, instance, migration_id):
        cctxt = self._prepare(ctxt, _compute_host(None, instance))
        cctxt.cast(ctxt, 'live_migration_abort', instance=instance,
                   migration_id=migration_id)

    # -- Cinder-assisted volume snapshots -----------------------------------

    def volume_snapshot_create(self, ctxt, instance, volume_id, create_info):
        cctxt = self._prepare(ctxt, _compute_host(None, instance))
        cctxt.cast(ctxt, 'volume_snapshot_create', instance=instance,
                   volume_id=volume_id, create_info=create_info)

    def volume_snapshot_delete(self, ctxt, instance, volume_id, snapshot_id,
                               delete_info):
        cctxt = self._prepare(ctxt, _compute_host(None, instance))
        cctxt.cast(ctxt, 'volume_snapshot_delete', instance=instance,
                   volume_id=volume_id, snapshot_id=snapshot_id,
                   delete_info=delete_info)

    # -- networks ----------------------------------------------------------

    def add_fixed_ip_to_instance(self, ctxt, instance, network_id):
        cctxt = self._prepare(ctxt, _compute_host(None, instance))
        cctxt.cast(ctxt, 'add_fixed_ip_to_instance', network_id=network_id,
                   instance=instance)

    def remove_fixed_ip_from_instance(self, ctxt, instance, address):
        cctxt = self._prepare(ctxt, _compute_host(None, instance))
        cctxt.cast(ctxt, 'remove_fixed_ip_from_instance', address=address,
                   instance=instance)
    # -- server actions ------------------------------------------------------

    def rebuild_instance(self, ctxt, instance, new_pass, injected_files,
                         image_ref, orig_image_ref, orig_sys_metadata, bdms,
                         recreate, on_shared_storage, host, migration=None,
                         preserve_ephemeral=False, scheduled_node=None,
                         limits=None, request_spec=None, accel_uuids=None,
                         reimage_boot_volume=False, target_state=None):
        cctxt = self._prepare(ctxt, _compute_host(host, instance),
                              version='6.2')
        cctxt.cast(ctxt, 'rebuild_instance', instance=instance,
                   new_pass=new_pass, injected_files=injected_files,
                   image_ref=image_ref, orig_image_ref=orig_image_ref,
                   orig_sys_metadata=orig_sys_metadata, bdms=bdms,
                   recreate=recreate, on_shared_storage=on_shared_storage,
                   migration=migration, preserve_ephemeral=preserve_ephemeral,
                   scheduled_node=scheduled_node, limits=limits,
                   request_spec=request_spec, accel_uuids=accel_uuids or [],
                   reimage_boot_volume=reimage_boot_volume,
                   target_state=target_state)

    def snapshot_instance(self, ctxt, instance, image_id):
        cctxt = self._prepare(ctxt, _compute_host(None, instance))
        cctxt.cast(ctxt, 'snapshot_instance', instance=instance,
                   image_id=image_id)

    def backup_instance(self, ctxt, instance, image_id, backup_type,
                        rotation):
        cctxt = self._prepare(ctxt, _compute_host(None, instance))
        cctxt.cast(ctxt, 'backup_instance', instance=instance,
                   image_id=image_id, backup_type=backup_type,
                   rotation=rotation)

    def rescue_instance(self, ctxt, instance, rescue_password,
                        rescue_image_ref=None, clean_shutdown=True):
        cctxt = self._prepare(ctxt, _compute_host(None, instance))
        cctxt.cast(ctxt, 'rescue_instance', instance=instance,
                   rescue_password=rescue_password,
                   rescue_image_ref=rescue_image_ref,
                   clean_shutdown=clean_shutdown)

    def unrescue_instance(self, ctxt, instance):
        cctxt = self._prepare(ctxt, _compute_host(None, instance))
        cctxt.cast(ctxt, 'unrescue_instance', instance=instance)

    def set_admin_password(self, ctxt, instance, new_pass):
        cctxt = self._prepare(ctxt, _compute_host(None, instance))
        return cctxt.call(ctxt, 'set_admin_password', instance=instance,
                          new_pass=new_pass)

    def attach_interface(self, ctxt, instance, network_id, port_id,
                         requested_ip, tag=None):
        cctxt = self._prepare(ctxt, _compute_host(None, instance))
        return cctxt.call(ctxt, 'attach_interface', instance=instance,
                          network_id=network_id, port_id=port_id,
                          requested_ip=requested_ip, tag=tag)

    def detach_interface(self, ctxt, instance, port_id):
        cctxt = self._prepare(ctxt, _compute_host(None, instance))
        cctxt.cast(ctxt, 'detach_interface', instance=instance,
                   port_id=port_id)

    def soft_delete_instance(self, ctxt, instance):
        cctxt = self._prepare(ctxt, _compute_host(None, instance))
        cctxt.cast(ctxt, 'soft_delete_instance', instance=instance)

    def restore_instance(self, ctxt, instance):
        cctxt = self._prepare(ctxt, _compute_host(None, instance))
        cctxt.cast(ctxt, 'restore_instance', instance=instance)

    def inject_network_info(self, ctxt, instance):
        cctxt = self._prepare(ctxt, _compute_host(None, instance))
        cctxt.cast(ctxt, 'inject_network_info', instance=instance)

    def _get_console(self, ctxt, method, instance, console_type):
        cctxt = self._prepare(ctxt, _compute_host(None, instance))
        return cctxt.call(ctxt, method, instance=instance,
                          console_type=console_type)

    def get_vnc_console(self, ctxt, instance, console_type):
        return self._get_console(ctxt, 'get_vnc_console', instance,
                                 console_type)

    def get_spice_console(self, ctxt, instance, console_type):
        return self._get_console(ctxt, 'get_spice_console', instance,
                                 console_type)

    def get_serial_console(self, ctxt, instance, console_type):
        return self._get_console(ctxt, 'get_serial_console', instance,
                                 console_type)

    # -- volumes -----------------------------------------------------------

    def reserve_block_device_name(self, ctxt, instance, device, volume_id,
                                  disk_bus, device_type, tag, multiattach):
        cctxt = self._prepare(ctxt, _compute_host(None, instance))
        return cctxt.call(ctxt, 'reserve_block_device_name',
                          instance=instance, device=device,
                          volume_id=volume_id, disk_bus=disk_bus,
                          device_type=device_type, tag=tag,
                          multiattach=multiattach)

    def attach_volume(self, ctxt, instance, bdm):
        cctxt = self._prepare(ctxt, _compute_host(None, instance))
        cctxt.cast(ctxt, 'attach_volume', instance=instance, bdm=bdm)

    def detach_volume(self, ctxt, instance, volume_id, attachment_id):
        cctxt = self._prepare(ctxt, _compute_host(None, instance))
        cctxt.cast(ctxt, 'detach_volume', instance=instance,
                   volume_id=volume_id, attachment_id=attachment_id)

    def swap_volume(self, ctxt, instance, old_volume_id, new_volume_id,
                    new_attachment_id):
        cctxt = self._prepare(ctxt, _compute_host(None, instance))
        cctxt.cast(ctxt, 'swap_volume', instance=instance,
                   old_volume_id=old_volume_id, new_volume_id=new_volume_id,
                   new_attachment_id=new_attachment_id)

    # -- shelve ------------------------------------------------------------

    def shelve_instance(self, ctxt, instance, image_id=None,
                        clean_shutdown=True, accel_uuids=None):
        cctxt = self._prepare(ctxt, _compute_host(None, instance))
        cctxt.cast(ctxt, 'shelve_instance', instance=instance,
                   image_id=image_id, clean_shutdown=clean_shutdown,
                   accel_uuids=accel_uuids)

    def shelve_offload_instance(self, ctxt, instance, clean_shutdown=True,
                                accel_uuids=None):
        cctxt = self._prepare(ctxt, _compute_host(None, instance))
        cctxt.cast(ctxt, 'shelve_offload_instance', instance=instance,
                   clean_shutdown=clean_shutdown, accel_uuids=accel_uuids)

    def unshelve_instance(self, ctxt, instance, host, request_spec,
                          image=None, filter_properties=None, node=None,
                          accel_uuids=None):
        cctxt = self._prepare(ctxt, host)
        cctxt.cast(ctxt, 'unshelve_instance', instance=instance,
                   image=image, filter_properties=filter_properties,
                   node=node, request_spec=request_spec,
                   accel_uuids=accel_uuids)


    # -- host ------------------------------------------------------------

    def set_host_enabled(self, ctxt, host, enabled):
        cctxt = self._prepare(ctxt, host)
        return cctxt.call(ctxt, 'set_host_enabled', enabled=enabled)

    def get_host_uptime(self, ctxt, host):
        cctxt = self._prepare(ctxt, host)
        return cctxt.call(ctxt, 'get_host_uptime')

    def host_power_action(self, ctxt, host, action):
        cctxt = self._prepare(ctxt, host)
        return cctxt.call(ctxt, 'host_power_action', action=action)

    def host_maintenance_mode(self, ctxt, host, host_param, mode):
        cctxt = self._prepare(ctxt, host)
        return cctxt.call(ctxt, 'host_maintenance_mode', host=host_param,
                          mode=mode)
    def cache_images(self, ctxt, host, image_ids):
        """Call: fetch images into ``host``'s cache; {image_id: status}."""
        cctxt = self._prepare(ctxt, host, timeout=CONF.long_rpc_timeout)
        return cctxt.call(ctxt, 'cache_images', image_ids=image_ids)

    # -- events ------------------------------------------------------------

    def external_instance_event(self, ctxt, instances, events, host=None):
        instance = instances[0] if instances else None
        cctxt = self._prepare(ctxt, _compute_host(host, instance), alt=True)
        cctxt.cast(ctxt, 'external_instance_event', instances=instances,
                   events=events)


_API = None
_API_LOCK = threading.Lock()


def get_compute_rpcapi():
    """The process-wide ComputeAPI client (built on first use)."""
    global _API
    with _API_LOCK:
        if _API is None:
            _API = ComputeAPI()
        return _API


def reset_compute_rpcapi():
    global _API
    with _API_LOCK:
        _API = None
