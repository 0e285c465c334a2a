"""RPC between two processes over the real RabbitMQ.

The RequestContext (request ids, user, project, roles) and a versioned
object cross the wire intact, for a call and for a cast.
"""

import datetime
import json
import os
import signal
import subprocess
import sys
import time
import uuid

import oslo_messaging as messaging
import pytest

from nova_clone.conf import CONF
from nova_clone import context as nova_context
from nova_clone import exception
from nova_clone import objects
from nova_clone import rpc

pytestmark = pytest.mark.integration

RABBIT = 'rabbit://guest:guest@127.0.0.1:5672/'
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


@pytest.fixture
def echo_server(tmp_path):
    exchange = 'nc_h2_rpc_%s' % uuid.uuid4().hex[:10]
    record = tmp_path / 'record.json'
    proc = subprocess.Popen(
        [sys.executable, os.path.join(HERE, 'rpc_echo_server.py'), RABBIT,
         exchange, 'echo_topic', 'echo-host', str(record)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        cwd=ROOT, env=dict(os.environ, PYTHONPATH=ROOT))
    line = proc.stdout.readline()
    assert line.strip() == 'READY', proc.stderr.read()
    transport = messaging.get_rpc_transport(CONF, url=RABBIT)
    objects.register_all()
    client = rpc.get_client(
        messaging.Target(topic='echo_topic', server='echo-host',
                         version='1.0', exchange=exchange),
        transport=transport)
    yield client, record, proc
    if proc.poll() is None:
        proc.kill()
        proc.wait()
    transport.cleanup()


def _context():
    return nova_context.RequestContext(
        user_id='user-1', project_id='project-1', roles=['member', 'reader'],
        request_id='req-%s' % uuid.uuid4(),
        global_request_id='req-%s' % uuid.uuid4())


def _instance():
    flavor = objects.Flavor(id=1, name='m1.tiny', memory_mb=512, vcpus=1,
                            root_gb=1, ephemeral_gb=0, flavorid='1', swap=0,
                            disabled=False, is_public=True, extra_specs={},
                            projects=[])
    instance = objects.Instance(
        uuid=str(uuid.uuid4()), display_name='vm', metadata={'a': 'b'},
        flavor=flavor,
        launched_at=datetime.datetime(2026, 1, 2, 3, 4, 5,
                                      tzinfo=datetime.timezone.utc))
    return instance


def _expected(ctx, instance):
    return {
        'context': {'request_id': ctx.request_id,
                    'global_request_id': ctx.global_request_id,
                    'user_id': 'user-1', 'project_id': 'project-1',
                    'roles': ['member', 'reader']},
        'object': {'class': 'Instance', 'version': objects.Instance.VERSION,
                   'uuid': instance.uuid, 'display_name': 'vm',
                   'metadata': {'a': 'b'}, 'flavor': 'm1.tiny',
                   'launched_at': '2026-01-02T03:04:05+00:00',
                   'changed': ['display_name', 'flavor', 'launched_at',
                               'metadata', 'uuid']},
    }


def test_call_carries_context_and_object_both_ways(echo_server):
    client, _, _ = echo_server
    ctx, instance = _context(), _instance()
    reply = client.call(ctx, 'echo', instance=instance)
    assert reply['seen'] == _expected(ctx, instance)
    back = reply['instance']
    assert isinstance(back, objects.Instance)
    assert back.display_name == 'vm-seen'
    assert back.flavor.memory_mb == 512


def test_cast_carries_context_and_object(echo_server):
    client, record, _ = echo_server
    ctx, instance = _context(), _instance()
    assert client.cast(ctx, 'record', instance=instance) is None
    deadline = time.time() + 15
    while not record.exists() and time.time() < deadline:
        time.sleep(0.1)
    assert json.loads(record.read_text()) == _expected(ctx, instance)


def test_remote_error_keeps_its_message_and_server_stops_cleanly(
        echo_server):
    client, _, proc = echo_server
    missing = str(uuid.uuid4())
    with pytest.raises(Exception) as err:
        client.call(_context(), 'fail', uuid=missing)
    # Either rebuilt as our exception or wrapped as a RemoteError naming it.
    if isinstance(err.value, messaging.RemoteError):
        assert err.value.exc_type == 'InstanceNotFound'
    else:
        assert isinstance(err.value, exception.InstanceNotFound)
    assert missing in str(err.value)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 0
