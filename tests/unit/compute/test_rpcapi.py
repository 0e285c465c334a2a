"""The compute RPC client: topics, servers, casts and cell routing.

Messages go through oslo.messaging's in-process ``fake://`` driver to real
RPC servers, so what arrives is what a nova-compute would receive.  The
fake driver's exchanges are process-wide, so each transport here gets its
own exchange (and is never cleaned up: that would clear everyone's).
"""

import importlib
import queue

from oslo_config import cfg
import oslo_messaging as messaging
from oslo_utils import uuidutils
import pytest

from nova_clone.compute import rpcapi
from nova_clone import context as nova_context
from nova_clone.objects import instance as instance_obj
from nova_clone import rpc

UUID = '4c2e4f9e-7a4b-4d5e-9a57-0123456789ab'


class Endpoint:
    target = messaging.Target(version='6.5')

    def __init__(self, topic, received):
        self.topic = topic
        self.received = received

    def build_and_run_instance(self, context, instance, **kwargs):
        self.received.put((self.topic, 'build_and_run_instance', instance,
                           kwargs, context))

    def terminate_instance(self, context, instance, bdms):
        self.received.put((self.topic, 'terminate_instance', instance,
                           {'bdms': bdms}, context))

    def set_host_enabled(self, context, enabled):
        return '%s on %s' % ('enabled' if enabled else 'disabled',
                             self.topic)

    def external_instance_event(self, context, instances, events):
        self.received.put((self.topic, 'external_instance_event',
                           instances, {'events': events}, context))

    def _move_step(name):
        def step(self, context, instance, migration, **kwargs):
            self.received.put((self.topic, name, instance,
                               dict(kwargs, migration=migration), context))
        return step

    prep_resize = _move_step('prep_resize')
    resize_instance = _move_step('resize_instance')
    finish_resize = _move_step('finish_resize')
    confirm_resize = _move_step('confirm_resize')
    revert_resize = _move_step('revert_resize')
    finish_revert_resize = _move_step('finish_revert_resize')

    # Live migration: the calls answer with the topic they came on.

    def check_can_live_migrate_destination(self, context, instance,
                                           **kwargs):
        return self.topic

    def pre_live_migration(self, context, instance, disk, migrate_data):
        return self.topic

    def post_live_migration_at_destination(self, context, instance,
                                           block_migration):
        return self.topic

    def live_migration(self, context, instance, **kwargs):
        self.received.put((self.topic, 'live_migration', instance, kwargs,
                           context))


# What oslo.messaging's own ConfFixture registers on a fresh ConfigOpts.
_MESSAGING_OPTS = [
    ('oslo_messaging.rpc.client', '_client_opts', None),
    ('oslo_messaging.transport', '_transport_opts', None),
    ('oslo_messaging.rpc.dispatcher', '_dispatcher_opts', None),
    ('oslo_messaging._metrics.client', 'oslo_messaging_metrics',
     'oslo_messaging_metrics'),
    ('oslo_messaging._tracing.client', 'oslo_messaging_tracing',
     'oslo_messaging_tracing'),
]


def _private_transport():
    conf = cfg.ConfigOpts()
    for module, attr, group in _MESSAGING_OPTS:
        conf.register_opts(getattr(importlib.import_module(module), attr),
                           group=group)
    conf([])
    conf.set_override('control_exchange',
                      'nc_compute_%s' % uuidutils.generate_uuid()[:12])
    return messaging.get_rpc_transport(conf, url='fake://')


@pytest.fixture
def transport(monkeypatch):
    tr = _private_transport()
    monkeypatch.setattr(rpc, 'TRANSPORT', tr)
    rpcapi.reset_compute_rpcapi()
    yield tr
    rpcapi.reset_compute_rpcapi()


def _serve(transport, host, received):
    servers = []
    for topic in (rpcapi.RPC_TOPIC, rpcapi.RPC_TOPIC_ALT):
        server = rpc.get_server(messaging.Target(topic=topic, server=host),
                                [Endpoint(topic, received)],
                                transport=transport)
        server.start()
        servers.append(server)
    return servers


def _stop(servers):
    for server in servers:
        server.stop()
        server.wait()


def _ctxt():
    return nova_context.RequestContext(user_id='u', project_id='p',
                                       request_id='req-compute-rpc-test')


def _instance(host='h1'):
    return instance_obj.Instance(uuid=UUID, host=host)


def test_build_is_cast_to_the_chosen_host(transport):
    received = queue.Queue()
    servers = _serve(transport, 'h1', received) + \
        _serve(transport, 'h2', queue.Queue())
    try:
        rpcapi.get_compute_rpcapi().build_and_run_instance(
            _ctxt(), _instance(host='h1'), 'h1', {'id': 'img'}, None,
            {'retry': {'num_attempts': 1}}, node='h1',
            host_list=[], block_device_mapping=[])
        topic, method, inst, kwargs, ctxt = received.get(timeout=5)
    finally:
        _stop(servers)
    assert (topic, method) == ('compute', 'build_and_run_instance')
    assert isinstance(inst, instance_obj.Instance) and inst.uuid == UUID
    assert kwargs['filter_properties'] == {'retry': {'num_attempts': 1}}
    assert kwargs['image'] == {'id': 'img'} and kwargs['node'] == 'h1'
    assert ctxt.request_id == 'req-compute-rpc-test'


