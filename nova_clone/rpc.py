"""oslo.messaging plumbing: transports, clients, servers and notifiers.

The API-level transport comes from ``[DEFAULT] transport_url``; each cell
has its own, from its cell mapping, and a context targeted at a cell
(``context.target_cell``) routes compute RPC to that cell's queue.  Every
message carries the serialized RequestContext, so the request id follows the
work into every service's log.
"""

import oslo_messaging as messaging
from oslo_log import log as logging
from oslo_serialization import jsonutils

from nova_clone.conf import CONF
from nova_clone import context as nova_context

LOG = logging.getLogger(__name__)

TRANSPORT = None
NOTIFICATION_TRANSPORT = None
NOTIFIER = None

# The default exchange, as Nova names it, so a Nova-configured RabbitMQ
# vhost sees the same queues.
messaging.set_transport_defaults(control_exchange='nova')

# Exceptions raised by a callee are rebuilt as these classes by the caller
# (NoValidHost stays NoValidHost), instead of arriving as RemoteError.
ALLOWED_EXMODS = ['nova_clone.exception']


def init(conf=CONF):
    """Create the process-wide transports; idempotent."""
    global TRANSPORT, NOTIFICATION_TRANSPORT, NOTIFIER
    if TRANSPORT is not None:
        return
    TRANSPORT = create_transport(None, conf)
    NOTIFICATION_TRANSPORT = messaging.get_notification_transport(
        conf, allowed_remote_exmods=ALLOWED_EXMODS)
    NOTIFIER = make_notifier(NOTIFICATION_TRANSPORT, conf)


def make_notifier(transport, conf=CONF):
    """The versioned-notification Notifier.  No driver configured means
    noop: Notifier.is_enabled() says True for an empty driver list, and
    the compute would build every payload to send it nowhere."""
    configured = conf.oslo_messaging_notifications.driver
    return messaging.Notifier(
        transport, serializer=RequestContextSerializer(_object_serializer()),
        driver=None if configured else 'noop',
        topics=['versioned_notifications'])


def cleanup():
    global TRANSPORT, NOTIFICATION_TRANSPORT, NOTIFIER
    for transport in (TRANSPORT, NOTIFICATION_TRANSPORT):
        if transport is not None:
            transport.cleanup()
    TRANSPORT = NOTIFICATION_TRANSPORT = NOTIFIER = None


def create_transport(url, conf=CONF):
    """A transport for ``url`` (None = [DEFAULT] transport_url)."""
    if url and TRANSPORT is not None and url == conf.transport_url:
        return TRANSPORT
    return messaging.get_rpc_transport(conf, url=url,
                                       allowed_remote_exmods=ALLOWED_EXMODS)


def _object_serializer():
    from nova_clone.objects import base as objects_base
    return objects_base.NovaObjectSerializer()


class RequestContextSerializer(messaging.Serializer):
    """Carries a RequestContext and versioned objects across RPC."""

    def __init__(self, base=None):
        self._base = base

    def serialize_entity(self, context, entity):
        if self._base is None:
            return jsonutils.to_primitive(entity, convert_instances=True)
        return self._base.serialize_entity(context, entity)

    def deserialize_entity(self, context, entity):
        if self._base is None:
            return entity
        return self._base.deserialize_entity(context, entity)

    def serialize_context(self, context):
        return context.to_dict()

    def deserialize_context(self, context):
        ctx = nova_context.RequestContext.from_dict(context)
        # Log lines of the handling thread carry the caller's request id.
        ctx.update_store()
        return ctx


def get_transport_for(context):
    """The transport a context is targeted at, else the default one."""
    return getattr(context, 'mq_connection', None) or TRANSPORT


def get_client(target, version_cap=None, serializer=None, transport=None,
               call_monitor_timeout=None):
    if TRANSPORT is None and transport is None:
        init()
    serializer = RequestContextSerializer(
        serializer or _object_serializer())
    return messaging.get_rpc_client(
        transport or TRANSPORT, target, version_cap=version_cap,
        serializer=serializer, call_monitor_timeout=call_monitor_timeout)


def get_server(target, endpoints, serializer=None, transport=None):
    if TRANSPORT is None and transport is None:
        init()
    serializer = RequestContextSerializer(
        serializer or _object_serializer())
    access_policy = messaging.DefaultRPCAccessPolicy
    return messaging.get_rpc_server(
        transport or TRANSPORT, target, endpoints, executor='threading',
        serializer=serializer, access_policy=access_policy)


class ClientRouter:
    """Prepares a client on the transport of the context's target cell."""

    def __init__(self, default_client):
        self.default_client = default_client
        self._target = default_client.target
        self._version_cap = default_client.version_cap
        self._serializer = default_client.serializer
        self._clients = {}

    def client(self, context):
        transport = getattr(context, 'mq_connection', None)
        if transport is None or transport is TRANSPORT:
            return self.default_client
        client = self._clients.get(id(transport))
        if client is None:
            client = messaging.get_rpc_client(
                transport, self._target, version_cap=self._version_cap,
                serializer=self._serializer)
            self._clients[id(transport)] = client
        return client


def notifications_enabled():
    """False when [oslo_messaging_notifications] names no driver but noop."""
    if NOTIFIER is None:
        init()
    return NOTIFIER.is_enabled()


def get_notifier(service, host=None):
    if NOTIFIER is None:
        init()
    publisher_id = '%s:%s' % (service, host or CONF.host)
    return NOTIFIER.prepare(publisher_id=publisher_id)
