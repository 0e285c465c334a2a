"""The service runner and conductor indirection on the in-process bus.

A conductor service and a compute-like service run in this process on
oslo.messaging's fake driver; the compute side reaches the database only
through the conductor, as nova-compute does.
"""

import threading
import time
import uuid

import oslo_messaging as messaging
from oslo_service import periodic_task
import pytest

from nova_clone.conductor import manager as conductor_manager
from nova_clone.conductor import rpcapi as conductor_rpcapi
from nova_clone import context as nova_context
from nova_clone import exception
from nova_clone import manager as base_manager
from nova_clone import objects
from nova_clone.objects import base as objects_base
from nova_clone import rpc
from nova_clone import service
from tests.unit import rpc_bus
from tests.unit.rpc_bus import bus  # noqa: F401


# In one process the indirection API is process-wide; a conductor thread
# must run object methods locally, as a separate nova-conductor would.
_conductor_thread = threading.local()


class InProcessConductorManager(conductor_manager.ConductorManager):
    def _dispatch(self, target, method, args, kwargs):
        _conductor_thread.active = True
        try:
            return super()._dispatch(target, method, args, kwargs)
        finally:
            _conductor_thread.active = False


class ThreadAwareConductorAPI(conductor_rpcapi.ConductorAPI):
    def __bool__(self):
        return not getattr(_conductor_thread, 'active', False)


class EchoManager(base_manager.Manager):
    target = messaging.Target(version='6.5')

    def __init__(self, *args, **kwargs):
        kwargs.setdefault('service_name', 'compute')
        super().__init__(*args, **kwargs)
        self.done = []
        self.started = threading.Event()
        self.init_host_ref = 'unset'

    def init_host(self, service_ref=None):
        self.init_host_ref = service_ref

    def echo(self, context, value):
        return {'value': value, 'request_id': context.request_id,
                'roles': context.roles}

    def slow(self, context, seconds):
        self.started.set()
        time.sleep(seconds)
        self.done.append(seconds)


def _client(topic, host, version='6.5'):
    return rpc.get_client(messaging.Target(topic=topic, server=host,
                                           version=version))


@pytest.mark.usefixtures('bus')
def test_compute_registers_and_heartbeats_through_conductor(monkeypatch):
    conductor = rpc_bus.start('nova-conductor', 'conductor',
                              InProcessConductorManager, 'cond-host')
    # From here on remotable methods travel to the conductor.
    monkeypatch.setattr(objects_base.NovaObject, 'indirection_api',
                        ThreadAwareConductorAPI())
    compute = rpc_bus.start('nova-compute', 'compute', EchoManager,
                            'cmp-host')
    try:
        ctxt = nova_context.get_admin_context()
        assert compute.manager.init_host_ref is None  # first start
        ref = objects.Service.get_by_host_and_binary(ctxt, 'cmp-host',
                                                     'nova-compute')
        assert ref.id == compute.service_id
        assert ref.version == 73 and ref.topic == 'compute'
        deadline = time.time() + 10
        while time.time() < deadline:
            ref = objects.Service.get_by_id(ctxt, compute.service_id)
            if ref.report_count >= 2:
                break
            time.sleep(0.2)
        assert ref.report_count >= 2
        assert ref.last_seen_up is not None

        user_ctx = nova_context.RequestContext(
            user_id='u', project_id='p', roles=['member', 'reader'],
            request_id='req-echo')
        for topic in ('compute', 'compute-alt'):
            reply = _client(topic, 'cmp-host').call(user_ctx, 'echo',
                                                    value=topic)
            assert reply == {'value': topic, 'request_id': 'req-echo',
                             'roles': ['member', 'reader']}
        pong = rpc.get_client(messaging.Target(
            topic='compute', server='cmp-host', namespace='baseapi',
            version='1.1')).call(user_ctx, 'ping', arg='x')
        assert pong == {'service': 'compute', 'arg': 'x'}
    finally:
        compute.stop(timeout=5)
        conductor.stop(timeout=5)


