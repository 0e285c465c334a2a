"""Instance disks: raw base images in ``_base`` plus per-instance overlays.

Base images are cached under ``<instances_path>/_base/<sha1 of image id>``
(Nova's naming), always converted to raw once so every overlay can share
them; each instance gets a qcow2 overlay backed by its base.
"""

import hashlib
import json
import os

from oslo_concurrency import processutils
from oslo_log import log as logging

from nova_clone import exception
from nova_clone.virt import imagecache

LOG = logging.getLogger(__name__)


def qemu_img(*args):
    try:
        out, _err = processutils.execute('qemu-img', *args)
    except processutils.ProcessExecutionError as exc:
        raise exception.InternalError(
            err='qemu-img %s failed: %s' % (args[0], exc.stderr.strip()))
    except OSError as exc:
        raise exception.InternalError(
            err='qemu-img is not available: %s' % exc)
    return out


def image_info(path):
    """qemu-img's view of a file: format, virtual size, backing file."""
    return json.loads(qemu_img('info', '--output=json', '-U', path))


def describe(path):
    """One entry of the disk_info a host hands to another for a move:
    format, path, sizes and the name of the base image it is backed by."""
    info = image_info(path)
    return {'type': info['format'], 'path': path,
            'virt_disk_size': info['virtual-size'],
            'disk_size': info.get('actual-size'),
            'backing_file': os.path.basename(
                info.get('backing-filename') or '')}


def create_overlay(base_path, path, size_bytes=None, base_format='raw'):
    """A qcow2 file at ``path`` backed by ``base_path``.

    ``size_bytes`` grows the virtual disk beyond the base (the flavor's
    root disk); it never shrinks it.
    """
    args = ['create', '-f', 'qcow2', '-F', base_format, '-b', base_path,
            path]
    base_size = image_info(base_path)['virtual-size']
    if size_bytes and size_bytes > base_size:
        args.append(str(size_bytes))
    qemu_img(*args)


def create_blank(path, size_bytes, fmt='qcow2'):
    qemu_img('create', '-f', fmt, path, str(size_bytes))


def rebase(path, base_path, base_format='raw'):
    """Point the overlay at ``path`` to ``base_path``, a copy of the
    base it was made on (so no data moves: an unsafe rebase)."""
    qemu_img('rebase', '-u', '-F', base_format, '-b', base_path, path)


def grow(path, size_bytes):
    """Grow the virtual disk at ``path`` to ``size_bytes``; a disk that
    is as large already is left alone (disks never shrink)."""
    if size_bytes > image_info(path)['virtual-size']:
        qemu_img('resize', path, str(size_bytes))


class ImageCache(imagecache.ImageCache):
    """The host's image cache, holding raw images named by sha1."""

    def path_for(self, image_id):
        return os.path.join(self.base_dir,
                            hashlib.sha1(image_id.encode()).hexdigest())

    def _download_to(self, context, image_id, dest_path):
        super()._download_to(context, image_id, dest_path)
        self._make_raw(image_id, dest_path)

    @staticmethod
    def _make_raw(image_id, path):
        """Convert a freshly downloaded image to raw, in place."""
        try:
            fmt = image_info(path).get('format')
        except exception.InternalError as exc:
            raise exception.ImageUnacceptable(image_id=image_id,
                                              reason=exc.format_message())
        if fmt == 'raw':
            return
        LOG.info('Converting image %s from %s to raw', image_id, fmt)
        converted = path + '.converted'
        try:
            qemu_img('convert', '-f', fmt, '-O', 'raw', path, converted)
            os.replace(converted, path)
        except exception.InternalError as exc:
            raise exception.ImageUnacceptable(image_id=image_id,
                                              reason=exc.format_message())
        finally:
            if os.path.exists(converted):
                os.unlink(converted)
