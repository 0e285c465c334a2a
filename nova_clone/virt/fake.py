"""A hypervisor that lives in memory, for tests and the embedded mode.

Each host has its own fake hypervisor (keyed by host name), so many
compute services in one process never see each other's guests, and a
compute service restarted on the same host finds the guests it left, as a
real hypervisor would keep them.  Capacity comes from ``[fake_driver]``
and is finite: a spawn that does not fit is refused with a retryable error.
``[fake_driver] fail_spawn`` makes spawn fail on chosen hosts;
``live_migration_seconds``, ``fail_live_migration`` and
``refuse_live_migration`` make live migrations slow (with progress),
fail during the copy, or be refused by a destination.
"""

import threading
import time

import os_resource_classes as orc
from oslo_log import log as logging
from oslo_utils import timeutils
from oslo_utils import units

from nova_clone.compute import power_state
from nova_clone.compute import task_states
from nova_clone.conf import CONF
from nova_clone import exception
from nova_clone.image import glance
from nova_clone.objects import migrate_data as migrate_data_obj
from nova_clone.virt import console
from nova_clone.virt import driver
from nova_clone.virt import imagecache

LOG = logging.getLogger(__name__)
FAKE_CONSOLE_OUTPUT = ('FAKE CONSOLE OUTPUT\nBOOTING\nNETWORK UP\n'
                       'ANOTHER\nLAST LINE')

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
        # The image the guest runs, and its ephemeral disk generation
        # (a rebuild that does not preserve ephemeral disks renews it).
        self.image_id = None
        self.ephemeral_generation = 0
        # The ports of the last network info injected into the guest.
        self.injected_network_info = None
        # The image booted in rescue mode (None: not rescued).
        self.rescue_image_id = None
        self.admin_password = None
        # Filesystems frozen for a volume snapshot.
        self.quiesced = False


class FakeHypervisor:
    """The guests of one fake host."""

    def __init__(self, host):
        self.host = host
        self.lock = threading.RLock()
        self.guests = {}
        # Outgoing live migrations by instance uuid.
        self.migrations = {}
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


