"""The interface between the compute manager and a hypervisor.

The manager calls only these methods; a driver implements those its
hypervisor supports.  Anything left unimplemented raises
``NotImplementedError`` from this base class, which the manager treats as
"not supported by this driver" rather than as a crash.
"""


import os_traits
from oslo_log import log as logging

from nova_clone.conf import CONF
from nova_clone import exception

LOG = logging.getLogger(__name__)

# Driver capability -> trait reported on the compute node provider.
CAPABILITY_TRAITS_MAP = {
    'supports_attach_interface': os_traits.COMPUTE_NET_ATTACH_INTERFACE,
    'supports_device_tagging': os_traits.COMPUTE_DEVICE_TAGGING,
    'supports_tagged_attach_interface':
        os_traits.COMPUTE_NET_ATTACH_INTERFACE_WITH_TAG,
    'supports_tagged_attach_volume': os_traits.COMPUTE_VOLUME_ATTACH_WITH_TAG,
    'supports_extend_volume': os_traits.COMPUTE_VOLUME_EXTEND,
    'supports_multiattach': os_traits.COMPUTE_VOLUME_MULTI_ATTACH,
    'supports_trusted_certs': os_traits.COMPUTE_TRUSTED_CERTS,
    'supports_accelerators': os_traits.COMPUTE_ACCELERATORS,
    'supports_image_type_aki': os_traits.COMPUTE_IMAGE_TYPE_AKI,
    'supports_image_type_ami': os_traits.COMPUTE_IMAGE_TYPE_AMI,
    'supports_image_type_ari': os_traits.COMPUTE_IMAGE_TYPE_ARI,
    'supports_image_type_iso': os_traits.COMPUTE_IMAGE_TYPE_ISO,
    'supports_image_type_qcow2': os_traits.COMPUTE_IMAGE_TYPE_QCOW2,
    'supports_image_type_raw': os_traits.COMPUTE_IMAGE_TYPE_RAW,
    'supports_image_type_vdi': os_traits.COMPUTE_IMAGE_TYPE_VDI,
    'supports_image_type_vhd': os_traits.COMPUTE_IMAGE_TYPE_VHD,
    'supports_image_type_vhdx': os_traits.COMPUTE_IMAGE_TYPE_VHDX,
    'supports_image_type_vmdk': os_traits.COMPUTE_IMAGE_TYPE_VMDK,
    'supports_image_type_ploop': os_traits.COMPUTE_IMAGE_TYPE_PLOOP,
}


class InstanceInfo:
    """What a driver knows about one guest (``get_info``)."""

    def __init__(self, state, internal_id=None):
        self.state = state
        self.internal_id = internal_id

    def __eq__(self, other):
        return (type(self) is type(other) and
                self.__dict__ == other.__dict__)

    def __repr__(self):
        return 'InstanceInfo(state=%r)' % (self.state,)


def block_device_info_get_mapping(block_device_info):
    """The volume mappings of a block_device_info dict (may be None)."""
    if not block_device_info:
        return []
    return block_device_info.get('block_device_mapping') or []


