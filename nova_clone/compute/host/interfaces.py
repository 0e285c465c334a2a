"""attach_interface and detach_interface on the instance's compute.

Attach: a port (the one given, or a new one on the network given) is
bound to this host as in a boot, the driver plugs it into the guest and
the compute waits for its network-vif-plugged; the answer (an RPC call)
is the port's VIF.  A failure gives the port back (a new one is deleted,
a given one unbound) and is InterfaceAttachFailed.

Detach: the driver unplugs the port, which is then unbound or deleted
(the ones Nova created); the network info cache drops it.
"""

from oslo_concurrency import lockutils
from oslo_log import log as logging
from oslo_serialization import jsonutils

from nova_clone.compute.host import events as compute_events
from nova_clone.compute.host import network_info as network_cache
from nova_clone.compute import utils as compute_utils
from nova_clone import exception

LOG = logging.getLogger(__name__)


def _port_lock(instance, port_id):
    return lockutils.lock('interface-%s-%s' % (instance.uuid, port_id))


def attach_interface(collab, context, instance, network_id, port_id,
                     requested_ip, tag=None):
    capabilities = collab.driver.capabilities
    if not capabilities.get('supports_attach_interface'):
        raise exception.AttachInterfaceNotSupported(
            instance_uuid=instance.uuid)
    if tag and not capabilities.get('supports_tagged_attach_interface'):
        raise exception.NetworkInterfaceTaggedAttachNotSupported()
    with _port_lock(instance, port_id):
        return _attach(collab, context, instance, network_id, port_id,
                       requested_ip, tag)


def _attach(collab, context, instance, network_id, port_id, requested_ip,
            tag):
    compute_utils.notify_about_instance_action(
        context, instance, collab.host, 'interface_attach', phase='start')
    before = {vif['id'] for vif in network_cache.cached(instance)}
    requested = [] if not (network_id or port_id) else [{
        'network_id': network_id, 'port_id': port_id,
        'address': requested_ip, 'tag': tag}]
    # network-vif-plugged may come as soon as the port is bound.
    collab.instance_events.expect_events_for(instance.uuid)
    try:
        network_info = collab.network_api.allocate_for_instance(
            context, instance, requested, bind_host_id=collab.host)
        new = [vif for vif in network_info
               if vif['id'] == port_id or
               (not port_id and vif['id'] not in before)]
        if len(new) != 1:
            LOG.error('Attach to %s allocated %d ports', instance.uuid,
                      len(new))
            raise exception.InterfaceAttachFailed(
                instance_uuid=instance.uuid)
        vif = new[0]
        try:
            compute_events.plug_and_wait(
                collab, instance, [vif],
                lambda: collab.driver.attach_interface(
                    context, instance, None, vif))
        except exception.NovaException as exc:
            LOG.warning('Attaching port %s to %s failed, giving it back: '
                        '%s', vif['id'], instance.uuid,
                        exc.format_message())
            collab.network_api.deallocate_port_for_instance(
                context, instance, vif['id'])
            compute_utils.notify_about_instance_action(
                context, instance, collab.host, 'interface_attach',
                phase='error', exception=exc)
            raise exception.InterfaceAttachFailed(
                instance_uuid=instance.uuid)
    finally:
        collab.instance_events.clear_events_for_instance(instance.uuid)
    compute_utils.notify_about_instance_action(
        context, instance, collab.host, 'interface_attach', phase='end')
    # Plain data for the RPC reply (the model's classes do not travel).
    return jsonutils.to_primitive(vif)


def detach_interface(collab, context, instance, port_id):
    with _port_lock(instance, port_id):
        vif = next((v for v in network_cache.cached(instance)
                    if v['id'] == port_id), None)
        if vif is None:
            raise exception.PortNotFound(port_id=port_id)
        compute_utils.notify_about_instance_action(
            context, instance, collab.host, 'interface_detach',
            phase='start')
        try:
            collab.driver.detach_interface(context, instance, vif)
        except exception.NovaException as exc:
            LOG.warning('Detaching port %s from %s failed: %s', port_id,
                        instance.uuid, exc.format_message())
            raise exception.InterfaceDetachFailed(
                instance_uuid=instance.uuid)
        collab.network_api.deallocate_port_for_instance(context, instance,
                                                        port_id)
        compute_utils.notify_about_instance_action(
            context, instance, collab.host, 'interface_detach',
            phase='end')
