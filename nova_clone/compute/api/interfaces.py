"""The API side of /servers/{id}/os-interface: attach and detach a port.

Attach is an RPC call to the instance's compute, which answers with the
port's VIF once it is bound and plugged; detach is a cast.  Each records
its instance action.
"""

from oslo_serialization import jsonutils

from nova_clone.compute import instance_actions
from nova_clone import exception


def _objects():
    from nova_clone import objects
    return objects


def _attached_port_ids(instance):
    """The ports in the server's network info cache."""
    network_info = instance.info_cache.network_info if \
        instance.info_cache is not None else None
    if isinstance(network_info, str):
        network_info = jsonutils.loads(network_info)
    return {vif['id'] for vif in network_info or []}


def attach_interface(compute_api, context, instance, network_id, port_id,
                     requested_ip, tag=None):
    _objects().InstanceAction.action_start(
        context, instance.uuid, instance_actions.ATTACH_INTERFACE,
        want_result=False)
    return compute_api.compute_rpcapi.attach_interface(
        context, instance, network_id=network_id, port_id=port_id,
        requested_ip=requested_ip, tag=tag)


def detach_interface(compute_api, context, instance, port_id):
    if port_id not in _attached_port_ids(instance):
        raise exception.PortNotFound(port_id=port_id)
    _objects().InstanceAction.action_start(
        context, instance.uuid, instance_actions.DETACH_INTERFACE,
        want_result=False)
    compute_api.compute_rpcapi.detach_interface(context, instance,
                                                port_id=port_id)
