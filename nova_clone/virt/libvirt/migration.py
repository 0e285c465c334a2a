"""Live migration for the libvirt driver (a mixin of LibvirtDriver).

The compute manager calls, in Nova's order:

1. destination ``check_can_live_migrate_destination`` -> a
   LibvirtLiveMigrateData (this host's URI, instances_path, free disk and
   the name of a test file it left in its instances_path), then
   source ``check_can_live_migrate_source`` (does it see that file, i.e.
   share the instances_path; settles block_migration when it was left to
   it) and destination ``cleanup_live_migration_destination_check``;
2. destination ``pre_live_migration``: the instance directory and, for a
   block migration, empty overlays of the disks on this host's cached
   base image (so only what the guest wrote travels); the answer carries
   ``target_connect_addr``, the address the migration stream goes to;
3. source ``live_migration``: libvirt migrates peer to peer, copying the
   disks over NBD for a block migration, with the destination's paths
   in the definition sent along; see migration_job for progress,
   abort, force-complete and the completion timeout.  Then
   ``post_method`` or ``recover_method`` (with ``migration_status=
   'cancelled'`` for an aborted job) is called;
4. success: source ``post_live_migration`` and
   ``post_live_migration_at_source``, destination
   ``post_live_migration_at_destination``; failure: destination
   ``rollback_live_migration_at_destination``.

Storage that is shared but not a cluster file system (one machine's
directory, volume files of the Cinder stand-in) needs
VIR_MIGRATE_UNSAFE, which libvirt otherwise refuses; the checks above
are what make it safe.
"""

import json
import os
import shutil
import tempfile
import threading
import urllib.parse
import xml.etree.ElementTree as ET

from oslo_log import log as logging
from oslo_utils import timeutils

from nova_clone.conf import CONF
from nova_clone import exception
from nova_clone.objects import migrate_data as migrate_data_obj
from nova_clone.virt.libvirt import imagebackend
from nova_clone.virt.libvirt import migration_job
from nova_clone.virt.libvirt import resize
from nova_clone.virt.libvirt import utils
from nova_clone.virt.libvirt import vif as vif_names

LOG = logging.getLogger(__name__)

GIB = 1024 ** 3
MIB = 1024 ** 2
# Nova counts at least this much guest memory for the completion timeout.
MIN_TIMEOUT_MEMORY_GIB = 2


