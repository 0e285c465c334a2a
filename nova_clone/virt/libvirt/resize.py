"""The files of resize and cold migration (no libvirt calls here).

The source moves the stopped guest's instance directory aside to
``<uuid>_resize``: that directory is the backup a revert moves back and a
confirm deletes.  disk_info, which the compute manager carries from the
source to the destination, lists the local disks with their paths inside
that backup; the destination copies them into its own instance directory.

So the destination reads the source's files by path: the hosts must see
each other's instances_path, as the computes of one machine (each with
its own directory and libvirtd) or hosts sharing a mount do.  Nothing
here copies over the network; a path the destination cannot read fails
the move with DiskNotFound naming it.
"""

import os
import shutil
import xml.etree.ElementTree as ET

from oslo_log import log as logging

from nova_clone import exception
from nova_clone.virt.libvirt import imagebackend

LOG = logging.getLogger(__name__)

BACKUP_SUFFIX = '_resize'


def backup_dir(inst_dir):
    return inst_dir + BACKUP_SUFFIX


def local_disk_names(domain_xml, inst_dir):
    """File names of the domain's disks kept in ``inst_dir`` (volumes,
    which live elsewhere, are the volume service's to move)."""
    names = []
    for source in ET.fromstring(domain_xml).findall('./devices/disk/source'):
        path = source.get('file')
        if path and os.path.dirname(path) == inst_dir:
            names.append(os.path.basename(path))
    return names


def move_aside(inst_dir, disk_names):
    """Rename ``inst_dir`` to its backup; return disk_info (a list)."""
    backup = backup_dir(inst_dir)
    if not os.path.isdir(inst_dir):
        raise exception.DiskNotFound(location=inst_dir)
    if os.path.exists(backup):
        # From a move neither confirmed nor reverted; the guest has run
        # from inst_dir since, so that backup is stale.
        LOG.warning('Removing stale %s', backup)
        shutil.rmtree(backup)
    os.rename(inst_dir, backup)
    return [imagebackend.describe(os.path.join(backup, name))
            for name in disk_names]


def copy_disks(disk_info, inst_dir):
    """Copy the disks of ``disk_info`` into ``inst_dir``; return the
    new paths."""
    os.makedirs(inst_dir, exist_ok=True)
    paths = []
    for entry in disk_info:
        source = entry['path']
        if not os.path.isfile(source):
            raise exception.DiskNotFound(location=source)
        dest = os.path.join(inst_dir, os.path.basename(source))
        shutil.copyfile(source, dest)
        paths.append(dest)
    LOG.info('Copied %d disk(s) into %s', len(paths), inst_dir)
    return paths


def restore(inst_dir):
    """Put the backup back in place of ``inst_dir``; False if there was
    none (the move failed before the source moved its files)."""
    backup = backup_dir(inst_dir)
    if not os.path.isdir(backup):
        return False
    # A same-host move leaves the new guest's files here.
    shutil.rmtree(inst_dir, ignore_errors=True)
    os.rename(backup, inst_dir)
    return True


def remove_backup(inst_dir):
    shutil.rmtree(backup_dir(inst_dir), ignore_errors=True)