@pytest.mark.usefixtures('bus')
def test_indirected_object_methods_keep_state_and_errors(monkeypatch):
    conductor = rpc_bus.start('nova-conductor', 'conductor',
                              InProcessConductorManager, 'cond-host')
    monkeypatch.setattr(objects_base.NovaObject, 'indirection_api',
                        ThreadAwareConductorAPI())
    try:
        ctxt = nova_context.get_admin_context()
        inst = objects.Instance(ctxt, project_id='p', user_id='u',
                                vm_state='building', task_state='spawning',
                                metadata={'k': 'v'})
        inst.create()
        assert inst.id and inst.obj_what_changed() == set()
        inst.task_state = None
        inst.vm_state = 'active'
        inst.save(expected_task_state=['spawning'])
        assert inst.updated_at is not None
        inst.task_state = 'rebooting'
        with pytest.raises(exception.UnexpectedTaskStateError):
            inst.save(expected_task_state=['spawning'])
        got = objects.Instance.get_by_uuid(ctxt, inst.uuid,
                                           expected_attrs=['metadata'])
        assert got.vm_state == 'active' and got.metadata == {'k': 'v'}
        with pytest.raises(exception.InstanceNotFound):
            objects.Instance.get_by_uuid(ctxt, str(uuid.uuid4()))
    finally:
        conductor.stop(timeout=5)


@pytest.mark.usefixtures('bus')
def test_stop_waits_for_in_flight_work():
    compute = rpc_bus.start('nova-scheduler', 'scheduler', EchoManager,
                            'sched-host')
    ctxt = nova_context.get_admin_context()
    _client('scheduler', 'sched-host').cast(ctxt, 'slow', seconds=1.0)
    assert compute.manager.started.wait(5)
    started = time.time()
    compute.stop(timeout=10)
    assert compute.manager.done == [1.0]
    assert time.time() - started < 10
    # A stopped service no longer answers.
    with pytest.raises(messaging.MessagingTimeout):
        _client('scheduler', 'sched-host').prepare(timeout=1).call(
            ctxt, 'echo', value=1)


def test_unknown_binary_without_manager_is_a_clean_error():
    with pytest.raises(exception.InvalidInput):
        service.Service.create(binary='nova-unknown', topic='x', host='h')


def test_compute_process_refuses_database_access(tmp_path):
    # In a child process: the guard is process-wide by design.
    import subprocess
    import sys
    script = (
        'from nova_clone.cmd import common\n'
        'from nova_clone import context, exception, objects\n'
        'from nova_clone.db.main import api\n'
        'objects.register_all()\n'
        'common.block_db_access("nova-compute")\n'
        'ctx = context.get_admin_context()\n'
        'ctx.db_connection = api.create_context_manager('
        '"sqlite:///%s")\n'
        'try:\n'
        '    objects.Service.get_by_host_and_binary(ctx, "h", "b")\n'
        'except exception.DBNotAllowed as exc:\n'
        '    print("REFUSED", exc)\n' % (tmp_path / 'x.db'))
    proc = subprocess.run([sys.executable, '-c', script],
                          capture_output=True, text=True, timeout=60)
    assert 'REFUSED nova-compute attempted direct database access' in \
        proc.stdout, proc.stderr
    assert not (tmp_path / 'x.db').exists()


class TickingManager(EchoManager):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.ticks = 0

    @periodic_task.periodic_task(spacing=0.1, run_immediately=True)
    def _tick(self, context):
        self.ticks += 1


@pytest.mark.usefixtures('bus')
def test_periodic_tasks_run_until_stop():
    svc = service.Service.create(binary='nova-scheduler', topic='scheduler',
                                 host='tick-host', manager=TickingManager,
                                 periodic_enable=True,
                                 periodic_fuzzy_delay=0,
                                 periodic_interval_max=0.1)
    svc.start()
    try:
        deadline = time.time() + 5
        while svc.manager.ticks < 3 and time.time() < deadline:
            time.sleep(0.05)
        assert svc.manager.ticks >= 3
    finally:
        svc.stop(timeout=5)
    ticks = svc.manager.ticks
    time.sleep(0.3)
    assert svc.manager.ticks == ticks