class ComputeDriver:
    """Base class of the hypervisor drivers.

    ``virtapi`` is how a driver reaches back into the manager (waiting for
    external events, flagging the compute node provider).
    """

    capabilities = {
        'has_imagecache': False,
        'supports_evacuate': False,
        'supports_migrate_to_same_host': False,
        'supports_attach_interface': False,
        'supports_device_tagging': False,
        'supports_tagged_attach_interface': False,
        'supports_tagged_attach_volume': False,
        'supports_extend_volume': False,
        'supports_multiattach': False,
        'supports_trusted_certs': False,
        'supports_accelerators': False,
        'supports_image_type_raw': False,
        'supports_image_type_qcow2': False,
    }

    # Legacy drivers want block_device_info in the old flat format.
    need_legacy_block_device_info = False

    # True when spawn itself waits for network-vif-plugged through
    # virtapi.wait_for_instance_event; otherwise the manager waits around
    # spawn.
    waits_for_vif_plug_events = False

    def __init__(self, virtapi):
        self.virtapi = virtapi

    # -- life cycle of the driver ----------------------------------------

    def init_host(self, host):
        """Prepare the hypervisor connection; called once at start."""
        raise NotImplementedError()

    def cleanup_host(self, host):
        """Release the hypervisor connection at shutdown."""

    def capabilities_as_traits(self):
        """{trait: bool} for every capability that maps to a trait."""
        return {trait: bool(self.capabilities.get(cap, False))
                for cap, trait in CAPABILITY_TRAITS_MAP.items()}

    # -- inventory -------------------------------------------------------

    def get_available_nodes(self, refresh=False):
        """Hypervisor node names this compute service manages."""
        raise NotImplementedError()

    def get_nodenames_by_uuid(self, refresh=False):
        raise NotImplementedError()

    def get_available_resource(self, nodename):
        """The resource view of ``nodename`` as a dict.

        Keys: vcpus, memory_mb, local_gb, vcpus_used, memory_mb_used,
        local_gb_used, hypervisor_type, hypervisor_version,
        hypervisor_hostname, cpu_info, disk_available_least, numa_topology.
        """
        raise NotImplementedError()

    def update_provider_tree(self, provider_tree, nodename, allocations=None):
        """Set the inventory (and driver traits) of ``nodename``."""
        raise NotImplementedError()

    # -- guests ----------------------------------------------------------

    def get_info(self, instance, use_cache=True):
        """InstanceInfo of a guest; InstanceNotFound if it does not exist."""
        raise NotImplementedError()

    def instance_exists(self, instance):
        try:
            return instance.uuid in self.list_instance_uuids()
        except NotImplementedError:
            return instance.name in self.list_instances()

    def list_instances(self):
        """Hypervisor names of the guests on this host."""
        raise NotImplementedError()

    def list_instance_uuids(self):
        """Instance uuids of the guests on this host."""
        raise NotImplementedError()

    def get_num_instances(self):
        return len(self.list_instances())

    def spawn(self, context, instance, image_meta, injected_files,
              admin_password, allocations, network_info=None,
              block_device_info=None, power_on=True, accel_info=None):
        """Create and (by default) start a new guest."""
        raise NotImplementedError()

    def destroy(self, context, instance, network_info, block_device_info=None,
                destroy_disks=True, destroy_secrets=True):
        """Stop and remove a guest; a missing guest is not an error."""
        raise NotImplementedError()

    def cleanup(self, context, instance, network_info, block_device_info=None,
                destroy_disks=True, migrate_data=None, destroy_vifs=True,
                destroy_secrets=True):
        """Remove what a guest leaves behind on the host (disks, vifs)."""
        raise NotImplementedError()

    def rebuild(self, context, instance, image_meta, injected_files,
                admin_password, allocations, bdms, network_info=None,
                block_device_info=None, preserve_ephemeral=False):
        """Boot the guest again from ``image_meta`` in place (keeping its
        ephemeral disks when asked).  NotImplementedError: the compute
        destroys the guest and spawns a new one instead."""
        raise NotImplementedError()

    def snapshot(self, context, instance, image_id, update_task_state):
        """Upload the guest's disk into the (queued) image ``image_id``,
        calling ``update_task_state(task_state=...)`` with
        image_pending_upload then image_uploading (expected_state
        image_pending_upload)."""
        raise NotImplementedError()

    def rescue(self, context, instance, network_info, image_meta,
               rescue_password, block_device_info=None):
        """Boot the guest from ``image_meta`` with its own disk attached."""
        raise NotImplementedError()

    def unrescue(self, context, instance, network_info):
        """Boot the rescued guest from its own disk again."""
        raise NotImplementedError()

    def set_admin_password(self, instance, new_pass):
        """Set the guest's administrator password (through its agent)."""
        raise NotImplementedError()

    def reboot(self, context, instance, network_info, reboot_type,
               block_device_info=None, bad_volumes_callback=None,
               accel_info=None, share_info=None):
        raise NotImplementedError()

    def power_off(self, instance, timeout=0, retry_interval=0):
        raise NotImplementedError()

    def power_on(self, context, instance, network_info,
                 block_device_info=None, accel_info=None, share_info=None):
        raise NotImplementedError()

    def pause(self, instance):
        raise NotImplementedError()

    def unpause(self, instance):
        raise NotImplementedError()

    def suspend(self, context, instance):
        raise NotImplementedError()

    def resume(self, context, instance, network_info, block_device_info=None):
        raise NotImplementedError()

    def inject_network_info(self, instance, network_info):
        """Hand the guest its network info; most hypervisors have no way
        to, and need not."""

    def get_vnc_console(self, context, instance):
        """console.ConsoleVNC of the guest."""
        raise NotImplementedError()

    def get_spice_console(self, context, instance):
        """console.ConsoleSpice of the guest."""
        raise NotImplementedError()

    def get_serial_console(self, context, instance):
        """console.ConsoleSerial of the guest."""
        raise NotImplementedError()

    def get_console_output(self, context, instance):
        raise NotImplementedError()

    def get_diagnostics(self, instance):
        raise NotImplementedError()

    def get_instance_diagnostics(self, instance):
        """The diagnostics as a dict of the 2.48 structure (state, driver,
        hypervisor, uptime, cpu/nic/disk/memory details...)."""
        raise NotImplementedError()

    def trigger_crash_dump(self, instance):
        raise NotImplementedError()

    def quiesce(self, context, instance, image_meta):
        """Freeze the guest's filesystems (for a consistent volume
        snapshot)."""
        raise NotImplementedError()

    def unquiesce(self, context, instance, image_meta):
        raise NotImplementedError()

    # -- networking ------------------------------------------------------

    def plug_vifs(self, instance, network_info):
        raise NotImplementedError()

    def unplug_vifs(self, instance, network_info):
        raise NotImplementedError()

    def attach_interface(self, context, instance, image_meta, vif):
        raise NotImplementedError()

    def detach_interface(self, context, instance, vif):
        raise NotImplementedError()

    # -- volumes ---------------------------------------------------------

    def get_volume_connector(self, instance):
        """The connector dict Cinder needs to export a volume to this host."""
        raise NotImplementedError()

    def attach_volume(self, context, connection_info, instance, mountpoint,
                      disk_bus=None, device_type=None, encryption=None):
        raise NotImplementedError()

    def detach_volume(self, context, connection_info, instance, mountpoint,
                      encryption=None):
        raise NotImplementedError()

    def swap_volume(self, context, old_connection_info, new_connection_info,
                    instance, mountpoint, resize_to):
        raise NotImplementedError()

    def extend_volume(self, context, connection_info, instance,
                      requested_size):
        raise NotImplementedError()

    # -- cold migration / resize -----------------------------------------

    def migrate_disk_and_power_off(self, context, instance, dest, flavor,
                                   network_info, block_device_info=None,
                                   timeout=0, retry_interval=0):
        raise NotImplementedError()

    def finish_migration(self, context, migration, instance, disk_info,
                         network_info, image_meta, resize_instance,
                         allocations, block_device_info=None, power_on=True):
        raise NotImplementedError()

    def confirm_migration(self, context, migration, instance, network_info):
        raise NotImplementedError()

    def finish_revert_migration(self, context, instance, network_info,
                                migration, block_device_info=None,
                                power_on=True):
        raise NotImplementedError()

    # -- live migration --------------------------------------------------

    def check_can_live_migrate_destination(self, context, instance,
                                           src_compute_info, dst_compute_info,
                                           block_migration=False,
                                           disk_over_commit=False):
        raise NotImplementedError()

    def check_can_live_migrate_source(self, context, instance,
                                      dest_check_data, block_device_info=None):
        raise NotImplementedError()

    def get_instance_disk_info(self, instance, block_device_info=None):
        """The guest's local disks (JSON text) a block migration's
        destination recreates before the copy."""
        raise NotImplementedError()

    def pre_live_migration(self, context, instance, block_device_info,
                           network_info, disk_info, migrate_data):
        raise NotImplementedError()

    def live_migration(self, context, instance, dest, post_method,
                       recover_method, block_migration=False,
                       migrate_data=None):
        raise NotImplementedError()

    def live_migration_abort(self, instance):
        raise NotImplementedError()

    def live_migration_force_complete(self, instance):
        raise NotImplementedError()

    def post_live_migration(self, context, instance, block_device_info,
                            migrate_data=None):
        """Source-side cleanup after a successful live migration."""

    def post_live_migration_at_source(self, context, instance, network_info):
        raise NotImplementedError()

    def post_live_migration_at_destination(self, context, instance,
                                           network_info,
                                           block_migration=False,
                                           block_device_info=None):
        raise NotImplementedError()

    def rollback_live_migration_at_destination(self, context, instance,
                                               network_info,
                                               block_device_info,
                                               destroy_disks=True,
                                               migrate_data=None):
        raise NotImplementedError()

    def cleanup_live_migration_destination_check(self, context,
                                                 dest_check_data):
        raise NotImplementedError()

    # -- host ------------------------------------------------------------

    def get_host_uptime(self):
        raise NotImplementedError()

    def volume_snapshot_create(self, context, instance, volume_id,
                               create_info):
        """Snapshot an attached volume's disk for Cinder."""
        raise NotImplementedError()

    def volume_snapshot_delete(self, context, instance, volume_id,
                               snapshot_id, delete_info):
        raise NotImplementedError()

    def host_power_action(self, action):
        """Reboot, shut down or start the host ('reboot', ...)."""
        raise NotImplementedError()

    def host_maintenance_mode(self, host, mode):
        """Enter (mode true) or leave maintenance; 'on_maintenance' or
        'off_maintenance'."""
        raise NotImplementedError()

    def cache_image(self, context, image_id):
        """Fetch an image into this host's image cache ahead of a boot;
        True when fetched, False when it was there already."""
        raise NotImplementedError()

    def manage_image_cache(self, context, all_instances):
        """Remove unused cached base images (drivers with an image cache)."""

    def node_is_available(self, nodename):
        try:
            return nodename in self.get_available_nodes()
        except NotImplementedError:
            return False


