"""This host's compute nodes: their records and their Placement providers.

The periodic update refreshes them from the driver; enabling or disabling
the service tells Placement at once (COMPUTE_STATUS_DISABLED).
"""

from oslo_log import log as logging

from nova_clone.compute import utils as compute_utils
from nova_clone import exception

LOG = logging.getLogger(__name__)


def update_available_resource(collab, context, startup=False):
    """Refresh every node's record and Placement view."""
    try:
        nodenames = set(collab.driver.get_available_nodes())
    except exception.VirtDriverNotReady:
        LOG.info('Virt driver not ready; skipping resource update')
        return
    collab.rt.refresh_service_disabled(context)
    for nodename in nodenames:
        try:
            collab.rt.update_available_resource(context, nodename,
                                                startup=startup)
        except Exception:
            LOG.exception('Error updating resources for node %s', nodename)
    collab.rt.clean_compute_node_cache(nodenames)
    _delete_orphan_compute_nodes(collab, context, nodenames)


def set_host_enabled(collab, context, enabled):
    """Placement learns at once whether this host takes new servers."""
    collab.rt.service_disabled = not enabled
    for nodename in list(collab.rt.compute_nodes):
        _sync_provider_tree(collab, context, nodename)
    return 'enabled' if enabled else 'disabled'


def _sync_provider_tree(collab, context, nodename, attempts=3):
    # Every allocation bumps the provider's generation, so the cached one
    # is often stale: a failed sync drops the cache and the next attempt
    # starts from what Placement has now.
    for attempt in range(1, attempts + 1):
        cn = collab.rt.compute_nodes.get(nodename)
        if cn is None:
            return
        try:
            tree, changed = collab.rt.build_provider_tree(context, cn)
            if changed:
                collab.reportclient.update_from_provider_tree(context, tree)
            return
        except exception.ResourceProviderSyncFailed:
            if attempt == attempts:
                LOG.exception('Could not update the status trait of %s; '
                              'the next update_available_resource run '
                              'will', nodename)
        except Exception:
            LOG.exception('Could not update the status trait of %s',
                          nodename)
            return


def _delete_orphan_compute_nodes(collab, context, nodenames):
    try:
        known = compute_utils._objects().ComputeNodeList.get_all_by_host(
            context, collab.host)
    except exception.NotFound:
        return
    except Exception:
        LOG.debug('Could not list compute nodes of %s', collab.host,
                  exc_info=True)
        return
    for cn in known:
        if cn.hypervisor_hostname in nodenames:
            continue
        LOG.info('Deleting orphan compute node %s (%s)',
                 cn.hypervisor_hostname, cn.uuid)
        try:
            cn.destroy()
            collab.reportclient.delete_resource_provider(context, cn,
                                                         cascade=True)
        except Exception:
            LOG.exception('Could not delete orphan compute node %s',
                          cn.uuid)
