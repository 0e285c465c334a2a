"""A hypervisor that lives in memory, for tests and the embedded mode.

Each host has its own fake hypervisor (keyed by host name), so many
compute services in one process never see each other's guests, and a
compute service restarted on the same host finds the guests it left, as a
real hypervisor would keep them.  Capacity comes from ``[fake_driver]``
and is finite: a spawn that does not fit is refused with a retryable error.
``[fake_driver] fail_spawn`` makes spawn fail on chosen hosts.
"""

import threading
import time

import os_resource_classes as orc
from oslo_log import log as logging
from oslo_utils import timeutils

from nova_clone.compute import power_state
from nova_clone.conf import CONF
from nova_clone import exception
from nova_clone.virt import driver
from nova_clone.virt import imagecache

LOG = logging.getLogger(__name__)

FAIL_RETRYABLE = 'retryable'
FAIL_FATAL = 'fatal'


class FakeGuest:
    def __init__(self, uuid, name, vcpus, memory_mb, disk_gb, state):
        self.uuid = uuid
        self.name = name
        self.vcpus = vcpus
        self.memory_mb = memory_mb
        self.disk_gb = disk_gb
        self.state = state
        self.vifs = []
        self.volumes = {}
        self.created_at = timeutils.utcnow()


class FakeHypervisor:
    """The guests of one fake host."""

    def __init__(self, host):
        self.host = host
        self.lock = threading.RLock()
        self.guests = {}
        self.started_at = time.monotonic()

    def used(self):
        with self.lock:
            guests = list(self.guests.values())
        return (sum(g.vcpus for g in guests),
                sum(g.memory_mb for g in guests),
                sum(g.disk_gb for g in guests))


_HYPERVISORS = {}
_HYPERVISORS_LOCK = threading.Lock()


def get_hypervisor(host):
    """The fake hypervisor of ``host`` (created on first use)."""
    with _HYPERVISORS_LOCK:
        hv = _HYPERVISORS.get(host)
        if hv is None:
            hv = _HYPERVISORS[host] = FakeHypervisor(host)
        return hv


def reset_hypervisors():
    """Forget every fake host (between tests)."""
    with _HYPERVISORS_LOCK:
        _HYPERVISORS.clear()


def _instance_size(instance):
    flavor = getattr(instance, 'flavor', None)

    def pick(field):
        value = getattr(instance, field, None)
        if value is None and flavor is not None:
            value = getattr(flavor, field, None)
        return int(value or 0)
    return (pick('vcpus'), pick('memory_mb'),
            pick('root_gb') + pick('ephemeral_gb'))


def _instance_name(instance):
    try:
        return instance.name
    except Exception:
        return CONF.instance_name_template % (getattr(instance, 'id', 0) or 0)