def _supported_drivers():
    """[DEFAULT] compute_driver values -> driver classes."""
    # Imported on use: each driver module imports this one.
    from nova_clone.virt import fake
    from nova_clone.virt import libvirt
    return {'fake.FakeDriver': fake.FakeDriver,
            'libvirt.LibvirtDriver': libvirt.LibvirtDriver}


def load_compute_driver(virtapi, compute_driver=None):
    """Instantiate the driver named by [DEFAULT] compute_driver.

    The name is relative to ``nova_clone.virt`` (``fake.FakeDriver``), as
    Nova's are to ``nova.virt``; the full path is accepted too.
    """
    if not compute_driver:
        compute_driver = CONF.compute_driver
    if not compute_driver:
        raise exception.NovaException(
            'Compute driver option required, but not specified')
    drivers = _supported_drivers()
    driver_cls = drivers.get(compute_driver.removeprefix('nova_clone.virt.'))
    if driver_cls is None:
        raise exception.NovaException(
            'Unable to load the compute driver %s: no such driver (choose '
            'one of %s)' % (compute_driver, ', '.join(sorted(drivers))))
    LOG.info('Loading compute driver %s', compute_driver)
    return driver_cls(virtapi)


# Defaults applied the first time a provider is reported when the
# operator sets no [compute] *_allocation_ratio.
INITIAL_ALLOCATION_RATIOS = {'VCPU': 4.0, 'MEMORY_MB': 1.0, 'DISK_GB': 1.0}
_RATIO_OPTS = {'VCPU': 'cpu_allocation_ratio',
               'MEMORY_MB': 'ram_allocation_ratio',
               'DISK_GB': 'disk_allocation_ratio'}


def allocation_ratios(inventory):
    """Allocation ratio per resource class for a provider's inventory.

    A ratio set in [compute] wins; otherwise a ratio already in Placement
    (perhaps changed there by an operator) is kept, and only a new provider
    gets the initial default.
    """
    ratios = {}
    for rc, opt in _RATIO_OPTS.items():
        configured = getattr(CONF.compute, opt)
        existing = (inventory or {}).get(rc, {}).get('allocation_ratio')
        if configured is not None:
            ratios[rc] = configured
        elif existing:
            ratios[rc] = existing
        else:
            ratios[rc] = INITIAL_ALLOCATION_RATIOS[rc]
    return ratios


def mb_to_ceil_gb(mb):
    return (int(mb) + 1023) // 1024
