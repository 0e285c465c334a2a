"""Image pre-caching (POST /os-aggregates/{id}/images, 2.81): fetch the
images a conductor asks for into this host's image cache."""

from oslo_log import log as logging

LOG = logging.getLogger(__name__)


def cache_images(driver, context, image_ids):
    """{image_id: 'cached' | 'existing' | 'error' | 'unsupported'}."""
    results = {}
    for image_id in image_ids:
        try:
            fetched = driver.cache_image(context, image_id)
        except NotImplementedError:
            results[image_id] = 'unsupported'
            continue
        except Exception:
            LOG.exception('Could not cache image %s', image_id)
            results[image_id] = 'error'
            continue
        results[image_id] = 'cached' if fetched else 'existing'
    LOG.info('Image pre-cache done: %s', results)
    return results
