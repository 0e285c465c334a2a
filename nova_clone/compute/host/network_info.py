"""The network info cache of an instance, as the compute flows keep it.

The build stores the ports it bound, a delete empties the cache, an
external event drops a deleted port.  Most writes ride on the instance's
next save() (one conductor round trip fewer); ``save`` writes now.
"""

from oslo_log import log as logging
from oslo_serialization import jsonutils

from nova_clone import exception
from nova_clone.network import model as network_model

LOG = logging.getLogger(__name__)


def cached(instance):
    """The VIFs in the instance's info cache, as a list."""
    info_cache = getattr(instance, 'info_cache', None)
    network_info = getattr(info_cache, 'network_info', None) if info_cache \
        else None
    if network_info is None:
        return []
    if isinstance(network_info, str):
        return jsonutils.loads(network_info)
    return list(network_info)


def set_unsaved(instance, network_info):
    """Put ``network_info`` in the instance's info cache, unsaved: the
    instance's next save() stores it."""
    info_cache = getattr(instance, 'info_cache', None)
    if info_cache is not None:
        info_cache.network_info = network_model.NetworkInfo.hydrate(
            network_info)


def save(instance, network_info):
    """Write ``network_info`` to the info cache now (if it changed)."""
    info_cache = getattr(instance, 'info_cache', None)
    if info_cache is None:
        return
    # The Neutron client usually saved it already: skip a needless write.
    if [dict(v) for v in cached(instance)] == \
            [dict(v) for v in network_info or []]:
        return
    try:
        info_cache.network_info = network_model.NetworkInfo.hydrate(
            network_info)
        info_cache.save()
    except exception.NotFound:
        # The instance is gone: the caller decides what that means.
        raise
    except Exception:
        LOG.warning('Could not save the network info cache of %s',
                    instance.uuid, exc_info=True)
