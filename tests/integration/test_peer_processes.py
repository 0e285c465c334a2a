"""The stand-ins as separate processes on MariaDB, driven by the openstack CLI.

Identity, Glance, Neutron and Cinder each run as
``python -m nova_clone.peers SERVICE --config-file F`` sharing one
uniquely named MariaDB database; the ``openstack`` command, as a user
would run it, authenticates against the identity stand-in.
"""

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

pytestmark = pytest.mark.integration

SERVICES = ('identity', 'glance', 'neutron', 'cinder')
PASSWORD = 'peer-secret'


def _free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def _mysql(sql):
    import pymysql
    conn = pymysql.connect(host='127.0.0.1', user='root', password='')
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
        conn.commit()
    finally:
        conn.close()


def _wait_up(url, proc, log, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError('%s exited: %s' % (url, open(log).read()))
        try:
            urllib.request.urlopen(url, timeout=2)
            return
        except urllib.error.HTTPError:
            return  # 300 Multiple Choices is an answer too
        except OSError:
            time.sleep(0.2)
    raise AssertionError('%s never answered: %s' % (url, open(log).read()))


def _write_conf(path, service, ports, db_url, data_dir, log_file):
    identity = 'http://127.0.0.1:%d' % ports['identity']
    lines = [
        '[DEFAULT]', 'log_file = %s' % log_file, 'debug = true', '',
        '[peers]', 'connection = %s' % db_url, 'listen = 127.0.0.1',
        'identity_port = %d' % ports['identity'],
        'glance_port = %d' % ports['glance'],
        'neutron_port = %d' % ports['neutron'],
        'cinder_port = %d' % ports['cinder'],
        'data_dir = %s' % data_dir, 'admin_password = %s' % PASSWORD,
        'endpoint = identity=%s/v3' % identity,
        'endpoint = image=http://127.0.0.1:%d' % ports['glance'],
        'endpoint = network=http://127.0.0.1:%d' % ports['neutron'],
        'endpoint = block-storage=http://127.0.0.1:%d/v3/$(project_id)s'
        % ports['cinder'],
        'endpoint = volumev3=http://127.0.0.1:%d/v3/$(project_id)s'
        % ports['cinder'],
        'vif_event_delay = 0', '',
    ]
    if service != 'identity':
        lines += [
            '[keystone_authtoken]',
            'www_authenticate_uri = %s/v3' % identity,
            'auth_url = %s/v3' % identity, 'auth_type = password',
            'username = %s' % service, 'password = %s' % PASSWORD,
            'project_name = service', 'user_domain_name = Default',
            'project_domain_name = Default', '',
        ]
    with open(path, 'w') as out:
        out.write('\n'.join(lines).replace('$(project_id)s',
                                           '$$(project_id)s'))


@pytest.fixture(scope='module')
def stack(tmp_path_factory):
    base = tmp_path_factory.mktemp('peerstack')
    db_name = 'nc_peers_%s' % secrets.token_hex(4)
    _mysql('CREATE DATABASE %s CHARACTER SET utf8mb4' % db_name)
    db_url = 'mysql+pymysql://root@127.0.0.1/%s?charset=utf8mb4' % db_name
    ports = {name: _free_port() for name in SERVICES}
    procs = []
    try:
        for name in SERVICES:
            conf = base / ('%s.conf' % name)
            log = base / ('%s.log' % name)
            _write_conf(conf, name, ports, db_url, base / 'data', log)
            proc = subprocess.Popen(
                [sys.executable, '-m', 'nova_clone.peers', name,
                 '--config-file', str(conf)],
                stdout=subprocess.DEVNULL, stderr=open(base / (
                    '%s.err' % name), 'w'))
            procs.append(proc)
            _wait_up('http://127.0.0.1:%d/' % ports[name], proc,
                     base / ('%s.err' % name))
        yield {'ports': ports, 'base': base, 'db': db_name}
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
        _mysql('DROP DATABASE IF EXISTS %s' % db_name)


def openstack(stack, *args, user='demo', project='demo', check=True):
    exe = shutil.which('openstack', path=os.path.dirname(sys.executable))
    env = dict(os.environ)
    for key in list(env):
        if key.startswith('OS_'):
            del env[key]
    env.update({
        'OS_AUTH_URL': 'http://127.0.0.1:%d/v3' % stack['ports']['identity'],
        'OS_USERNAME': user, 'OS_PASSWORD': PASSWORD,
        'OS_PROJECT_NAME': project, 'OS_USER_DOMAIN_NAME': 'Default',
        'OS_PROJECT_DOMAIN_NAME': 'Default', 'OS_IDENTITY_API_VERSION': '3',
        'OS_INTERFACE': 'public'})
    result = subprocess.run([exe] + list(args), env=env, capture_output=True,
                            text=True, timeout=120)
    if check:
        assert result.returncode == 0, result.stderr
    return result


def as_json(result):
    return json.loads(result.stdout)


def test_cli_catalog_and_token(stack):
    catalog = as_json(openstack(stack, 'catalog', 'list', '-f', 'json'))
    types = {entry['Type'] for entry in catalog}
    assert {'identity', 'image', 'network', 'block-storage'} <= types
    token = as_json(openstack(stack, 'token', 'issue', '-f', 'json'))
    assert token['id'] and token['project_id']


def test_cli_image_create_with_file(stack):
    data = stack['base'] / 'disk.img'
    data.write_bytes(b'\0' * 4096 + b'nova-clone')
    image = as_json(openstack(stack, 'image', 'create', '--file', str(data),
                              '--disk-format', 'raw', '--container-format',
                              'bare', 'cli-image', '-f', 'json'))
    assert image['name'] == 'cli-image'
    shown = as_json(openstack(stack, 'image', 'show', 'cli-image', '-f',
                              'json'))
    assert shown['status'] == 'active'
    assert shown['size'] == 4106
    saved = stack['base'] / 'saved.img'
    openstack(stack, 'image', 'save', '--file', str(saved), 'cli-image')
    assert saved.read_bytes() == data.read_bytes()
    listed = as_json(openstack(stack, 'image', 'list', '-f', 'json'))
    assert 'cli-image' in {i['Name'] for i in listed}


def test_cli_network_subnet_and_port(stack):
    net = as_json(openstack(stack, 'network', 'create', 'cli-net', '-f',
                            'json'))
    assert net['name'] == 'cli-net' and net['status'] == 'ACTIVE'
    sub = as_json(openstack(stack, 'subnet', 'create', '--network',
                            'cli-net', '--subnet-range', '10.20.0.0/24',
                            'cli-sub', '-f', 'json'))
    assert sub['cidr'] == '10.20.0.0/24'
    assert sub['gateway_ip'] == '10.20.0.1'
    port = as_json(openstack(stack, 'port', 'create', '--network',
                             'cli-net', 'cli-port', '-f', 'json'))
    assert '10.20.0.2' in json.dumps(port['fixed_ips'])
    missing = openstack(stack, 'subnet', 'create', '--network', 'nope',
                        '--subnet-range', '10.30.0.0/24', 'x', check=False)
    assert missing.returncode != 0


def test_cli_volume_create(stack):
    vol = as_json(openstack(stack, 'volume', 'create', '--size', '1',
                            'cli-vol', '-f', 'json'))
    assert vol['size'] == 1
    status = None
    for _ in range(50):
        status = as_json(openstack(stack, 'volume', 'show', 'cli-vol', '-f',
                                   'json'))['status']
        if status == 'available':
            break
        time.sleep(0.2)
    assert status == 'available'
    openstack(stack, 'volume', 'delete', 'cli-vol')
    listed = as_json(openstack(stack, 'volume', 'list', '-f', 'json'))
    assert 'cli-vol' not in {v['Name'] for v in listed}


def test_cli_admin_identity_reads(stack):
    endpoints = as_json(openstack(stack, 'endpoint', 'list', '-f', 'json',
                                  user='admin', project='admin'))
    assert {'image', 'network', 'block-storage'} <= {
        e['Service Type'] for e in endpoints}
    projects = as_json(openstack(stack, 'project', 'list', '-f', 'json',
                                 user='admin', project='admin'))
    assert {'admin', 'demo', 'service'} <= {p['Name'] for p in projects}
    users = as_json(openstack(stack, 'user', 'list', '-f', 'json',
                              user='admin', project='admin'))
    assert {'admin', 'demo', 'nova', 'neutron'} <= {u['Name'] for u in users}
    denied = openstack(stack, 'user', 'list', check=False)
    assert denied.returncode != 0


def test_cli_network_reads(stack):
    groups = as_json(openstack(stack, 'security', 'group', 'list', '-f',
                               'json'))
    assert [g['Name'] for g in groups] == ['default']
    openstack(stack, 'network', 'create', 'list-net')
    nets = as_json(openstack(stack, 'network', 'list', '-f', 'json'))
    assert 'list-net' in {n['Name'] for n in nets}
    openstack(stack, 'network', 'delete', 'list-net')
    nets = as_json(openstack(stack, 'network', 'list', '-f', 'json'))
    assert 'list-net' not in {n['Name'] for n in nets}
