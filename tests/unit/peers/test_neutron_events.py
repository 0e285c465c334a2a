"""The Neutron stand-in's event sender: batching, retries, giving up."""

import time

from keystoneauth1 import exceptions as ks_exc
from oslo_config import cfg

from nova_clone.peers import conf as peers_conf
from nova_clone.peers import neutron_events


class _Resp:
    def __init__(self, status):
        self.status_code = status
        self.text = ''


class _Nova:
    """Stands in for the keystoneauth1 adapter to nova-api."""

    def __init__(self, answers):
        self.answers = list(answers)
        self.posts = []

    def post(self, url, json=None, raise_exc=True):
        self.posts.append((url, json))
        answer = self.answers.pop(0) if self.answers else 200
        if isinstance(answer, Exception):
            raise answer
        return _Resp(answer)


def _conf(retries=2):
    conf = cfg.ConfigOpts()
    peers_conf.register_opts(conf)
    conf([], default_config_files=[], default_config_dirs=[])
    conf.set_override('vif_event_delay', 0.0, 'peers')
    conf.set_override('vif_event_retries', retries, 'peers')
    return conf


def _wait(predicate, timeout=5):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return False


def test_events_are_retried_after_a_connection_failure():
    nova = _Nova([ks_exc.ConnectFailure('down'), 200])
    notifier = neutron_events.NovaNotifier(_conf(), adapter=nova)
    marked = []
    notifier.notify('network-vif-plugged', 'server-1', 'port-1',
                    before_send=lambda: marked.append('port-1'))
    assert _wait(lambda: notifier.sent)
    assert marked == ['port-1']
    assert len(nova.posts) == 2
    url, body = nova.posts[-1]
    assert url == '/os-server-external-events'
    assert body == {'events': [{'name': 'network-vif-plugged',
                                'server_uuid': 'server-1', 'tag': 'port-1',
                                'status': 'completed'}]}
    notifier.stop()


def test_a_refusal_is_not_retried_and_a_dead_nova_is_given_up():
    nova = _Nova([404])
    notifier = neutron_events.NovaNotifier(_conf(), adapter=nova)
    notifier.notify('network-vif-deleted', 'server-2', 'port-2')
    assert _wait(lambda: nova.posts)
    time.sleep(0.2)
    assert len(nova.posts) == 1 and notifier.sent == []
    dead = _Nova([ks_exc.ConnectFailure('x')] * 5)
    notifier2 = neutron_events.NovaNotifier(_conf(retries=1), adapter=dead)
    notifier2.notify('network-vif-plugged', 'server-3', 'port-3')
    assert _wait(lambda: len(dead.posts) == 2)
    time.sleep(0.2)
    assert notifier2.sent == []
    notifier.stop()
    notifier2.stop()


def test_events_without_a_server_are_dropped():
    nova = _Nova([])
    notifier = neutron_events.NovaNotifier(_conf(), adapter=nova)
    notifier.notify('network-vif-plugged', '', 'port-9')
    time.sleep(0.1)
    assert nova.posts == []
