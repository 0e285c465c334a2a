"""Image pre-caching on the hosts of an aggregate (2.81).

The API casts ``cache_images`` here; each host of the aggregate is asked in
turn (Nova's default ``precache_concurrency`` of one) to fetch the images
into its cache.  A host that is down or fails is logged and skipped: the
others still get the images.
"""

from oslo_log import log as logging

from nova_clone import context as nova_context
from nova_clone import exception
from nova_clone import objects

LOG = logging.getLogger(__name__)


def cache_images(manager, context, aggregate, image_ids):
    summary = {}
    for host in aggregate.hosts or []:
        try:
            cell = objects.HostMapping.get_by_host(context, host).cell_mapping
        except exception.HostMappingNotFound:
            LOG.warning('Not caching images on %s: it has no cell mapping',
                        host)
            continue
        with nova_context.target_cell(context, cell) as cctxt:
            try:
                summary[host] = manager.compute_rpcapi.cache_images(
                    cctxt, host, image_ids)
            except Exception:
                LOG.exception('Could not cache images on %s', host)
    LOG.info('Image pre-cache of aggregate %s: %s', aggregate.uuid, summary)
    return summary