class FakeDriver(driver.ComputeDriver):
    """In-memory hypervisor with finite capacity and injectable failures."""

    capabilities = dict(driver.ComputeDriver.capabilities,
                        has_imagecache=True,
                        supports_evacuate=True,
                        supports_migrate_to_same_host=False,
                        supports_attach_interface=True,
                        supports_device_tagging=True,
                        supports_tagged_attach_interface=True,
                        supports_tagged_attach_volume=True,
                        supports_extend_volume=True,
                        supports_multiattach=True,
                        supports_image_type_raw=True,
                        supports_image_type_qcow2=True)

    def __init__(self, virtapi, read_only=False):
        super().__init__(virtapi)
        self._host = None
        self.image_cache = None

    # -- host ------------------------------------------------------------

    @property
    def host(self):
        return self._host or CONF.host

    @property
    def nodename(self):
        # One node per fake host, named like the host (as Nova's fake does).
        return self.host

    @property
    def _hv(self):
        return get_hypervisor(self.host)

    def init_host(self, host):
        self._host = host
        self.image_cache = imagecache.ImageCache()
        get_hypervisor(host)
        LOG.info('Fake hypervisor ready on %s (%s vCPU, %s MiB, %s GiB)',
                 host, CONF.fake_driver.vcpus, CONF.fake_driver.memory_mb,
                 CONF.fake_driver.local_gb)

    def cleanup_host(self, host):
        pass

    def get_available_nodes(self, refresh=False):
        return [self.nodename]

    def get_nodenames_by_uuid(self, refresh=False):
        return {}

    def get_host_uptime(self):
        return '%.0f seconds' % (time.monotonic() - self._hv.started_at)

    def volume_snapshot_create(self, context, instance, volume_id,
                               create_info):
        LOG.info('Snapshot %s of volume %s taken (nothing to copy)',
                 create_info.get('snapshot_id'), volume_id)

    def volume_snapshot_delete(self, context, instance, volume_id,
                               snapshot_id, delete_info):
        LOG.info('Snapshot %s of volume %s dropped', snapshot_id, volume_id)

    def host_power_action(self, action):
        # A pretend host: the action "succeeds" and nothing happens.
        return action

    def host_maintenance_mode(self, host, mode):
        return 'on_maintenance' if mode else 'off_maintenance'

    def get_available_resource(self, nodename):
        if nodename != self.nodename:
            raise exception.HypervisorUnavailable(host=nodename)
        vcpus_used, mem_used, disk_used = self._hv.used()
        conf = CONF.fake_driver
        return {
            'vcpus': conf.vcpus,
            'memory_mb': conf.memory_mb,
            'local_gb': conf.local_gb,
            'vcpus_used': vcpus_used,
            'memory_mb_used': mem_used,
            'local_gb_used': disk_used,
            'hypervisor_type': 'fake',
            'hypervisor_version': 1000,
            'hypervisor_hostname': nodename,
            'cpu_info': '{}',
            'disk_available_least': conf.local_gb - disk_used,
            'numa_topology': None,
            'supported_instances': [['x86_64', 'kvm', 'hvm']],
        }

    def update_provider_tree(self, provider_tree, nodename, allocations=None):
        conf = CONF.fake_driver
        ratios = driver.allocation_ratios(provider_tree.data(nodename)
                                          .inventory)
        inventory = {
            orc.VCPU: {
                'total': conf.vcpus, 'min_unit': 1, 'max_unit': conf.vcpus,
                'step_size': 1, 'allocation_ratio': ratios[orc.VCPU],
                'reserved': CONF.reserved_host_cpus,
            },
            orc.MEMORY_MB: {
                'total': conf.memory_mb, 'min_unit': 1,
                'max_unit': conf.memory_mb, 'step_size': 1,
                'allocation_ratio': ratios[orc.MEMORY_MB],
                'reserved': CONF.reserved_host_memory_mb,
            },
            orc.DISK_GB: {
                'total': conf.local_gb, 'min_unit': 1,
                'max_unit': conf.local_gb, 'step_size': 1,
                'allocation_ratio': ratios[orc.DISK_GB],
                'reserved': driver.mb_to_ceil_gb(
                    CONF.reserved_host_disk_mb),
            },
        }
        provider_tree.update_inventory(nodename, inventory)
        # The guests this host accepts follow the overcommit Placement was
        # told, as on a real hypervisor.
        self._ratios = ratios

    # -- guests ----------------------------------------------------------

    def _guest(self, instance):
        with self._hv.lock:
            guest = self._hv.guests.get(instance.uuid)
        if guest is None:
            raise exception.InstanceNotFound(instance_id=instance.uuid)
        return guest

    def list_instances(self):
        with self._hv.lock:
            return [g.name for g in self._hv.guests.values()]

    def list_instance_uuids(self):
        with self._hv.lock:
            return list(self._hv.guests)

    def instance_exists(self, instance):
        with self._hv.lock:
            return instance.uuid in self._hv.guests

    def get_info(self, instance, use_cache=True):
        return driver.InstanceInfo(state=self._guest(instance).state,
                                   internal_id=instance.uuid)

    def _injected_failure(self):
        return (CONF.fake_driver.fail_spawn or {}).get(self.host)

    def cache_image(self, context, image_id):
        if self.image_cache.is_cached(image_id):
            return False
        self.image_cache.fetch(context, image_id)
        return True

    def spawn(self, context, instance, image_meta, injected_files,
              admin_password, allocations, network_info=None,
              block_device_info=None, power_on=True, accel_info=None):
        failure = self._injected_failure()
        if failure == FAIL_FATAL:
            raise exception.BuildAbortException(
                instance_uuid=instance.uuid,
                reason='fake hypervisor on %s refuses this guest '
                       '(fail_spawn=fatal)' % self.host)
        if failure == FAIL_RETRYABLE:
            raise exception.ComputeResourcesUnavailable(
                reason='fake hypervisor on %s failed to spawn '
                       '(fail_spawn=retryable)' % self.host)
        if failure:
            LOG.warning('Ignoring unknown [fake_driver] fail_spawn mode %r '
                        'for host %s', failure, self.host)

        image_id = _image_id(image_meta)
        if image_id and not driver.block_device_info_get_mapping(
                block_device_info) and self.image_cache is not None:
            self.image_cache.fetch(context, image_id)

        if CONF.fake_driver.spawn_seconds:
            time.sleep(CONF.fake_driver.spawn_seconds)

        vcpus, memory_mb, disk_gb = _instance_size(instance)
        conf = CONF.fake_driver
        state = power_state.RUNNING if power_on else power_state.SHUTDOWN
        with self._hv.lock:
            if instance.uuid in self._hv.guests:
                raise exception.InstanceExists(name=_instance_name(instance))
            used_cpu, used_mem, used_disk = self._hv.used()
            ratios = getattr(self, '_ratios', None) or (
                driver.INITIAL_ALLOCATION_RATIOS)
            if (used_cpu + vcpus > conf.vcpus * ratios[orc.VCPU] or
                    used_mem + memory_mb >
                    conf.memory_mb * ratios[orc.MEMORY_MB] or
                    used_disk + disk_gb >
                    conf.local_gb * ratios[orc.DISK_GB]):
                raise exception.ComputeResourcesUnavailable(
                    reason='fake host %s is full' % self.host)
            guest = FakeGuest(instance.uuid, _instance_name(instance),
                              vcpus, memory_mb, disk_gb, state)
            guest.vifs = [vif['id'] for vif in (network_info or [])]
            for bdm in driver.block_device_info_get_mapping(
                    block_device_info):
                guest.volumes[bdm.get('mount_device')] = bdm.get(
                    'connection_info')
            self._hv.guests[instance.uuid] = guest
        LOG.info('Fake guest %s spawned on %s', instance.uuid, self.host)

    def destroy(self, context, instance, network_info, block_device_info=None,
                destroy_disks=True, destroy_secrets=True):
        with self._hv.lock:
            guest = self._hv.guests.pop(instance.uuid, None)
        if guest is None:
            LOG.debug('Fake guest %s already gone from %s', instance.uuid,
                      self.host)
        else:
            LOG.info('Fake guest %s destroyed on %s', instance.uuid,
                     self.host)

    def cleanup(self, context, instance, network_info, block_device_info=None,
                destroy_disks=True, migrate_data=None, destroy_vifs=True,
                destroy_secrets=True):
        pass

    def snapshot(self, context, instance, image_id, update_task_state):
        # The guest's "disk" is a few bytes naming it; Glance gets them.
        from nova_clone.image import glance
        self._guest(instance)
        glance.API().update(context, image_id, {
            'disk_format': 'raw', 'container_format': 'bare'},
            data=('fake disk of %s' % instance.uuid).encode())

    def _set_state(self, instance, state):
        self._guest(instance).state = state

    def reboot(self, context, instance, network_info, reboot_type,
               block_device_info=None, bad_volumes_callback=None,
               accel_info=None, share_info=None):
        self._set_state(instance, power_state.RUNNING)

    def power_off(self, instance, timeout=0, retry_interval=0):
        self._set_state(instance, power_state.SHUTDOWN)

    def power_on(self, context, instance, network_info,
                 block_device_info=None, accel_info=None, share_info=None):
        self._set_state(instance, power_state.RUNNING)

    def pause(self, instance):
        self._set_state(instance, power_state.PAUSED)

    def unpause(self, instance):
        self._set_state(instance, power_state.RUNNING)

    def suspend(self, context, instance):
        self._set_state(instance, power_state.SUSPENDED)

    def resume(self, context, instance, network_info, block_device_info=None):
        self._set_state(instance, power_state.RUNNING)

    def get_console_output(self, context, instance):
        self._guest(instance)
        return 'FAKE CONSOLE OUTPUT\nANOTHER\nLAST LINE'

    def get_diagnostics(self, instance):
        guest = self._guest(instance)
        return {'state': power_state.name(guest.state),
                'driver': 'fake', 'memory_mb': guest.memory_mb,
                'num_cpus': guest.vcpus}

    def get_instance_diagnostics(self, instance):
        guest = self._guest(instance)
        uptime = (timeutils.utcnow() - guest.created_at).total_seconds()
        return {
            'state': power_state.name(guest.state), 'driver': 'fake',
            'hypervisor': 'fake', 'hypervisor_os': 'fake',
            'uptime': int(uptime), 'config_drive': False,
            'num_cpus': guest.vcpus, 'num_nics': len(guest.vifs),
            'num_disks': 1 + len(guest.volumes),
            'cpu_details': [{'id': n, 'time': 0, 'utilisation': None}
                            for n in range(guest.vcpus)],
            'nic_details': [{'mac_address': None, 'rx_octets': 0,
                             'rx_errors': 0, 'rx_drop': 0, 'rx_packets': 0,
                             'rx_rate': None, 'tx_octets': 0, 'tx_errors': 0,
                             'tx_drop': 0, 'tx_packets': 0, 'tx_rate': None}
                            for _vif in guest.vifs],
            'disk_details': [{'read_bytes': 0, 'read_requests': 0,
                              'write_bytes': 0, 'write_requests': 0,
                              'errors_count': 0}],
            'memory_details': {'maximum': guest.memory_mb, 'used': 0},
        }

    def trigger_crash_dump(self, instance):
        # A fake guest has no kernel to dump; the NMI is accepted.
        self._guest(instance)

    # -- networking ------------------------------------------------------

    def plug_vifs(self, instance, network_info):
        # Plugging is immediate; the network-vif-plugged event is Neutron's.
        guest = self._guest(instance)
        for vif in network_info or []:
            if vif['id'] not in guest.vifs:
                guest.vifs.append(vif['id'])

    def unplug_vifs(self, instance, network_info):
        with self._hv.lock:
            guest = self._hv.guests.get(instance.uuid)
        if guest is not None:
            gone = {vif['id'] for vif in network_info or []}
            guest.vifs = [v for v in guest.vifs if v not in gone]

    def attach_interface(self, context, instance, image_meta, vif):
        self.plug_vifs(instance, [vif])

    def detach_interface(self, context, instance, vif):
        self.unplug_vifs(instance, [vif])

    # -- volumes ---------------------------------------------------------

    def get_volume_connector(self, instance):
        return {'ip': CONF.my_ip, 'initiator': 'fake-initiator-%s' % self.host,
                'host': self.host, 'platform': 'x86_64', 'os_type': 'linux',
                'multipath': False}

    def attach_volume(self, context, connection_info, instance, mountpoint,
                      disk_bus=None, device_type=None, encryption=None):
        guest = self._guest(instance)
        if CONF.fake_driver.fail_attach_volume:
            raise exception.VolumeAttachFailed(
                volume_id=(connection_info or {}).get('serial'),
                reason='fake hypervisor on %s refuses the disk '
                       '(fail_attach_volume)' % self.host)
        with self._hv.lock:
            guest.volumes[mountpoint] = connection_info

    def detach_volume(self, context, connection_info, instance, mountpoint,
                      encryption=None):
        with self._hv.lock:
            guest = self._hv.guests.get(instance.uuid)
        if guest is not None:
            guest.volumes.pop(mountpoint, None)

    def swap_volume(self, context, old_connection_info,
                    new_connection_info, instance, mountpoint, resize_to):
        guest = self._guest(instance)
        with self._hv.lock:
            guest.volumes[mountpoint] = new_connection_info

    def extend_volume(self, context, connection_info, instance,
                      requested_size):
        self._guest(instance)

    # -- cold migration --------------------------------------------------

    def migrate_disk_and_power_off(self, context, instance, dest, flavor,
                                   network_info, block_device_info=None,
                                   timeout=0, retry_interval=0):
        self._set_state(instance, power_state.SHUTDOWN)
        return '{}'

    def finish_migration(self, context, migration, instance, disk_info,
                         network_info, image_meta, resize_instance,
                         allocations, block_device_info=None, power_on=True):
        vcpus, memory_mb, disk_gb = _instance_size(instance)
        state = power_state.RUNNING if power_on else power_state.SHUTDOWN
        with self._hv.lock:
            self._hv.guests[instance.uuid] = FakeGuest(
                instance.uuid, _instance_name(instance), vcpus, memory_mb,
                disk_gb, state)

    def confirm_migration(self, context, migration, instance, network_info):
        # The source guest goes away once the resize is confirmed.
        self.destroy(context, instance, network_info)

    def finish_revert_migration(self, context, instance, network_info,
                                migration, block_device_info=None,
                                power_on=True):
        state = power_state.RUNNING if power_on else power_state.SHUTDOWN
        with self._hv.lock:
            guest = self._hv.guests.get(instance.uuid)
            if guest is None:
                vcpus, memory_mb, disk_gb = _instance_size(instance)
                guest = FakeGuest(instance.uuid, _instance_name(instance),
                                  vcpus, memory_mb, disk_gb, state)
                self._hv.guests[instance.uuid] = guest
            guest.state = state

    # -- live migration --------------------------------------------------

    def check_can_live_migrate_destination(self, context, instance,
                                           src_compute_info, dst_compute_info,
                                           block_migration=False,
                                           disk_over_commit=False):
        return {}

    def check_can_live_migrate_source(self, context, instance,
                                      dest_check_data, block_device_info=None):
        return dest_check_data

    def cleanup_live_migration_destination_check(self, context,
                                                 dest_check_data):
        pass

    def pre_live_migration(self, context, instance, block_device_info,
                           network_info, disk_info, migrate_data):
        return migrate_data

    def live_migration(self, context, instance, dest, post_method,
                       recover_method, block_migration=False,
                       migrate_data=None):
        post_method(context, instance, dest, block_migration, migrate_data)

    def live_migration_abort(self, instance):
        pass

    def live_migration_force_complete(self, instance):
        pass

    def post_live_migration_at_source(self, context, instance, network_info):
        self.destroy(context, instance, network_info)

    def post_live_migration_at_destination(self, context, instance,
                                           network_info,
                                           block_migration=False,
                                           block_device_info=None):
        vcpus, memory_mb, disk_gb = _instance_size(instance)
        with self._hv.lock:
            self._hv.guests[instance.uuid] = FakeGuest(
                instance.uuid, _instance_name(instance), vcpus, memory_mb,
                disk_gb, power_state.RUNNING)

    def rollback_live_migration_at_destination(self, context, instance,
                                               network_info,
                                               block_device_info,
                                               destroy_disks=True,
                                               migrate_data=None):
        self.destroy(context, instance, network_info)


def _image_id(image_meta):
    if image_meta is None:
        return None
    if isinstance(image_meta, dict):
        return image_meta.get('id')
    try:
        return image_meta.id
    except Exception:
        return None
