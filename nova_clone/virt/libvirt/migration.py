"""Live migration for the libvirt driver (a mixin of LibvirtDriver).

The calls follow Nova's sequence: the destination checks and answers
with migrate data, the source checks, the destination prepares disks,
the source migrates peer-to-peer, then each side finishes.  migrate data
here is a plain dict:

  block_migration          copy the local disks (NON_SHARED_INC)
  is_shared_instance_path  source and destination see the same files
  dest_connection_uri      the destination's libvirt URI
  dest_instances_path      the destination's instances_path
  check_file               name of a file that proves a shared path
  image_id, root_disk_size the root disk the destination recreates

Storage that is shared but not a cluster file system (same path on one
machine, NFS-less test hosts) needs VIR_MIGRATE_UNSAFE, which libvirt
otherwise refuses; the shared-path check above is what makes it safe.
"""

import os
import tempfile
import threading
import urllib.parse

from oslo_log import log as logging
from oslo_utils import timeutils

from nova_clone.conf import CONF
from nova_clone import exception
from nova_clone.virt.libvirt import imagebackend

LOG = logging.getLogger(__name__)


def _md(migrate_data, key, default=None):
    if migrate_data is None:
        return default
    if isinstance(migrate_data, dict):
        return migrate_data.get(key, default)
    return getattr(migrate_data, key, default)


