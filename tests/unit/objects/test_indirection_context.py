"""The object indirection API is chosen per execution context.

A process-wide default (nova-compute's conductor API) applies unless the
current context sets its own value -- which is how one process runs
computes that indirect next to a conductor that does not.
"""

import contextvars
import threading

import oslo_messaging as messaging
import pytest

from nova_clone import context as nova_context
from nova_clone import manager as base_manager
from nova_clone import objects
from nova_clone.objects import base as objects_base
from nova_clone import service


class RecordingAPI:
    """Answers oslo.versionedobjects' class-action call itself."""

    def __init__(self, name):
        self.name = name
        self.calls = []

    def object_class_action_versions(self, context, objname, objmethod,
                                     object_versions, args, kwargs):
        self.calls.append((objname, objmethod, args))
        return self.name


objects.register_all()


@pytest.fixture(autouse=True)
def _direct_by_default():
    objects_base.set_indirection_api(None)
    yield
    objects_base.set_indirection_api(None)


def test_process_default_applies_to_classes_and_instances():
    assert objects.Service.indirection_api is None
    api = RecordingAPI('default')
    objects_base.set_indirection_api(api)
    assert objects_base.NovaObject.indirection_api is api
    assert objects.Instance.indirection_api is api
    assert objects.Instance().indirection_api is api


def test_context_value_wins_only_inside_the_block():
    default = RecordingAPI('default')
    local = RecordingAPI('local')
    objects_base.set_indirection_api(default)
    with objects_base.indirection_api_context(local):
        assert objects.Instance.indirection_api is local
        # An explicit None means direct access despite the default.
        with objects_base.indirection_api_context(None):
            assert objects.Instance.indirection_api is None
        assert objects.Instance.indirection_api is local
    assert objects.Instance.indirection_api is default


def test_remotable_classmethod_uses_the_context_api():
    local = RecordingAPI('from-conductor')
    ctxt = nova_context.get_admin_context()
    result = objects_base.run_with_indirection_api(
        local, objects.Service.get_by_host_and_binary, ctxt, 'h1',
        'nova-compute')
    assert result == 'from-conductor'
    assert local.calls == [('Service', 'get_by_host_and_binary',
                            ('h1', 'nova-compute'))]


def test_other_threads_do_not_see_the_context_value():
    local = RecordingAPI('local')
    seen = {}

    def look(key):
        seen[key] = objects.Instance.indirection_api

    with objects_base.indirection_api_context(local):
        plain = threading.Thread(target=look, args=('plain',))
        plain.start()
        plain.join()
        copied = threading.Thread(target=contextvars.copy_context().run,
                                  args=(look, 'copied'))
        copied.start()
        copied.join()
    assert seen == {'plain': None, 'copied': local}


class _Manager(base_manager.Manager):
    target = messaging.Target(version='1.0')

    def where(self, context):
        return objects_base.get_indirection_api()


def test_service_endpoints_run_with_the_service_api():
    api = RecordingAPI('svc')
    svc = service.Service('h1', 'nova-compute', 'compute',
                          _Manager(host='h1', service_name='compute'),
                          indirection_api=api)
    endpoints = svc._endpoints()
    manager_ep = endpoints[0]
    # The dispatcher reads the Target as is and finds methods by name.
    assert manager_ep.target is svc.manager.target
    assert manager_ep.where(None) is api
    assert objects_base.get_indirection_api() is None
    plain = service.Service('h2', 'nova-scheduler', 'scheduler',
                            _Manager(host='h2', service_name='scheduler'))
    assert plain._endpoints()[0] is plain.manager
