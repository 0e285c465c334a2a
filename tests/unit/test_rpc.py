"""RPC plumbing: a context and a versioned object survive a call and a cast.

Uses oslo.messaging's in-process ``fake://`` driver; the same test over
RabbitMQ between two processes lives in tests/integration.
"""

import threading
import uuid

import oslo_messaging as messaging
import pytest
from oslo_context import context as oslo_context

from nova_clone import context as nova_context
from nova_clone import rpc
from nova_clone.objects import base as obj_base
from nova_clone.objects import fields


@obj_base.NovaObjectRegistry.register
class RPCTestWidget(obj_base.NovaObject):
    VERSION = '1.0'
    fields = {'name': fields.StringField(), 'size': fields.IntegerField()}


class _Endpoint:
    target = messaging.Target(version='1.0')

    def __init__(self):
        self.cast_seen = threading.Event()
        self.seen = {}

    def inspect(self, context, widget):
        # The handling thread's logging context is the caller's.
        current = oslo_context.get_current()
        return {'user': context.user_id, 'project': context.project_id,
                'roles': context.roles, 'request_id': context.request_id,
                'global_request_id': context.global_request_id,
                'log_request_id': current.request_id if current else None,
                'widget': widget}

    def fail(self, context):
        from nova_clone import exception
        raise exception.NoValidHost(reason='nothing fits')

    def remember(self, context, widget):
        self.seen = {'request_id': context.request_id, 'widget': widget}
        self.cast_seen.set()


@pytest.fixture
def fake_rpc():
    transport = rpc.create_transport('fake:///')
    topic = 'test-%s' % uuid.uuid4().hex
    endpoint = _Endpoint()
    server = rpc.get_server(messaging.Target(topic=topic, server='h1'),
                            [endpoint], transport=transport)
    server.start()
    client = rpc.get_client(messaging.Target(topic=topic, version='1.0'),
                            transport=transport)
    yield client.prepare(server='h1'), endpoint
    server.stop()
    server.wait()
    transport.cleanup()


def _ctx():
    return nova_context.RequestContext(
        user_id='alice', project_id='proj', roles=['member'],
        request_id='req-%s' % uuid.uuid4(),
        global_request_id='req-%s' % uuid.uuid4())


def test_call_carries_context_and_object(fake_rpc):
    client, _ = fake_rpc
    ctx = _ctx()
    widget = RPCTestWidget(name='w', size=3)
    reply = client.call(ctx, 'inspect', widget=widget)
    assert reply['user'] == 'alice'
    assert reply['project'] == 'proj'
    assert reply['roles'] == ['member']
    assert reply['request_id'] == ctx.request_id
    assert reply['global_request_id'] == ctx.global_request_id
    assert reply['log_request_id'] == ctx.request_id
    assert isinstance(reply['widget'], RPCTestWidget)
    assert (reply['widget'].name, reply['widget'].size) == ('w', 3)


def test_cast_arrives(fake_rpc):
    client, endpoint = fake_rpc
    ctx = _ctx()
    client.cast(ctx, 'remember', widget=RPCTestWidget(name='c', size=1))
    assert endpoint.cast_seen.wait(5)
    assert endpoint.seen['request_id'] == ctx.request_id
    assert endpoint.seen['widget'].name == 'c'


def test_callee_exception_arrives_as_its_own_class(fake_rpc):
    from nova_clone import exception
    client, _ = fake_rpc
    with pytest.raises(exception.NoValidHost) as info:
        client.call(_ctx(), 'fail')
    assert 'No valid host was found. nothing fits' in str(info.value)


@pytest.mark.parametrize('drivers, expected', [
    ([], False), (['noop'], False), (['messagingv2'], True),
    (['noop', 'log'], True)])
def test_notifications_are_built_only_for_a_real_driver(drivers, expected):
    # oslo.messaging's Notifier.is_enabled() says True for an empty driver
    # list; the compute would build every payload for nothing.
    from oslo_config import cfg
    conf = cfg.ConfigOpts()
    conf([])
    transport = messaging.get_notification_transport(conf, url='fake:///')
    conf.set_override('driver', drivers, group='oslo_messaging_notifications')
    assert rpc.make_notifier(transport, conf).is_enabled() is expected
