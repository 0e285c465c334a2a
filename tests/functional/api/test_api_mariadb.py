"""nova-api as a real process on real MariaDB (set up with nova-manage as
an operator would) and a RabbitMQ transport URL.

Marked integration: it needs the MariaDB of this machine.  Kept beside the
other API tests; the databases get a unique nc_api_<hex> prefix and are
dropped afterwards.
"""

import os
import signal
import socket
import subprocess
import sys
import time
import uuid

import pytest
import requests
import sqlalchemy as sa

pytestmark = pytest.mark.integration

ROOT = 'mysql+pymysql://root@127.0.0.1/%s?charset=utf8mb4'
BIN = os.path.dirname(sys.executable)


def _free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


@pytest.fixture
def databases():
    prefix = 'nc_api_%s' % uuid.uuid4().hex[:10]
    names = {k: '%s_%s' % (prefix, k) for k in ('api', 'cell1',
                                                 'cell1_cell0')}
    engine = sa.create_engine(ROOT % '')
    with engine.begin() as conn:
        for name in names.values():
            conn.execute(sa.text('CREATE DATABASE `%s` CHARACTER SET '
                                 'utf8mb4' % name))
    yield names
    with engine.begin() as conn:
        for name in names.values():
            conn.execute(sa.text('DROP DATABASE IF EXISTS `%s`' % name))
    engine.dispose()


@pytest.fixture
def api(tmp_path, databases):
    port = _free_port()
    conf = tmp_path / 'nova.conf'
    conf.write_text(
        '[DEFAULT]\n'
        'transport_url = rabbit://guest:guest@127.0.0.1:5672/\n'
        'osapi_compute_listen = 127.0.0.1\n'
        'osapi_compute_listen_port = %d\n'
        'log_file = %s\n'
        '[api]\nauth_strategy = noauth2\n'
        '[api_database]\nconnection = %s\n'
        '[database]\nconnection = %s\n'
        % (port, tmp_path / 'api.log', ROOT % databases['api'],
           ROOT % databases['cell1']))
    manage = os.path.join(BIN, 'nova-manage')
    for args in (['api_db', 'sync'], ['cell_v2', 'map_cell0'],
                 ['db', 'sync'], ['cell_v2', 'create_cell', '--name',
                                  'cell1']):
        proc = subprocess.run([manage, '--config-file', str(conf)] + args,
                              capture_output=True, text=True, timeout=180)
        assert proc.returncode == 0, (args, proc.stdout, proc.stderr)
    proc = subprocess.Popen([os.path.join(BIN, 'nova-api'), '--config-file',
                             str(conf)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    base = 'http://127.0.0.1:%d' % port
    deadline = time.monotonic() + 30
    while True:
        assert proc.poll() is None, proc.stderr.read()
        try:
            requests.get(base + '/', timeout=2)
            break
        except requests.ConnectionError:
            assert time.monotonic() < deadline, 'nova-api did not start'
            time.sleep(0.2)
    yield base
    proc.send_signal(signal.SIGTERM)
    try:
        assert proc.wait(timeout=15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()


def _call(base, method, path, user='admin', project='ad00', body=None,
          version='latest'):
    return requests.request(
        method, base + '/v2.1' + path, json=body, timeout=15,
        headers={'X-Auth-Token': '%s:%s' % (user, project),
                 'OpenStack-API-Version': 'compute %s' % version})


def test_api_on_mariadb(api):
    flavor = _call(api, 'POST', '/flavors', body={'flavor': {
        'name': 'm1.small', 'ram': 2048, 'vcpus': 2, 'disk': 20,
        'id': '2'}})
    assert flavor.status_code == 200, flavor.text
    dup = _call(api, 'POST', '/flavors', body={'flavor': {
        'name': 'm1.small', 'ram': 1, 'vcpus': 1, 'disk': 1}})
    assert dup.status_code == 409
    extra = _call(api, 'POST', '/flavors/2/os-extra_specs',
                  body={'extra_specs': {'hw:cpu_policy': 'dedicated'}})
    assert extra.status_code == 200
    shown = _call(api, 'GET', '/flavors/2', user='demo', project='d3')
    assert shown.json()['flavor']['extra_specs'] == {
        'hw:cpu_policy': 'dedicated'}

    kp = _call(api, 'POST', '/os-keypairs', user='demo', project='d3',
               body={'keypair': {'name': 'k'}}, version='2.91')
    assert kp.status_code == 201, kp.text
    assert kp.json()['keypair']['private_key']
    assert _call(api, 'GET', '/os-keypairs', user='demo', project='d3').json(
    )['keypairs'][0]['keypair']['name'] == 'k'

    quota = _call(api, 'PUT', '/os-quota-sets/d3', body={'quota_set': {
        'instances': 3, 'cores': 4}})
    assert quota.status_code == 200, quota.text
    limits = _call(api, 'GET', '/limits', user='demo', project='d3').json()
    absolute = limits['limits']['absolute']
    assert absolute['maxTotalInstances'] == 3
    assert absolute['totalInstancesUsed'] == 0
    detail = _call(api, 'GET', '/os-quota-sets/d3/detail', user='demo',
                   project='d3').json()['quota_set']
    assert detail['key_pairs'] == {'limit': 100, 'in_use': 0, 'reserved': 0}

    servers = _call(api, 'GET', '/servers/detail', user='demo', project='d3')
    assert servers.status_code == 200 and servers.json() == {'servers': []}
    assert _call(api, 'GET', '/os-services').json() == {'services': []}
    assert _call(api, 'GET', '/os-hypervisors/detail').json() == {
        'hypervisors': []}
    missing = _call(api, 'GET', '/servers/%s' % uuid.uuid4(), user='demo',
                    project='d3')
    assert missing.status_code == 404
    bad = _call(api, 'POST', '/servers', user='demo', project='d3',
                body={'server': {'name': 'x', 'flavorRef': 'nope',
                                 'imageRef': str(uuid.uuid4()),
                                 'networks': 'none'}})
    assert bad.status_code == 400
    assert bad.json()['badRequest']['message'] == \
        'Invalid flavorRef provided.'