class LiveMigrationMixin:

    # -- checks --------------------------------------------------------

    def check_can_live_migrate_destination(self, context, instance,
                                           src_compute_info, dst_compute_info,
                                           block_migration=False,
                                           disk_over_commit=False):
        fd, path = tempfile.mkstemp(dir=self.instances_path,
                                    prefix='.migrate-check-')
        os.close(fd)
        return {'block_migration': bool(block_migration),
                'dest_connection_uri': self.host.uri,
                'dest_instances_path': self.instances_path,
                'check_file': os.path.basename(path)}

    def cleanup_live_migration_destination_check(self, context,
                                                 dest_check_data):
        name = _md(dest_check_data, 'check_file')
        if name:
            try:
                os.unlink(os.path.join(self.instances_path, name))
            except FileNotFoundError:
                pass

    def check_can_live_migrate_source(self, context, instance,
                                      dest_check_data, block_device_info=None):
        data = dict(dest_check_data)
        # The destination left a file in its instances_path: seeing it
        # in ours means both hosts share that directory.
        name = _md(data, 'check_file')
        shared = bool(name) and os.path.exists(
            os.path.join(self.instances_path, name))
        data['is_shared_instance_path'] = shared
        if data['block_migration'] and shared:
            raise exception.InvalidLocalStorage(
                path=self.instances_path,
                reason='block migration needs distinct instance paths, '
                       'but the destination shares this one')
        if not data['block_migration'] and not shared:
            raise exception.InvalidSharedStorage(
                path=self.instances_path,
                reason='the destination does not share the instance path; '
                       'use block migration')
        self.host.get_domain(instance)
        data['image_id'] = instance.image_ref
        disk = os.path.join(self.instance_dir(instance), 'disk')
        if os.path.exists(disk):
            data['root_disk_size'] = imagebackend.image_info(
                disk)['virtual-size']
        return data

    # -- destination ---------------------------------------------------

    def pre_live_migration(self, context, instance, block_device_info,
                           network_info, disk_info, migrate_data):
        if _md(migrate_data, 'is_shared_instance_path'):
            return migrate_data
        inst_dir = self.instance_dir(instance)
        os.makedirs(inst_dir, exist_ok=True)
        image_id = _md(migrate_data, 'image_id') or instance.image_ref
        if image_id:
            # Same base image here, so only the overlay travels.
            disk = os.path.join(inst_dir, 'disk')
            if not os.path.exists(disk):
                base = self.image_cache.fetch(context, image_id)
                size = _md(migrate_data, 'root_disk_size')
                imagebackend.create_overlay(base, disk, size)
        self._boot_files(context, instance, {}, inst_dir)
        return migrate_data

    def post_live_migration_at_destination(self, context, instance,
                                           network_info,
                                           block_migration=False,
                                           block_device_info=None):
        # PERSIST_DEST already defined the guest here.
        self.host.get_domain(instance)
        LOG.info('Guest %s now runs here', instance.uuid)

    def rollback_live_migration_at_destination(self, context, instance,
                                               network_info,
                                               block_device_info,
                                               destroy_disks=True,
                                               migrate_data=None):
        shared = _md(migrate_data, 'is_shared_instance_path')
        self.destroy(context, instance, network_info, block_device_info,
                     destroy_disks=destroy_disks and not shared)

    # -- source --------------------------------------------------------

    def _migration_uri(self, dest, migrate_data):
        configured = CONF.libvirt.live_migration_uri
        if configured:
            return configured % dest if '%s' in configured else configured
        uri = _md(migrate_data, 'dest_connection_uri') or ''
        # A URI with an explicit socket names a daemon on this very
        # machine, one with a host part a reachable remote daemon; a
        # plain local URI means nothing from here.
        if 'socket=' in uri or urllib.parse.urlsplit(uri).netloc:
            return uri
        scheme = CONF.libvirt.live_migration_scheme or 'tcp'
        return 'qemu+%s://%s/system' % (scheme, dest)

    def _migration_flags(self, block_migration, shared):
        libvirt = self.host.libvirt
        flags = (libvirt.VIR_MIGRATE_LIVE | libvirt.VIR_MIGRATE_PEER2PEER |
                 libvirt.VIR_MIGRATE_PERSIST_DEST |
                 libvirt.VIR_MIGRATE_UNDEFINE_SOURCE)
        if block_migration:
            flags |= libvirt.VIR_MIGRATE_NON_SHARED_INC
        elif shared:
            flags |= libvirt.VIR_MIGRATE_UNSAFE
        return flags

    def _migration_params(self, dom, instance, block_migration,
                          migrate_data):
        libvirt = self.host.libvirt
        params = {}
        dest_path = _md(migrate_data, 'dest_instances_path')
        if block_migration:
            params[libvirt.VIR_MIGRATE_PARAM_MIGRATE_DISKS] = ['vda']
            if dest_path and dest_path != self.instances_path:
                # The guest's files live under another directory there.
                xml = dom.XMLDesc(libvirt.VIR_DOMAIN_XML_MIGRATABLE)
                params[libvirt.VIR_MIGRATE_PARAM_DEST_XML] = xml.replace(
                    self.instance_dir(instance),
                    os.path.join(dest_path, instance.uuid))
        return params

    def live_migration(self, context, instance, dest, post_method,
                       recover_method, block_migration=False,
                       migrate_data=None):
        libvirt = self.host.libvirt
        dom = self.host.get_domain(instance)
        shared = _md(migrate_data, 'is_shared_instance_path')
        uri = self._migration_uri(dest, migrate_data)
        flags = self._migration_flags(block_migration, shared)
        params = self._migration_params(dom, instance, block_migration,
                                        migrate_data)
        memory_gib = max(1, dom.info()[1] // (1024 * 1024) + 1)
        timeout = CONF.libvirt.live_migration_completion_timeout * memory_gib
        watchdog = None
        if timeout:
            watchdog = threading.Timer(timeout, self._abort_job,
                                       (dom, instance, timeout))
            watchdog.daemon = True
            watchdog.start()
        LOG.info('Live migrating %s to %s (%s)', instance.uuid, uri,
                 'block' if block_migration else 'shared storage')
        try:
            with timeutils.StopWatch() as watch:
                dom.migrateToURI3(uri, params, flags)
        except libvirt.libvirtError as exc:
            LOG.error('Live migration of %s to %s failed: %s',
                      instance.uuid, dest, exc.get_error_message())
            recover_method(context, instance, dest, migrate_data)
            return
        finally:
            if watchdog is not None:
                watchdog.cancel()
        LOG.info('Live migration of %s to %s done in %.1f s', instance.uuid,
                 dest, watch.elapsed())
        post_method(context, instance, dest, block_migration, migrate_data)

    def _abort_job(self, dom, instance, timeout):
        LOG.warning('Live migration of %s exceeded %s s; aborting',
                    instance.uuid, timeout)
        try:
            dom.abortJob()
        except self.host.libvirt.libvirtError as exc:
            LOG.warning('Abort of %s failed: %s', instance.uuid, exc)

    def live_migration_abort(self, instance):
        self.host.get_domain(instance).abortJob()

    def post_live_migration_at_source(self, context, instance, network_info):
        self.unplug_vifs(instance, network_info)
