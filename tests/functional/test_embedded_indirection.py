"""Embedded computes reach the database only through the conductor.

The one-process cloud gives each compute service the conductor RPC API as
its object indirection API; the conductors, the scheduler and the API of
the same process keep direct database access.  The test watches both ends
of the conductor's object RPC while a server boots.
"""

import contextvars
import threading

from nova_clone.compute import api as compute_api
from nova_clone.conductor import manager as conductor_manager
from nova_clone.conductor import rpcapi as conductor_rpcapi
from nova_clone.objects import base as objects_base
from nova_clone.scheduler import manager as scheduler_manager


class _Recorder:
    """Thread-safe lists of what crossed the conductor's object RPC."""

    def __init__(self, compute_apis):
        self.compute_apis = compute_apis  # id(ConductorAPI) -> host
        self.lock = threading.Lock()
        self.sent = []       # (sender host or None, objname, method, uuid)
        self.received = []   # indirection API seen by the conductor
        self.services = []   # (where, indirection API seen there)

    def add(self, bucket, item):
        with self.lock:
            getattr(self, bucket).append(item)


def _watch(monkeypatch, rec):
    def class_action(self, context, objname, objmethod, object_versions,
                     args, kwargs):
        rec.add('sent', (rec.compute_apis.get(id(self)), objname,
                         objmethod, None))
        return orig_class_action(self, context, objname, objmethod,
                                 object_versions, args, kwargs)

    def action(self, context, objinst, objmethod, args, kwargs):
        rec.add('sent', (rec.compute_apis.get(id(self)), objinst.obj_name(),
                         objmethod, getattr(objinst, 'uuid', None)
                         if objinst.obj_attr_is_set('uuid') else None))
        return orig_action(self, context, objinst, objmethod, args, kwargs)

    orig_class_action = conductor_rpcapi.ConductorAPI.\
        object_class_action_versions
    orig_action = conductor_rpcapi.ConductorAPI.object_action
    monkeypatch.setattr(conductor_rpcapi.ConductorAPI,
                        'object_class_action_versions', class_action)
    monkeypatch.setattr(conductor_rpcapi.ConductorAPI, 'object_action',
                        action)

    def seen_by_conductor(orig):
        def handler(self, context, **kwargs):
            rec.add('received', objects_base.get_indirection_api())
            return orig(self, context, **kwargs)
        return handler

    for name in ('object_class_action_versions', 'object_action'):
        monkeypatch.setattr(
            conductor_manager.ConductorManager, name,
            seen_by_conductor(getattr(conductor_manager.ConductorManager,
                                      name)))

    def seen_in(where, cls, name):
        orig = getattr(cls, name)

        def method(self, *args, **kwargs):
            rec.add('services', (where, objects_base.get_indirection_api()))
            return orig(self, *args, **kwargs)
        monkeypatch.setattr(cls, name, method)

    seen_in('api', compute_api.API, 'create')
    seen_in('scheduler', scheduler_manager.SchedulerManager,
            'select_destinations')
    seen_in('conductor', conductor_manager.ComputeTaskManager,
            'schedule_and_build_instances')


def test_compute_object_calls_travel_to_the_conductor(cloud, admin_api,
                                                      monkeypatch):
    embedded = cloud.cloud
    assert embedded.computes
    compute_apis = {id(svc.indirection_api): host
                    for host, svc in embedded.computes.items()}
    assert None not in [svc.indirection_api
                        for svc in embedded.computes.values()]
    # The process-wide default stays "direct": only the computes indirect.
    assert objects_base.get_indirection_api() is None
    assert all(svc.indirection_api is None for svc in embedded.services
               if hasattr(svc, 'indirection_api'))
    rec = _Recorder(compute_apis)
    _watch(monkeypatch, rec)

    server = admin_api.create_server()
    assert server['status'] == 'ACTIVE'
    host = server['OS-EXT-SRV-ATTR:host']
    assert host in embedded.computes

    with rec.lock:
        sent = list(rec.sent)
        received = list(rec.received)
        services = list(rec.services)
    # Every object call sent to the conductor came from a compute's own
    # indirection API: the API, scheduler and conductors sent none.
    assert sent and all(sender in embedded.computes
                        for sender, _, _, _ in sent), sent
    # The chosen compute saved the instance through the conductor.
    assert (host, 'Instance', 'save', server['id']) in sent, sent
    # The conductor ran them locally (no indirection in its threads).
    assert received and all(api is None for api in received)
    # The API, the scheduler and the conductor's build task did their
    # part with direct database access.
    assert {where for where, _ in services} == {'api', 'scheduler',
                                                'conductor'}, services
    assert all(api is None for _, api in services), services


def test_compute_heartbeat_goes_through_the_conductor(cloud, monkeypatch):
    embedded = cloud.cloud
    host, svc = sorted(embedded.computes.items())[0]
    # The beat thread runs in a copy of the context the compute started in.
    ctx = svc._heartbeat._thread._target.__self__
    assert isinstance(ctx, contextvars.Context)
    assert ctx[objects_base._context_indirection_api] is svc.indirection_api
    rec = _Recorder({id(svc.indirection_api): host})
    _watch(monkeypatch, rec)
    before = svc.service_ref.report_count
    ctx.copy().run(svc._heartbeat.report_state)
    # The service's own beat may land in between: at least ours counted.
    assert svc.service_ref.report_count >= before + 1
    with rec.lock:
        sent = list(rec.sent)
    assert (host, 'Service', 'save') in [call[:3] for call in sent], sent


def test_compute_periodic_thread_carries_the_compute_api(cloud):
    # The periodic tasks run every minute or so; check instead the context
    # their thread was given when the compute started.
    for host, svc in cloud.cloud.computes.items():
        thread = svc._periodic_thread
        assert thread is not None and thread.is_alive(), host
        ctx = thread._target.__self__
        assert isinstance(ctx, contextvars.Context), host
        assert ctx[objects_base._context_indirection_api] is \
            svc.indirection_api, host
