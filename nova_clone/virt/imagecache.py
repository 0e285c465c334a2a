"""The per-host cache of base images under ``<instances_path>/_base``.

An image is downloaded once per host; later builds from the same image use
the cached file.  Concurrent builds of one image wait for the first
download instead of fetching it again.
"""

import os
import threading

from oslo_utils import uuidutils

from oslo_log import log as logging

from nova_clone.conf import CONF

LOG = logging.getLogger(__name__)

# Keyed by cached file path: computes sharing an instances_path in one
# process (the embedded mode) must not fetch the same image twice at once.
_LOCKS = {}
_LOCKS_GUARD = threading.Lock()


class ImageCache:

    def __init__(self, base_dir=None, download=None):
        self.base_dir = base_dir or os.path.join(CONF.instances_path, '_base')
        # download(context, image_id, dest_path) writes the image bytes.
        self._download = download
        self.downloads = 0

    def _lock_for(self, image_id):
        with _LOCKS_GUARD:
            return _LOCKS.setdefault(self.path_for(image_id),
                                     threading.Lock())

    def path_for(self, image_id):
        return os.path.join(self.base_dir, image_id)

    def is_cached(self, image_id):
        return os.path.exists(self.path_for(image_id))

    def cached_images(self):
        if not os.path.isdir(self.base_dir):
            return []
        return sorted(n for n in os.listdir(self.base_dir)
                      if '.part-' not in n)

    def fetch(self, context, image_id):
        """Path of the cached image, downloading it if absent."""
        path = self.path_for(image_id)
        with self._lock_for(image_id):
            if os.path.exists(path):
                LOG.debug('Image %s found in the image cache', image_id)
                return path
            os.makedirs(self.base_dir, exist_ok=True)
            partial = '%s.part-%s' % (path, uuidutils.generate_uuid())
            try:
                self._download_to(context, image_id, partial)
                # Atomic: a reader never sees a half-written base image.
                os.replace(partial, path)
            finally:
                if os.path.exists(partial):
                    os.unlink(partial)
            self.downloads += 1
            LOG.info('Image %s downloaded into the image cache', image_id)
            return path

    def _download_to(self, context, image_id, dest_path):
        download = self._download
        if download is None:
            from nova_clone.image import glance
            api = glance.API()

            def download(ctx, img, dest):
                api.download(ctx, img, dest_path=dest)
        download(context, image_id, dest_path)
        if not os.path.exists(dest_path):
            # A download function that only streams data still leaves a
            # record that the image is cached.
            open(dest_path, 'wb').close()

    def remove(self, image_id):
        with self._lock_for(image_id):
            try:
                os.unlink(self.path_for(image_id))
                return True
            except FileNotFoundError:
                return False
