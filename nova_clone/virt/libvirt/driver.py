"""LibvirtDriver: QEMU guests (KVM or TCG) through a libvirt daemon.

Disks are files under ``<instances_path>/<uuid>/``: ``disk`` is a qcow2
overlay on the raw base image in ``_base``; ``console.log`` receives the
serial console.  Images with a ``kernel_id`` (AMI style, also read from
the instance as Nova does) boot that kernel and ``ramdisk_id`` directly,
with the image's ``os_command_line`` or a default console command line.
Volumes must arrive as ``driver_volume_type: file`` (the Cinder stand-in's
backing files).

Resize and cold migration: the source stops the guest and renames its
directory to ``<uuid>_resize``; the destination copies the disks from
there (their paths travel in disk_info) into its own instances_path,
rebases the root overlay on its own cached base image, grows it to the
new flavor and defines the guest.  So the destination reads the source's
directory by path, which holds for computes on one machine (each with
its own instances_path and libvirtd, as ``stack up --driver libvirt``
runs them) or on a shared mount; there is no ssh/rsync transport.
Confirm deletes the backup and the source's definition; revert renames
the backup back and defines the guest with the old flavor.

Live migration: see migration.py (the calls) and migration_job.py (the
running copy: progress, abort, force-complete).
"""

import json
import os
import shutil
import time
import xml.etree.ElementTree as ET

import os_resource_classes as orc
import os_traits
from oslo_log import log as logging
from oslo_utils import excutils
from oslo_utils import timeutils

from nova_clone.conf import CONF
from nova_clone import exception
from nova_clone.objects import image_meta as image_meta_obj
from nova_clone.virt import driver
from nova_clone.virt.libvirt import config as vconfig
from nova_clone.virt.libvirt import host as libvirt_host
from nova_clone.virt.libvirt import imagebackend
from nova_clone.virt.libvirt import migration
from nova_clone.virt.libvirt import power as guest_power
from nova_clone.virt.libvirt import power_states
from nova_clone.virt.libvirt import resize
from nova_clone.virt.libvirt import utils
from nova_clone.virt.libvirt import vif as vif_names
from nova_clone.virt.libvirt import volume

LOG = logging.getLogger(__name__)

DEFAULT_URIS = {'kvm': 'qemu:///system', 'qemu': 'qemu:///system'}
DEFAULT_CMDLINE = 'root=/dev/vda console=tty0 console=ttyS0 console=hvc0'
# Nova returns at most this much of the console log.
MAX_CONSOLE_BYTES = 100 * 1024
# Traits true of every guest this driver builds.
DRIVER_TRAITS = (os_traits.COMPUTE_NET_VIF_MODEL_VIRTIO,
                 os_traits.COMPUTE_STORAGE_BUS_VIRTIO)