def test_terminate_goes_to_the_instance_host(transport):
    received = queue.Queue()
    servers = _serve(transport, 'h2', received)
    try:
        rpcapi.get_compute_rpcapi().terminate_instance(
            _ctxt(), _instance(host='h2'), [])
        topic, method, inst, kwargs, _ = received.get(timeout=5)
    finally:
        _stop(servers)
    assert (topic, method, kwargs) == ('compute', 'terminate_instance',
                                       {'bdms': []})


def test_terminate_of_an_instance_without_host_is_a_clean_error(transport):
    with pytest.raises(Exception) as err:
        rpcapi.get_compute_rpcapi().terminate_instance(
            _ctxt(), _instance(host=None), [])
    assert 'Unable to find host' in str(err.value)


def test_external_events_use_the_alt_topic(transport):
    received = queue.Queue()
    servers = _serve(transport, 'h1', received)
    try:
        rpcapi.get_compute_rpcapi().external_instance_event(
            _ctxt(), [_instance()], [{'name': 'network-vif-plugged',
                                      'tag': 'p', 'server_uuid': UUID}])
        topic, method, instances, kwargs, _ = received.get(timeout=5)
    finally:
        _stop(servers)
    assert (topic, method) == ('compute-alt', 'external_instance_event')
    assert [i.uuid for i in instances] == [UUID]
    assert kwargs['events'][0]['name'] == 'network-vif-plugged'


def test_older_version_cap_keeps_events_on_the_main_topic(transport,
                                                          monkeypatch):
    monkeypatch.setattr(rpcapi, '_version_cap', lambda: '6.4')
    received = queue.Queue()
    servers = _serve(transport, 'h1', received)
    try:
        rpcapi.ComputeAPI().external_instance_event(
            _ctxt(), [_instance()], [], host='h1')
        topic, method, _, _, _ = received.get(timeout=5)
    finally:
        _stop(servers)
    assert (topic, method) == ('compute', 'external_instance_event')


def test_a_cell_targeted_context_uses_the_cell_transport(transport):
    cell_transport = _private_transport()
    top, cell = queue.Queue(), queue.Queue()
    servers = _serve(transport, 'h1', top) + \
        _serve(cell_transport, 'h1', cell)
    try:
        ctxt = _ctxt()
        ctxt.mq_connection = cell_transport
        rpcapi.get_compute_rpcapi().terminate_instance(ctxt, _instance(), [])
        assert cell.get(timeout=5)[1] == 'terminate_instance'
        assert top.empty()
    finally:
        _stop(servers)


def test_set_host_enabled_is_a_call_answered_by_the_host(transport):
    servers = _serve(transport, 'h1', queue.Queue())
    try:
        answer = rpcapi.get_compute_rpcapi().set_host_enabled(
            _ctxt(), 'h1', False)
    finally:
        _stop(servers)
    assert answer == 'disabled on compute'


def test_move_steps_reach_their_host_and_topic(transport):
    from nova_clone.objects import migration as migration_obj
    src, dest = queue.Queue(), queue.Queue()
    servers = _serve(transport, 'src', src) + _serve(transport, 'dest', dest)
    api = rpcapi.get_compute_rpcapi()
    ctxt, inst = _ctxt(), _instance(host='src')
    mig = migration_obj.Migration(uuid=UUID, source_compute='src',
                                  dest_compute='dest')
    try:
        api.prep_resize(ctxt, inst, {}, None, 'dest', mig, None, {}, 'dest',
                        True, host_list=[])
        api.resize_instance(ctxt, inst, mig, {}, None, None)
        api.finish_resize(ctxt, inst, mig, {}, 'disk', 'dest', None)
        api.confirm_resize(ctxt, inst, mig, 'src')
        api.revert_resize(ctxt, inst, mig, 'dest', None)
        api.finish_revert_resize(ctxt, inst, mig, 'src', None)
        got = sorted((q, item[0], item[1]) for q, queue_ in (
            ('src', src), ('dest', dest)) for item in [
                queue_.get(timeout=5) for _ in range(3)])
    finally:
        _stop(servers)
    # As Nova: the steps a draining compute must still finish use
    # compute-alt.
    assert got == [
        ('dest', 'compute', 'prep_resize'),
        ('dest', 'compute', 'revert_resize'),
        ('dest', 'compute-alt', 'finish_resize'),
        ('src', 'compute', 'confirm_resize'),
        ('src', 'compute-alt', 'finish_revert_resize'),
        ('src', 'compute-alt', 'resize_instance')]

def test_live_migration_steps_use_novas_topics_and_call_or_cast(transport):
    received = queue.Queue()
    servers = _serve(transport, 'h2', received)
    api = rpcapi.get_compute_rpcapi()
    try:
        checked = api.check_can_live_migrate_destination(
            _ctxt(), _instance(), 'h2', None, None, None, None)
        prepared = api.pre_live_migration(_ctxt(), _instance(), None, 'h2',
                                          None)
        posted = api.post_live_migration_at_destination(
            _ctxt(), _instance(), False, 'h2')
        api.live_migration(_ctxt(), _instance(host='h2'), 'h3', False, 'h2',
                           None)
        topic, method, _, kwargs, _ = received.get(timeout=5)
    finally:
        _stop(servers)
    assert (checked, prepared, posted) == ('compute', 'compute-alt',
                                           'compute-alt')
    assert (topic, method, kwargs['dest']) == ('compute-alt',
                                               'live_migration', 'h3')