def _volumes(block_device_info):
    """{mount device: connection_info} of the guest's volumes."""
    return {bdm.get('mount_device'): bdm.get('connection_info')
            for bdm in driver.block_device_info_get_mapping(
                block_device_info)}


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
        self._image_api = None

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
        # The service stops as if its process died: outgoing migrations
        # end without a word, the guests stay (see startup.py).
        with self._hv.lock:
            jobs = list(self._hv.migrations.values())
        for job in jobs:
            job.interrupt.set()

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
            guest.image_id = image_id
            guest.volumes = _volumes(block_device_info)
            self._hv.guests[instance.uuid] = guest
        LOG.info('Fake guest %s spawned on %s', instance.uuid, self.host)

    def destroy(self, context, instance, network_info, block_device_info=None,
                destroy_disks=True, destroy_secrets=True):
        with self._hv.lock:
            guest = self._hv.guests.pop(instance.uuid, None)
            # A guest that goes away stops its outgoing migration.
            job = self._hv.migrations.get(instance.uuid)
        if job is not None:
            job.abort.set()
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

    def rebuild(self, context, instance, image_meta, injected_files,
                admin_password, allocations, bdms, network_info=None,
                block_device_info=None, preserve_ephemeral=False):
        guest = self._guest(instance)
        # Like a driver with its own rebuild (Ironic's), it says when the
        # new image starts booting.
        instance.task_state = task_states.REBUILD_SPAWNING
        instance.save(expected_task_state=[task_states.REBUILDING])
        image_id = _image_id(image_meta)
        if image_id and self.image_cache is not None and \
                not driver.block_device_info_get_mapping(block_device_info):
            self.image_cache.fetch(context, image_id)
        if CONF.fake_driver.spawn_seconds:
            time.sleep(CONF.fake_driver.spawn_seconds)
        with self._hv.lock:
            guest.image_id = image_id
            if not preserve_ephemeral:
                guest.ephemeral_generation += 1
            guest.state = power_state.RUNNING
        LOG.info('Fake guest %s rebuilt on %s from image %s', instance.uuid,
                 self.host, image_id)

    @property
    def image_api(self):
        if self._image_api is None:
            self._image_api = glance.API()
        return self._image_api

    def snapshot(self, context, instance, image_id, update_task_state):
        guest = self._guest(instance)
        update_task_state(task_state=task_states.IMAGE_PENDING_UPLOAD)
        # The "disk": enough to tell which guest and image it came from.
        data = ('fake disk of guest %s (image %s, ephemeral %d)\n' % (
            instance.uuid, guest.image_id, guest.ephemeral_generation)
            ).encode()
        update_task_state(task_state=task_states.IMAGE_UPLOADING,
                          expected_state=task_states.IMAGE_PENDING_UPLOAD)
        # What a hypervisor driver says of its upload (libvirt's keys).
        metadata = {'disk_format': 'qcow2', 'container_format': 'bare',
                    'properties': {'image_location': 'snapshot',
                                   'image_state': 'available',
                                   'owner_id': instance.project_id}}
        self.image_api.update(context, image_id, metadata, data=data)
        LOG.info('Fake guest %s snapshotted into image %s', instance.uuid,
                 image_id)

    def rescue(self, context, instance, network_info, image_meta,
               rescue_password, block_device_info=None):
        guest = self._guest(instance)
        with self._hv.lock:
            guest.rescue_image_id = _image_id(image_meta)
            guest.admin_password = rescue_password
            guest.state = power_state.RUNNING

    def unrescue(self, context, instance, network_info):
        guest = self._guest(instance)
        with self._hv.lock:
            guest.rescue_image_id = None
            guest.state = power_state.RUNNING

    def set_admin_password(self, instance, new_pass):
        self._guest(instance).admin_password = new_pass

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

    def inject_network_info(self, instance, network_info):
        self._guest(instance).injected_network_info = [
            vif['id'] for vif in network_info or []]

    def get_vnc_console(self, context, instance):
        self._guest(instance)
        return console.ConsoleVNC(
            host=CONF.vnc.server_proxyclient_address, port=5900,
            internal_access_path=None)

    def get_spice_console(self, context, instance):
        self._guest(instance)
        return console.ConsoleSpice(
            host=CONF.spice.server_proxyclient_address, port=5900,
            tls_port=5901)

    def get_serial_console(self, context, instance):
        self._guest(instance)
        return console.ConsoleSerial(
            host=CONF.serial_console.proxyclient_address, port=10000)

    def get_console_output(self, context, instance):
        self._guest(instance)
        # More lines than a client's usual tail (Tempest asks for 3).
        return FAKE_CONSOLE_OUTPUT

    def get_diagnostics(self, instance):
        guest = self._guest(instance)
        return {'state': power_state.name(guest.state),
                'driver': 'fake', 'memory_mb': guest.memory_mb,
                'num_cpus': guest.vcpus}

    def get_instance_diagnostics(self, instance):
        guest = self._guest(instance)
        uptime = (timeutils.utcnow() - guest.created_at).total_seconds()
        # 2.48 names the driver from a closed list (libvirt, xenapi,
        # vmwareapi, ironic, hyperv) with no place for a fake: it says
        # libvirt, as Nova's fake driver does.
        return {
            'state': power_state.name(guest.state), 'driver': 'libvirt',
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

    def quiesce(self, context, instance, image_meta):
        self._guest(instance).quiesced = True

    def unquiesce(self, context, instance, image_meta):
        self._guest(instance).quiesced = False

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
        if CONF.fake_driver.fail_detach_volume:
            raise exception.DeviceDetachFailed(
                device=mountpoint,
                reason='fake hypervisor on %s: the guest keeps the disk '
                       '(fail_detach_volume)' % self.host)
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
            guest = FakeGuest(instance.uuid, _instance_name(instance), vcpus,
                              memory_mb, disk_gb, state)
            guest.volumes = _volumes(block_device_info)
            self._hv.guests[instance.uuid] = guest

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
            guest.volumes = _volumes(block_device_info)

    # -- live migration --------------------------------------------------

    def check_can_live_migrate_destination(self, context, instance,
                                           src_compute_info, dst_compute_info,
                                           block_migration=False,
                                           disk_over_commit=False):
        if self.host in CONF.fake_driver.refuse_live_migration:
            raise exception.MigrationPreCheckError(
                reason='Unable to migrate %s to %s: Lack of memory '
                       '(refuse_live_migration)' % (instance.uuid,
                                                    self.host))
        return migrate_data_obj.LiveMigrateData(is_volume_backed=False)

    def check_can_live_migrate_source(self, context, instance,
                                      dest_check_data, block_device_info=None):
        return dest_check_data

    def cleanup_live_migration_destination_check(self, context,
                                                 dest_check_data):
        pass

    def get_instance_disk_info(self, instance, block_device_info=None):
        self._guest(instance)
        return '[]'  # a fake guest's disk is only its size

    def pre_live_migration(self, context, instance, block_device_info,
                           network_info, disk_info, migrate_data):
        return migrate_data

    def live_migration(self, context, instance, dest, post_method,
                       recover_method, block_migration=False,
                       migrate_data=None):
        """Copy the guest's memory (and disks for a block migration) in
        [fake_driver] live_migration_seconds, reporting progress on
        ``migrate_data.migration``; then call post_method, or
        recover_method when the copy failed or was aborted."""
        guest = self._guest(instance)
        job = FakeMigrationJob(guest, block_migration)
        with self._hv.lock:
            self._hv.migrations[instance.uuid] = job
        try:
            outcome = job.run(CONF.fake_driver.live_migration_seconds,
                              getattr(migrate_data, 'migration', None),
                              fail=self.host in
                              CONF.fake_driver.fail_live_migration)
        finally:
            with self._hv.lock:
                self._hv.migrations.pop(instance.uuid, None)
        if outcome == job.INTERRUPTED:
            LOG.warning('Fake live migration of %s to %s interrupted by '
                        'the stop of %s', instance.uuid, dest, self.host)
        elif outcome == job.COMPLETED:
            post_method(context, instance, dest, block_migration,
                        migrate_data)
        elif outcome == job.CANCELLED:
            recover_method(context, instance, dest, migrate_data,
                           migration_status='cancelled')
        else:
            LOG.error('Fake live migration of %s to %s failed '
                      '(fail_live_migration)', instance.uuid, dest)
            recover_method(context, instance, dest, migrate_data)

    def _migration_job(self, instance):
        with self._hv.lock:
            job = self._hv.migrations.get(instance.uuid)
        if job is None:
            raise exception.NoActiveMigrationForInstance(
                instance_id=instance.uuid)
        return job

    def live_migration_abort(self, instance):
        self._migration_job(instance).abort.set()

    def live_migration_force_complete(self, instance):
        job = self._migration_job(instance)
        # As a real hypervisor does: the guest pauses so the copy ends.
        job.guest.state = power_state.PAUSED
        job.force_complete.set()

    def post_live_migration_at_source(self, context, instance, network_info):
        self.destroy(context, instance, network_info)

    def post_live_migration_at_destination(self, context, instance,
                                           network_info,
                                           block_migration=False,
                                           block_device_info=None):
        vcpus, memory_mb, disk_gb = _instance_size(instance)
        guest = FakeGuest(instance.uuid, _instance_name(instance), vcpus,
                          memory_mb, disk_gb, power_state.RUNNING)
        guest.vifs = [vif['id'] for vif in network_info or []]
        with self._hv.lock:
            self._hv.guests[instance.uuid] = guest

    def rollback_live_migration_at_destination(self, context, instance,
                                               network_info,
                                               block_device_info,
                                               destroy_disks=True,
                                               migrate_data=None):
        self.destroy(context, instance, network_info)


class FakeMigrationJob:
    """One outgoing live migration of a fake guest.

    Progress goes onto the Migration record (memory_* and disk_* in
    bytes, saved every PROGRESS_INTERVAL), the way a real driver reports
    its hypervisor's job info; ``abort`` and ``force_complete`` are set
    from other threads.
    """

    COMPLETED = 'completed'
    CANCELLED = 'cancelled'
    FAILED = 'failed'
    INTERRUPTED = 'interrupted'
    PROGRESS_INTERVAL = 0.1

    def __init__(self, guest, block_migration):
        self.guest = guest
        self.memory_total = guest.memory_mb * units.Mi
        self.disk_total = (guest.disk_gb * units.Gi if block_migration
                           else 0)
        self.abort = threading.Event()
        self.force_complete = threading.Event()
        self.interrupt = threading.Event()

    def _report(self, migration, done):
        if migration is None:
            return
        memory = int(self.memory_total * done)
        disk = int(self.disk_total * done)
        migration.memory_total = self.memory_total
        migration.memory_processed = memory
        migration.memory_remaining = self.memory_total - memory
        migration.disk_total = self.disk_total
        migration.disk_processed = disk
        migration.disk_remaining = self.disk_total - disk
        migration.save()

    def run(self, seconds, migration, fail=False):
        state = self.guest.state
        started = time.monotonic()
        done = 0.0
        outcome = self.COMPLETED
        while done < 1.0:
            if self.interrupt.is_set():
                return self.INTERRUPTED
            if self.abort.is_set():
                outcome = self.CANCELLED
                break
            if self.force_complete.is_set():
                done = 1.0
                break
            if fail and done >= 0.5:
                outcome = self.FAILED
                break
            self._report(migration, done)
            elapsed = time.monotonic() - started
            done = min(1.0, elapsed / seconds) if seconds else (
                0.5 if fail else 1.0)
            if done < 1.0:
                time.sleep(self.PROGRESS_INTERVAL)
        if outcome == self.COMPLETED:
            self._report(migration, 1.0)
        # A force-completed guest runs again once it has moved.
        self.guest.state = state
        return outcome


def _image_id(image_meta):
    if image_meta is None:
        return None
    if isinstance(image_meta, dict):
        return image_meta.get('id')
    try:
        return image_meta.id
    except Exception:
        return None