class LibvirtDriver(migration.LiveMigrationMixin, volume.VolumeMixin,
                    driver.ComputeDriver):

    capabilities = dict(driver.ComputeDriver.capabilities,
                        has_imagecache=True,
                        supports_evacuate=True,
                        supports_attach_interface=True,
                        supports_extend_volume=False,
                        supports_image_type_raw=True,
                        supports_image_type_qcow2=True,
                        supports_image_type_aki=True,
                        supports_image_type_ari=True,
                        supports_image_type_ami=True)

    def __init__(self, virtapi, read_only=False):
        super().__init__(virtapi)
        self._host = None
        self._hostname = None
        self.image_cache = None
        # download(context, image_id, dest_path); None means Glance.
        self.image_download = None
        self._disk_cache_mode = None
        self.instances_path = CONF.instances_path
        self._init_live_migration()

    # -- host ------------------------------------------------------------

    @property
    def virt_type(self):
        return CONF.libvirt.virt_type

    @property
    def uri(self):
        return CONF.libvirt.connection_uri or DEFAULT_URIS[self.virt_type]

    @property
    def host(self):
        if self._host is None:
            raise exception.VirtDriverNotReady()
        return self._host

    def init_host(self, host):
        utils.check_virt_type(self.virt_type)
        # Read once, so several drivers in one process (tests, the
        # embedded mode) can each keep their own host and directory.
        self.instances_path = CONF.instances_path
        os.makedirs(self.instances_path, exist_ok=True)
        self._host = libvirt_host.Host(self.uri)
        self._host.initialize()
        self.image_cache = imagebackend.ImageCache(
            base_dir=os.path.join(self.instances_path, '_base'),
            download=self._download_image)
        self._disk_cache_mode = ('none' if utils.supports_direct_io(
            self.instances_path) else 'writeback')
        LOG.info('libvirt driver ready on %s: %s guests, QEMU %s, '
                 'instances in %s', host, self.virt_type,
                 self._host.get_hypervisor_version(), self.instances_path)

    def cleanup_host(self, host):
        if self._host is not None:
            self._host.close()

    def _download_image(self, context, image_id, dest_path):
        if self.image_download is not None:
            return self.image_download(context, image_id, dest_path)
        from nova_clone.image import glance
        glance.API().download(context, image_id, dest_path=dest_path)

    def _nodename(self):
        if self._hostname is None:
            self._hostname = self.host.get_hostname()
        return self._hostname

    def get_available_nodes(self, refresh=False):
        return [self._nodename()]

    def get_nodenames_by_uuid(self, refresh=False):
        return {}

    def get_host_uptime(self):
        with open('/proc/uptime') as f:
            return '%.0f seconds' % float(f.read().split()[0])

    def _disk_gb(self):
        st = os.statvfs(self.instances_path)
        total = st.f_frsize * st.f_blocks // (1024 ** 3)
        free = st.f_frsize * st.f_bavail // (1024 ** 3)
        return total, free

    def _vcpus_used(self):
        used = 0
        for dom in self.host.list_domains():
            if dom.isActive():
                used += dom.info()[3]
        return used

    def _cpu_info(self):
        caps = ET.fromstring(self.host.get_capabilities())
        cpu = caps.find('./host/cpu')
        info = {'arch': cpu.findtext('arch'), 'model': cpu.findtext('model'),
                'vendor': cpu.findtext('vendor'), 'features': []}
        topo = cpu.find('topology')
        if topo is not None:
            info['topology'] = {k: int(topo.get(k, 1)) for k in
                                ('sockets', 'cores', 'threads')}
        info['features'] = sorted(f.get('name')
                                  for f in cpu.findall('feature'))
        return info

    def get_available_resource(self, nodename):
        if nodename != self._nodename():
            raise exception.HypervisorUnavailable(host=nodename)
        info = self.host.get_info()
        conn = self.host.get_connection()
        memory_mb = info[1]
        free_mb = conn.getFreeMemory() // (1024 * 1024)
        disk_total, disk_free = self._disk_gb()
        cpu_info = self._cpu_info()
        return {
            'vcpus': info[2],
            'memory_mb': memory_mb,
            'local_gb': disk_total,
            'vcpus_used': self._vcpus_used(),
            'memory_mb_used': max(0, memory_mb - free_mb),
            'local_gb_used': disk_total - disk_free,
            'hypervisor_type': utils.HYPERVISOR_TYPE,
            'hypervisor_version': self.host.get_hypervisor_version(),
            'hypervisor_hostname': nodename,
            'cpu_info': json.dumps(cpu_info),
            'disk_available_least': disk_free,
            'numa_topology': None,
            'supported_instances': [[cpu_info['arch'] or 'x86_64',
                                     self.virt_type, 'hvm']],
        }

    def update_provider_tree(self, provider_tree, nodename, allocations=None):
        resources = self.get_available_resource(nodename)
        ratios = driver.allocation_ratios(
            provider_tree.data(nodename).inventory)
        inventory = {}
        for rc, total, reserved in (
                (orc.VCPU, resources['vcpus'],
                 CONF.reserved_host_cpus),
                (orc.MEMORY_MB, resources['memory_mb'],
                 CONF.reserved_host_memory_mb),
                (orc.DISK_GB, resources['local_gb'],
                 driver.mb_to_ceil_gb(CONF.reserved_host_disk_mb))):
            if total <= 0:
                continue
            inventory[rc] = {'total': total, 'min_unit': 1,
                             'max_unit': total, 'step_size': 1,
                             'allocation_ratio': ratios[rc],
                             'reserved': reserved}
        provider_tree.update_inventory(nodename, inventory)
        provider_tree.add_traits(nodename, *DRIVER_TRAITS)

    # -- guests: lookup --------------------------------------------------

    def instance_dir(self, instance):
        return os.path.join(self.instances_path, instance.uuid)

    def list_instances(self):
        return [dom.name() for dom in self.host.list_domains()]

    def list_instance_uuids(self):
        return [dom.UUIDString() for dom in self.host.list_domains()]

    def instance_exists(self, instance):
        try:
            self.host.get_domain(instance)
            return True
        except exception.InstanceNotFound:
            return False

    def get_info(self, instance, use_cache=True):
        dom = self.host.get_domain(instance)
        state = self._call(dom.info, instance)[0]
        return driver.InstanceInfo(
            state=power_states.to_power_state(state),
            internal_id=self._call(dom.ID, instance))

    def _call(self, fn, instance, *args):
        """Run a libvirt call; a vanished domain becomes InstanceNotFound."""
        libvirt = self.host.libvirt
        try:
            return fn(*args)
        except libvirt.libvirtError as exc:
            if exc.get_error_code() == libvirt.VIR_ERR_NO_DOMAIN:
                raise exception.InstanceNotFound(instance_id=instance.uuid)
            raise

    # -- guests: spawn ---------------------------------------------------

    def spawn(self, context, instance, image_meta, injected_files,
              admin_password, allocations, network_info=None,
              block_device_info=None, power_on=True, accel_info=None):
        inst_dir = self.instance_dir(instance)
        if self.instance_exists(instance):
            raise exception.InstanceExists(name=instance.name)
        os.makedirs(inst_dir, exist_ok=True)
        try:
            self._create_guest(context, instance, image_meta, network_info,
                               block_device_info, power_on)
        except Exception:
            with excutils.save_and_reraise_exception():
                self._undefine(instance)
                shutil.rmtree(inst_dir, ignore_errors=True)
        LOG.info('Guest %s spawned (%s)', instance.uuid,
                 'running' if power_on else 'defined')

    def _create_guest(self, context, instance, image_meta, network_info,
                      block_device_info, power_on):
        """Define the guest from the instance as it is now; start it."""
        guest = self._guest_config(context, instance, image_meta,
                                   network_info, block_device_info)
        xml = guest.to_xml()
        with open(os.path.join(self.instance_dir(instance), 'libvirt.xml'),
                  'w') as f:
            f.write(xml)
        dom = self._define(instance, xml)
        # (A guest still running keeps running, with the new definition
        # applied at its next start.)
        if power_on and not dom.isActive():
            self._start(instance, dom)

    def _define(self, instance, xml):
        libvirt = self.host.libvirt
        try:
            return self.host.get_connection().defineXML(xml)
        except libvirt.libvirtError as exc:
            raise exception.InternalError(
                err='libvirt refused the guest definition of %s: %s' %
                    (instance.uuid, exc.get_error_message()))

    def _start(self, instance, dom):
        libvirt = self.host.libvirt
        try:
            dom.create()
        except libvirt.libvirtError as exc:
            raise exception.InternalError(
                err='Guest %s failed to start: %s' %
                    (instance.uuid, exc.get_error_message()))

    def _fetch(self, context, image_id):
        return self.image_cache.fetch(context, image_id)

    def _root_disk(self, context, instance, image_id, inst_dir):
        base = self._fetch(context, image_id)
        path = os.path.join(inst_dir, 'disk')
        if not os.path.exists(path):
            root_gb = utils.flavor_value(instance, 'root_gb')
            imagebackend.create_overlay(base, path,
                                        root_gb * 1024 ** 3 or None)
        return path

    def _boot_files(self, context, instance, props, inst_dir):
        """Kernel and ramdisk of a direct kernel boot, if the image has one."""
        kernel_id = (utils.instance_attr(instance, 'kernel_id') or
                     props.get('kernel_id'))
        ramdisk_id = (utils.instance_attr(instance, 'ramdisk_id') or
                      props.get('ramdisk_id'))
        files = {}
        for name, image_id in (('kernel', kernel_id),
                               ('ramdisk', ramdisk_id)):
            if not image_id:
                continue
            cached = self._fetch(context, image_id)
            dest = os.path.join(inst_dir, name)
            if not os.path.exists(dest):
                try:
                    os.link(cached, dest)
                except OSError:
                    shutil.copyfile(cached, dest)
            files[name] = dest
        return files.get('kernel'), files.get('ramdisk')

    @staticmethod
    def _interfaces(network_info):
        interfaces = []
        for vif in network_info or []:
            devname = vif_names.tap_name(vif)
            network = vif.get('network') or {}
            mtu = (network.get('meta') or {}).get('mtu')
            interfaces.append(vconfig.GuestInterface(
                mac_address=vif['address'], target_dev=devname, mtu=mtu))
        return interfaces

    @staticmethod
    def _metadata(instance):
        def attr(name):
            return utils.instance_attr(instance, name, '')

        flavor = utils.instance_attr(instance, 'flavor')
        meta = {'name': attr('display_name'),
                'creationTime': timeutils.utcnow().strftime(
                    '%Y-%m-%d %H:%M:%S'),
                'owner': {'user_id': attr('user_id'),
                          'project_id': attr('project_id')}}
        if flavor is not None:
            meta['flavor'] = {'name': getattr(flavor, 'name', ''),
                              'memory': flavor.memory_mb,
                              'disk': flavor.root_gb,
                              'swap': flavor.swap,
                              'ephemeral': flavor.ephemeral_gb,
                              'vcpus': flavor.vcpus}
        return meta

    @staticmethod
    def _booted_from_volume(block_device_info):
        return any(utils.device_name(bdm.get('mount_device')) == 'vda'
                   for bdm in driver.block_device_info_get_mapping(
                       block_device_info))

    def _guest_config(self, context, instance, image_meta, network_info,
                      block_device_info):
        inst_dir = self.instance_dir(instance)
        props = utils.image_properties(image_meta)
        mapping = driver.block_device_info_get_mapping(block_device_info)
        image_id = (utils.image_id(image_meta) or
                    utils.instance_attr(instance, 'image_ref'))
        disks = []
        if not self._booted_from_volume(block_device_info):
            if not image_id:
                raise exception.ImageUnacceptable(
                    image_id=image_id,
                    reason='neither an image nor a root volume to boot')
            disks.append(vconfig.GuestDisk(
                source_path=self._root_disk(context, instance, image_id,
                                            inst_dir),
                target_dev='vda', driver_format='qcow2',
                driver_cache=self._disk_cache_mode or 'none'))
        for bdm in mapping:
            disks.append(self._volume_disk(
                bdm.get('connection_info'),
                utils.device_name(bdm.get('mount_device'))))
        disks.sort(key=lambda d: d.target_dev)
        kernel, ramdisk = self._boot_files(context, instance, props,
                                           inst_dir)
        cmdline = None
        if kernel:
            cmdline = props.get('os_command_line') or DEFAULT_CMDLINE
        return vconfig.Guest(
            virt_type=self.virt_type, name=instance.name,
            uuid=instance.uuid,
            memory_mb=utils.flavor_value(instance, 'memory_mb'),
            vcpus=utils.flavor_value(instance, 'vcpus') or 1,
            machine_type=props.get('hw_machine_type'),
            kernel=kernel, ramdisk=ramdisk, cmdline=cmdline,
            console_log=os.path.join(inst_dir, 'console.log'),
            tb_cache_mib=CONF.libvirt.tb_cache_size,
            disks=disks, interfaces=self._interfaces(network_info),
            metadata=self._metadata(instance))

    # -- guests: removal -------------------------------------------------

    def _destroy_domain(self, instance):
        """Stop the guest at once; a missing or stopped guest is fine."""
        libvirt = self.host.libvirt
        try:
            dom = self.host.get_domain(instance)
        except exception.InstanceNotFound:
            return None
        try:
            if dom.isActive():
                dom.destroy()
        except libvirt.libvirtError as exc:
            code = exc.get_error_code()
            if code == libvirt.VIR_ERR_NO_DOMAIN:
                return None
            # The guest may have stopped by itself in the meantime.
            if code != libvirt.VIR_ERR_OPERATION_INVALID:
                raise
        return dom

    def _undefine(self, instance):
        libvirt = self.host.libvirt
        try:
            dom = self.host.get_domain(instance)
        except exception.InstanceNotFound:
            return
        flags = (libvirt.VIR_DOMAIN_UNDEFINE_MANAGED_SAVE |
                 libvirt.VIR_DOMAIN_UNDEFINE_SNAPSHOTS_METADATA)
        try:
            dom.undefineFlags(flags)
        except libvirt.libvirtError as exc:
            if exc.get_error_code() != libvirt.VIR_ERR_NO_DOMAIN:
                raise

    def destroy(self, context, instance, network_info, block_device_info=None,
                destroy_disks=True, destroy_secrets=True):
        self._destroy_domain(instance)
        self.cleanup(context, instance, network_info, block_device_info,
                     destroy_disks=destroy_disks,
                     destroy_secrets=destroy_secrets)
        LOG.info('Guest %s destroyed', instance.uuid)

    def cleanup(self, context, instance, network_info, block_device_info=None,
                destroy_disks=True, migrate_data=None, destroy_vifs=True,
                destroy_secrets=True):
        # Taps of <interface type='ethernet'> go away with the guest.
        self._undefine(instance)
        if destroy_disks:
            shutil.rmtree(self.instance_dir(instance), ignore_errors=True)

    # -- guests: power ---------------------------------------------------

    def _wait_for_state(self, dom, instance, states, timeout):
        deadline = time.monotonic() + timeout
        while True:
            try:
                if self._call(dom.info, instance)[0] in states:
                    return True
            except exception.InstanceNotFound:
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.2)

    def _clean_shutdown(self, instance, timeout, retry_interval):
        """ACPI shutdown, repeated every retry_interval; True if it stopped."""
        libvirt = self.host.libvirt
        dom = self.host.get_domain(instance)
        if not dom.isActive():
            return True
        deadline = time.monotonic() + timeout
        interval = retry_interval or timeout
        while time.monotonic() < deadline:
            try:
                dom.shutdown()
            except libvirt.libvirtError as exc:
                if not dom.isActive():
                    return True
                LOG.debug('ACPI shutdown of %s refused: %s', instance.uuid,
                          exc)
            wait = min(interval, max(0.0, deadline - time.monotonic()))
            if self._wait_for_state(
                    dom, instance, (power_states.VIR_DOMAIN_SHUTOFF,
                                    power_states.VIR_DOMAIN_CRASHED), wait):
                LOG.info('Guest %s shut down cleanly', instance.uuid)
                return True
        return False

    def power_off(self, instance, timeout=0, retry_interval=0):
        if timeout and self._clean_shutdown(instance, timeout,
                                            retry_interval):
            return
        if timeout:
            LOG.warning('Guest %s did not shut down within %s s; forcing '
                        'it off', instance.uuid, timeout)
        if self._destroy_domain(instance) is None:
            raise exception.InstanceNotFound(instance_id=instance.uuid)

    def power_on(self, context, instance, network_info,
                 block_device_info=None, accel_info=None, share_info=None):
        self._hard_reboot(instance)

    def _hard_reboot(self, instance):
        """Stop the guest if needed and boot it from its definition."""
        dom = self._destroy_domain(instance)
        if dom is None:
            raise exception.InstanceNotFound(instance_id=instance.uuid)
        self._start(instance, dom)

    def reboot(self, context, instance, network_info, reboot_type,
               block_device_info=None, bad_volumes_callback=None,
               accel_info=None, share_info=None):
        if reboot_type == 'SOFT':
            # A soft reboot is a clean shutdown and a fresh start, so the
            # guest picks up its current definition.
            if self._clean_shutdown(instance,
                                    CONF.libvirt.wait_soft_reboot_seconds,
                                    0):
                self._start(instance, self.host.get_domain(instance))
                return
            LOG.warning('Soft reboot of %s failed; rebooting hard',
                        instance.uuid)
        self._hard_reboot(instance)

    def pause(self, instance):
        self._call(self.host.get_domain(instance).suspend, instance)

    def unpause(self, instance):
        self._call(self.host.get_domain(instance).resume, instance)

    def suspend(self, context, instance):
        # Nova's suspend: memory to a managed save image, QEMU stops.
        dom = self.host.get_domain(instance)
        self._call(dom.managedSave, instance, 0)

    def resume(self, context, instance, network_info, block_device_info=None):
        # Starting a domain with a managed save image restores it.
        dom = self.host.get_domain(instance)
        if not self._call(dom.hasManagedSaveImage, instance, 0):
            raise exception.InstanceNotRunning(instance_id=instance.uuid)
        self._start(instance, dom)

    # -- guests: resize and cold migration -------------------------------

    def migrate_disk_and_power_off(self, context, instance, dest, flavor,
                                   network_info, block_device_info=None,
                                   timeout=0, retry_interval=0):
        """Stop the guest and move its files aside for the destination.

        ``dest`` is not needed: the destination copies the disks from
        the paths in the returned disk_info (see resize.py).
        """
        if (flavor.root_gb < utils.flavor_value(instance, 'root_gb') and
                not self._booted_from_volume(block_device_info)):
            raise exception.InstanceFaultRollback(exception.InternalError(
                err='Unable to resize disk down.'))
        self.power_off(instance, timeout, retry_interval)
        dom = self.host.get_domain(instance)
        inst_dir = self.instance_dir(instance)
        names = resize.local_disk_names(
            self._call(dom.XMLDesc, instance,
                       self.host.libvirt.VIR_DOMAIN_XML_INACTIVE), inst_dir)
        disk_info = resize.move_aside(inst_dir, names)
        LOG.info('Guest %s stopped; its files wait in %s for %s',
                 instance.uuid, resize.backup_dir(inst_dir), dest)
        return json.dumps(disk_info)

    def finish_migration(self, context, migration, instance, disk_info,
                         network_info, image_meta, resize_instance,
                         allocations, block_device_info=None, power_on=True):
        inst_dir = self.instance_dir(instance)
        try:
            for path in resize.copy_disks(json.loads(disk_info or '[]'),
                                          inst_dir):
                self._rebase_on_local_base(context, instance, path)
            self._check_root_disk(instance, block_device_info)
            root = os.path.join(inst_dir, 'disk')
            if resize_instance and os.path.exists(root):
                imagebackend.grow(
                    root, utils.flavor_value(instance, 'root_gb') * 1024 ** 3)
            self._create_guest(context, instance, image_meta, network_info,
                               block_device_info, power_on)
        except Exception:
            # The source keeps its backup: a revert is still possible.
            with excutils.save_and_reraise_exception():
                self._undefine(instance)
                shutil.rmtree(inst_dir, ignore_errors=True)
        LOG.info('Guest %s moved here (%s)', instance.uuid,
                 'running' if power_on else 'defined')

    def _check_root_disk(self, instance, block_device_info):
        """A moved guest boots from its own disk, never from a fresh
        one that defining the guest would otherwise create."""
        root = os.path.join(self.instance_dir(instance), 'disk')
        if not (self._booted_from_volume(block_device_info) or
                os.path.exists(root)):
            raise exception.DiskNotFound(location=root)

    def _rebase_on_local_base(self, context, instance, path):
        """Back a copied overlay by this host's cached copy of its image."""
        backing = imagebackend.image_info(path).get('backing-filename')
        if not backing:
            return
        base = self._fetch(context, instance.image_ref)
        if os.path.basename(backing) != os.path.basename(base):
            raise exception.ImageUnacceptable(
                image_id=instance.image_ref,
                reason='disk %s is backed by %s, not by this image' %
                       (path, backing))
        imagebackend.rebase(path, base)

    def confirm_migration(self, context, migration, instance, network_info):
        resize.remove_backup(self.instance_dir(instance))
        if migration.source_compute != migration.dest_compute:
            # The guest lives on the destination now; the definition
            # here (files already gone) goes too.
            self.destroy(context, instance, network_info,
                         destroy_disks=False)

    def finish_revert_migration(self, context, instance, network_info,
                                migration, block_device_info=None,
                                power_on=True):
        if not resize.restore(self.instance_dir(instance)):
            LOG.info('Guest %s has no backup to restore: its files never '
                     'moved', instance.uuid)
        self._check_root_disk(instance, block_device_info)
        self._create_guest(context, instance,
                           image_meta_obj.ImageMeta.from_instance(instance),
                           network_info, block_device_info, power_on)
        LOG.info('Guest %s back (%s)', instance.uuid,
                 'running' if power_on else 'defined')

    # -- console ---------------------------------------------------------

    def get_console_output(self, context, instance):
        self.host.get_domain(instance)
        path = os.path.join(self.instance_dir(instance), 'console.log')
        try:
            with open(path, 'rb') as f:
                f.seek(0, os.SEEK_END)
                size = f.tell()
                f.seek(max(0, size - MAX_CONSOLE_BYTES))
                data = f.read()
        except FileNotFoundError:
            return ''
        return data.decode('utf-8', errors='replace')

    def get_diagnostics(self, instance):
        dom = self.host.get_domain(instance)
        return self._call(guest_power.free_form, instance,
                          self.host.libvirt, dom)

    def get_instance_diagnostics(self, instance):
        dom = self.host.get_domain(instance)
        return self._call(guest_power.structured, instance,
                          self.host.libvirt, dom, self.virt_type,
                          bool(instance.config_drive))

    def trigger_crash_dump(self, instance):
        guest_power.inject_nmi(self.host.libvirt,
                               self.host.get_domain(instance), instance)

    def quiesce(self, context, instance, image_meta):
        """Through the QEMU guest agent, which the image must ask for
        (hw_qemu_guest_agent=yes)."""
        self._through_guest_agent(instance, image_meta, 'fsFreeze')

    def unquiesce(self, context, instance, image_meta):
        self._through_guest_agent(instance, image_meta, 'fsThaw')

    def _through_guest_agent(self, instance, image_meta, method):
        if not image_meta.properties.get('hw_qemu_guest_agent', False):
            raise exception.QemuGuestAgentNotEnabled()
        domain = self.host.get_domain(instance)
        try:
            getattr(domain, method)()
        except self.host.libvirt.libvirtError as exc:
            raise exception.InstanceQuiesceFailed(reason=str(exc))

    # -- networking ------------------------------------------------------

    def plug_vifs(self, instance, network_info):
        # libvirt creates the taps of ethernet interfaces itself.
        pass

    def unplug_vifs(self, instance, network_info):
        pass

    def _live_config_flags(self, dom):
        libvirt = self.host.libvirt
        flags = libvirt.VIR_DOMAIN_AFFECT_CONFIG
        if dom.isActive():
            flags |= libvirt.VIR_DOMAIN_AFFECT_LIVE
        return flags

    def attach_interface(self, context, instance, image_meta, vif):
        dom = self.host.get_domain(instance)
        xml = self._interfaces([vif])[0].to_xml()
        self._call(dom.attachDeviceFlags, instance, xml,
                   self._live_config_flags(dom))

    def detach_interface(self, context, instance, vif):
        dom = self.host.get_domain(instance)
        xml = self._interfaces([vif])[0].to_xml()
        self._call(dom.detachDeviceFlags, instance, xml,
                   self._live_config_flags(dom))
