"""Volumes of the libvirt driver (a mixin of LibvirtDriver).

Only file-backed volumes are handled: connection_info with
``driver_volume_type: file`` and ``data.device_path`` (the Cinder
stand-in's backing files), attached as raw virtio disks, live and in the
persistent definition.
"""

import os
import time
import xml.etree.ElementTree as ET

from oslo_log import log as logging

from nova_clone.conf import CONF
from nova_clone import exception
from nova_clone.virt.libvirt import config as vconfig
from nova_clone.virt.libvirt import utils

LOG = logging.getLogger(__name__)


class VolumeMixin:

    def _volume_disk(self, connection_info, target_dev):
        driver_type = (connection_info or {}).get('driver_volume_type')
        if driver_type != 'file':
            raise exception.VolumeDriverNotFound(driver_type=driver_type)
        data = connection_info.get('data') or {}
        path = data.get('device_path')
        if not path or not os.path.exists(path):
            raise exception.DiskNotFound(location=path)
        return vconfig.GuestDisk(
            source_path=path, target_dev=target_dev, driver_format='raw',
            driver_cache=self._disk_cache_mode or 'none',
            serial=data.get('volume_id') or connection_info.get('serial'),
            readonly=data.get('access_mode') == 'ro')

    # -- volumes ---------------------------------------------------------

    def get_volume_connector(self, instance):
        return {'ip': CONF.my_ip, 'host': CONF.host, 'platform': 'x86_64',
                'os_type': 'linux', 'multipath': False}

    def attach_volume(self, context, connection_info, instance, mountpoint,
                      disk_bus=None, device_type=None, encryption=None):
        dom = self.host.get_domain(instance)
        target = utils.device_name(mountpoint)
        if not target:
            raise exception.InvalidVolume(
                reason='no mountpoint for the volume')
        disk = self._volume_disk(connection_info, target)
        if disk_bus:
            disk.target_bus = disk_bus
        libvirt = self.host.libvirt
        try:
            dom.attachDeviceFlags(disk.to_xml(),
                                  self._live_config_flags(dom))
        except libvirt.libvirtError as exc:
            raise exception.InternalError(
                err='Attaching %s to %s failed: %s' %
                    (mountpoint, instance.uuid, exc.get_error_message()))
        LOG.info('Volume at %s attached to %s', mountpoint, instance.uuid)

    def detach_volume(self, context, connection_info, instance, mountpoint,
                      encryption=None):
        target = utils.device_name(mountpoint)
        try:
            dom = self.host.get_domain(instance)
        except exception.InstanceNotFound:
            LOG.info('Guest %s is gone; nothing to detach', instance.uuid)
            return
        libvirt = self.host.libvirt
        if dom.isActive():
            self._detach_live(instance, dom, target)
        persistent = dom.XMLDesc(libvirt.VIR_DOMAIN_XML_INACTIVE)
        disk = vconfig.find_disk(persistent, target)
        if disk is not None:
            dom.detachDeviceFlags(ET.tostring(disk, encoding='unicode'),
                                  libvirt.VIR_DOMAIN_AFFECT_CONFIG)
        LOG.info('Volume at %s detached from %s', mountpoint, instance.uuid)

    def _detach_live(self, instance, dom, target):
        """Ask the guest to release a disk until it is gone from it."""
        libvirt = self.host.libvirt
        attempts = CONF.libvirt.device_detach_attempts
        wait = CONF.libvirt.device_detach_timeout / attempts
        for _ in range(attempts):
            disk = vconfig.find_disk(dom.XMLDesc(0), target)
            if disk is None:
                return
            try:
                dom.detachDeviceFlags(ET.tostring(disk, encoding='unicode'),
                                      libvirt.VIR_DOMAIN_AFFECT_LIVE)
            except libvirt.libvirtError as exc:
                # A detach already in flight is reported as an error;
                # keep waiting for the guest either way.
                LOG.debug('Live detach of %s from %s: %s', target,
                          instance.uuid, exc.get_error_message())
            deadline = time.monotonic() + wait
            while time.monotonic() < deadline:
                if vconfig.find_disk(dom.XMLDesc(0), target) is None:
                    return
                time.sleep(0.2)
        raise exception.DeviceDetachFailed(
            device=target, reason='the guest did not release it within '
                                  '%s s' % CONF.libvirt.device_detach_timeout)