class LiveMigrationMixin:

    def _init_live_migration(self):
        # The outgoing migrations running here, by instance uuid: abort
        # and force-complete reach them from other threads.
        self._live_migration_jobs = {}
        self._live_migration_jobs_lock = threading.Lock()

    # -- checks --------------------------------------------------------

    def check_can_live_migrate_destination(self, context, instance,
                                           src_compute_info, dst_compute_info,
                                           block_migration=False,
                                           disk_over_commit=False):
        """Refuse a source this host cannot take the guest from.

        The compute infos are the primitives (dicts) of both hosts'
        ComputeNode records, as Nova's manager passes them.
        """
        self._check_hypervisor_type(src_compute_info)
        self._check_memory(instance)
        self._check_cpu(src_compute_info)
        fd, path = tempfile.mkstemp(dir=self.instances_path,
                                    prefix='.migrate-check-')
        os.close(fd)
        _total, free_gb = self._disk_gb()
        data = migrate_data_obj.LibvirtLiveMigrateData(
            filename=os.path.basename(path), image_type='qcow2',
            disk_over_commit=bool(disk_over_commit),
            disk_available_mb=free_gb * 1024,
            dst_connection_uri=self.host.uri,
            dst_instances_path=self.instances_path)
        # None leaves the choice to the source (the API's "auto").
        if block_migration is not None:
            data.block_migration = bool(block_migration)
        return data

    def _check_hypervisor_type(self, src_compute_info):
        source = src_compute_info.get('hypervisor_type')
        if source and source != utils.HYPERVISOR_TYPE:
            raise exception.InvalidHypervisorType()

    def _check_memory(self, instance):
        needed_mb = utils.flavor_value(instance, 'memory_mb')
        free_mb = self.host.get_connection().getFreeMemory() // MIB
        if free_mb <= needed_mb:
            raise exception.MigrationPreCheckError(
                reason='Unable to migrate %s to %s: Lack of memory(host:%d '
                       '<= instance:%d)' % (instance.uuid, self._nodename(),
                                            free_mb, needed_mb))

    def _check_cpu(self, src_compute_info):
        """The source host's CPU must be one this host can offer guests.

        Under TCG (virt_type qemu) guests get QEMU's emulated CPU model
        whatever the host has, so only the architecture must match.
        """
        raw = src_compute_info.get('cpu_info')
        if not raw:
            return
        source = json.loads(raw)
        own = self._cpu_info()
        if source.get('arch') and source['arch'] != own['arch']:
            raise exception.InvalidCPUInfo(
                reason='the source host is %s, this host %s' %
                       (source['arch'], own['arch']))
        if self.virt_type == 'qemu' or not source.get('model'):
            return
        cpu = ET.Element('cpu')
        for tag in ('arch', 'model', 'vendor'):
            if source.get(tag):
                ET.SubElement(cpu, tag).text = source[tag]
        for name in source.get('features', []):
            ET.SubElement(cpu, 'feature', name=name)
        libvirt = self.host.libvirt
        try:
            result = self.host.get_connection().compareHypervisorCPU(
                None, own['arch'], None, self.virt_type,
                ET.tostring(cpu, encoding='unicode'), 0)
        except libvirt.libvirtError as exc:
            # A model or feature this libvirt does not even know.
            raise exception.InvalidCPUInfo(reason=exc.get_error_message())
        if result == libvirt.VIR_CPU_COMPARE_INCOMPATIBLE:
            raise exception.InvalidCPUInfo(
                reason='this host cannot offer the CPU of the source host '
                       '(%s)' % source['model'])

    def cleanup_live_migration_destination_check(self, context,
                                                 dest_check_data):
        if 'filename' not in dest_check_data:
            return
        try:
            os.unlink(os.path.join(self.instances_path,
                                   dest_check_data.filename))
        except FileNotFoundError:
            pass

    def check_can_live_migrate_source(self, context, instance,
                                      dest_check_data, block_device_info=None):
        data = dest_check_data
        self.host.get_domain(instance)
        # The destination left a file in its instances_path: seeing it
        # in ours means both hosts share that directory.
        data.is_shared_instance_path = os.path.exists(
            os.path.join(self.instances_path, data.filename))
        local_disks = self._local_disks(instance)
        data.is_volume_backed = self._booted_from_volume(block_device_info)
        data.is_shared_block_storage = not local_disks
        data.instance_relative_path = instance.uuid
        if 'block_migration' not in data:
            data.block_migration = not data.is_on_shared_storage()
        if data.block_migration:
            if data.is_on_shared_storage():
                raise exception.InvalidLocalStorage(
                    path=self.instances_path,
                    reason='Block migration can not be used with shared '
                           'storage.')
            self._check_dest_disk(instance, data, local_disks)
        elif not data.is_on_shared_storage():
            raise exception.InvalidSharedStorage(
                path=self.instances_path,
                reason='Shared storage live-migration requires either '
                       'shared storage or boot-from-volume with no local '
                       'disks.')
        return data

    def _local_disks(self, instance):
        """Paths of the guest's disks in its instance directory."""
        libvirt = self.host.libvirt
        dom = self.host.get_domain(instance)
        inst_dir = self.instance_dir(instance)
        xml = self._call(dom.XMLDesc, instance,
                         libvirt.VIR_DOMAIN_XML_INACTIVE)
        return [os.path.join(inst_dir, name)
                for name in resize.local_disk_names(xml, inst_dir)]

    def _check_dest_disk(self, instance, data, local_disks):
        sizes = [imagebackend.describe(path) for path in local_disks]
        key = 'disk_size' if data.disk_over_commit else 'virt_disk_size'
        needed_mb = sum(d[key] or 0 for d in sizes) // MIB
        available = data.disk_available_mb
        if available is not None and available <= needed_mb:
            raise exception.MigrationPreCheckError(
                reason='Unable to migrate %s: Disk of instance is too '
                       'large(available on destination host:%d < need:%d)'
                       % (instance.uuid, available, needed_mb))

    def get_instance_disk_info(self, instance, block_device_info=None):
        """The guest's local disks as JSON text, for pre_live_migration."""
        return json.dumps([imagebackend.describe(path)
                           for path in self._local_disks(instance)])

    # -- destination ---------------------------------------------------

    def pre_live_migration(self, context, instance, block_device_info,
                           network_info, disk_info, migrate_data):
        if not migrate_data.is_shared_instance_path:
            inst_dir = self.instance_dir(instance)
            os.makedirs(inst_dir, exist_ok=True)
            if migrate_data.block_migration:
                if disk_info is None:
                    raise exception.MigrationError(
                        reason='a block migration needs the disk_info of '
                               'the source (get_instance_disk_info)')
                self._create_disks(context, instance, inst_dir,
                                   json.loads(disk_info))
            self._boot_files(context, instance, {}, inst_dir)
        migrate_data.target_connect_addr = \
            CONF.libvirt.live_migration_inbound_addr
        migrate_data.dst_taps_in_use = vif_names.taps_present(network_info)
        return migrate_data

    def _create_disks(self, context, instance, inst_dir, disk_info):
        """Empty disks for the copy: the guest's data fills them."""
        for entry in disk_info:
            path = os.path.join(inst_dir, os.path.basename(entry['path']))
            if os.path.exists(path):
                continue
            if entry.get('backing_file'):
                base = self._fetch(context, instance.image_ref)
                if os.path.basename(base) != entry['backing_file']:
                    raise exception.ImageUnacceptable(
                        image_id=instance.image_ref,
                        reason='disk %s is backed by %s, not by this image'
                               % (entry['path'], entry['backing_file']))
                imagebackend.create_overlay(base, path,
                                            entry['virt_disk_size'])
            else:
                imagebackend.create_blank(path, entry['virt_disk_size'],
                                          entry['type'])

    def post_live_migration_at_destination(self, context, instance,
                                           network_info,
                                           block_migration=False,
                                           block_device_info=None):
        libvirt = self.host.libvirt
        dom = self.host.get_domain(instance)
        # PERSIST_DEST should have defined it; a transient guest here
        # would vanish at its first stop.
        xml = self._call(dom.XMLDesc, instance,
                         libvirt.VIR_DOMAIN_XML_INACTIVE)
        if not dom.isPersistent():
            self._define(instance, xml)
        with open(os.path.join(self.instance_dir(instance), 'libvirt.xml'),
                  'w') as f:
            f.write(xml)
        LOG.info('Guest %s now runs here', instance.uuid)

    def rollback_live_migration_at_destination(self, context, instance,
                                               network_info,
                                               block_device_info,
                                               destroy_disks=True,
                                               migrate_data=None):
        shared = (migrate_data is not None and
                  'is_shared_instance_path' in migrate_data and
                  migrate_data.is_shared_instance_path)
        # In a shared directory the files are the source's own guest's.
        self.destroy(context, instance, network_info, block_device_info,
                     destroy_disks=destroy_disks and not shared)

    # -- source --------------------------------------------------------

    def _migration_uri(self, dest, migrate_data):
        """libvirt URI of the destination's daemon."""
        configured = CONF.libvirt.live_migration_uri
        if configured:
            return configured % dest if '%s' in configured else configured
        uri = migrate_data.dst_connection_uri
        # A URI with a socket names a daemon on this very machine, one
        # with a host part a reachable remote daemon; a bare local URI
        # means nothing from here, so the host name is put in.
        if 'socket=' in uri or urllib.parse.urlsplit(uri).netloc:
            return uri
        scheme = CONF.libvirt.live_migration_scheme or 'tcp'
        return 'qemu+%s://%s/system' % (scheme, dest)

    def _migration_flags(self, migrate_data, copies_all_disks):
        libvirt = self.host.libvirt
        flags = (libvirt.VIR_MIGRATE_LIVE | libvirt.VIR_MIGRATE_PEER2PEER |
                 libvirt.VIR_MIGRATE_PERSIST_DEST |
                 libvirt.VIR_MIGRATE_UNDEFINE_SOURCE)
        if migrate_data.block_migration:
            flags |= libvirt.VIR_MIGRATE_NON_SHARED_INC
        if not copies_all_disks:
            # The disks not copied are files both hosts reach by one
            # path, which libvirt cannot tell from local ones.
            flags |= libvirt.VIR_MIGRATE_UNSAFE
        return flags

    def _destination_xml(self, dom, instance, migrate_data, flags):
        """The guest's definition with the destination's paths, and its
        taps renamed where the destination's network stack holds their
        names already (the source's own taps, when both hosts share one
        stack: two taps cannot have one name while the guest moves)."""
        xml = self._call(dom.XMLDesc, instance, flags)
        dest_dir = os.path.join(migrate_data.dst_instances_path,
                                instance.uuid)
        xml = xml.replace(self.instance_dir(instance) + '/', dest_dir + '/')
        in_use = set(migrate_data.dst_taps_in_use
                     if 'dst_taps_in_use' in migrate_data else ())
        if not in_use:
            return xml
        root = ET.fromstring(xml)
        for target in root.findall('./devices/interface/target'):
            name = target.get('dev')
            if name in in_use:
                free = [n for n in vif_names.names_of(name)
                        if n not in in_use]
                if free:
                    target.set('dev', free[0])
        return ET.tostring(root, encoding='unicode')

    def _migration_params(self, dom, instance, migrate_data, local_disks):
        libvirt = self.host.libvirt
        params = {}
        if migrate_data.block_migration:
            params[libvirt.VIR_MIGRATE_PARAM_MIGRATE_DISKS] = [
                target for path, target in local_disks]
        if not migrate_data.is_shared_instance_path:
            # Both the running guest's and the persistent definition
            # (libvirt would otherwise persist the source's paths).
            params[libvirt.VIR_MIGRATE_PARAM_DEST_XML] = \
                self._destination_xml(dom, instance, migrate_data,
                                      libvirt.VIR_DOMAIN_XML_MIGRATABLE)
            params[libvirt.VIR_MIGRATE_PARAM_PERSIST_XML] = \
                self._destination_xml(dom, instance, migrate_data,
                                      libvirt.VIR_DOMAIN_XML_INACTIVE |
                                      libvirt.VIR_DOMAIN_XML_MIGRATABLE)
        addr = migrate_data.target_connect_addr \
            if 'target_connect_addr' in migrate_data else None
        if addr:
            # The migration stream goes to the destination's own address.
            params[libvirt.VIR_MIGRATE_PARAM_URI] = 'tcp://%s' % (
                '[%s]' % addr if ':' in addr else addr)
        if CONF.libvirt.live_migration_bandwidth:
            params[libvirt.VIR_MIGRATE_PARAM_BANDWIDTH] = \
                CONF.libvirt.live_migration_bandwidth
        return params

    def _disk_targets(self, dom, instance):
        """(path, target dev) of every file disk of the running guest."""
        xml = ET.fromstring(self._call(dom.XMLDesc, instance, 0))
        return [(disk.find('source').get('file'),
                 disk.find('target').get('dev'))
                for disk in xml.findall('./devices/disk')
                if disk.find('source') is not None and
                disk.find('source').get('file')]

    def _completion_timeout(self, instance, local_disks, migrate_data):
        data_gib = max(MIN_TIMEOUT_MEMORY_GIB,
                       utils.flavor_value(instance, 'memory_mb') / 1024)
        if migrate_data.block_migration:
            data_gib += sum(imagebackend.image_info(path)['virtual-size']
                            for path, _target in local_disks) / GIB
        return CONF.libvirt.live_migration_completion_timeout * data_gib

    def _live_migration_job(self, instance, dest, migrate_data):
        dom = self.host.get_domain(instance)
        inst_dir = self.instance_dir(instance)
        disks = self._disk_targets(dom, instance)
        local_disks = [(path, target) for path, target in disks
                       if os.path.dirname(path) == inst_dir]
        block_migration = migrate_data.block_migration
        uri = self._migration_uri(dest, migrate_data)
        LOG.info('Live migrating %s to %s via %s (%s)', instance.uuid, dest,
                 uri, 'block migration' if block_migration else
                 'shared storage')
        return migration_job.LiveMigrationJob(
            self.host.libvirt, dom, instance, uri,
            self._migration_params(dom, instance, migrate_data, local_disks),
            self._migration_flags(
                migrate_data,
                copies_all_disks=(block_migration and
                                  len(local_disks) == len(disks))),
            timeout=self._completion_timeout(instance, local_disks,
                                             migrate_data),
            timeout_action=CONF.libvirt.live_migration_timeout_action,
            migration=(migrate_data.migration
                       if 'migration' in migrate_data else None))

    def live_migration(self, context, instance, dest, post_method,
                       recover_method, block_migration=False,
                       migrate_data=None):
        """Migrate the running guest to ``dest``; returns when it is over.

        Progress goes onto ``migrate_data.migration`` while the copy
        runs; ``live_migration_abort`` and ``live_migration_force_complete``
        reach the job from other threads meanwhile.
        """
        migrate_data.block_migration = bool(block_migration)
        try:
            job = self._live_migration_job(instance, dest, migrate_data)
        except Exception:
            # Nothing moved yet: the guest runs on here.
            LOG.exception('Live migration of %s to %s could not start',
                          instance.uuid, dest)
            recover_method(context, instance, dest, migrate_data)
            return
        with self._live_migration_jobs_lock:
            self._live_migration_jobs[instance.uuid] = job
        try:
            with timeutils.StopWatch() as watch:
                outcome = job.run()
        finally:
            with self._live_migration_jobs_lock:
                self._live_migration_jobs.pop(instance.uuid, None)
        if outcome == migration_job.COMPLETED:
            LOG.info('Live migration of %s to %s done in %.1f s',
                     instance.uuid, dest, watch.elapsed())
            post_method(context, instance, dest, block_migration,
                        migrate_data)
        elif outcome == migration_job.CANCELLED:
            recover_method(context, instance, dest, migrate_data,
                           migration_status='cancelled')
        else:
            recover_method(context, instance, dest, migrate_data)

    def _job(self, instance):
        with self._live_migration_jobs_lock:
            job = self._live_migration_jobs.get(instance.uuid)
        if job is None:
            raise exception.NoActiveMigrationForInstance(
                instance_id=instance.uuid)
        return job

    def live_migration_abort(self, instance):
        self._job(instance).abort()

    def live_migration_force_complete(self, instance):
        self._job(instance).force_complete()

    def post_live_migration(self, context, instance, block_device_info,
                            migrate_data=None):
        # UNDEFINE_SOURCE took the definition; the files are the
        # destination's copy now unless both hosts share them.
        if not migrate_data.is_shared_instance_path:
            shutil.rmtree(self.instance_dir(instance), ignore_errors=True)

    def post_live_migration_at_source(self, context, instance, network_info):
        self.unplug_vifs(instance, network_info)
