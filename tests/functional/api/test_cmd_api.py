"""The nova-api command and the WSGI entry point, as real processes."""

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import pytest
import requests

from tests.functional.api import apifixture
from tests import stop_signals

BIN = os.path.join(os.path.dirname(sys.executable), 'nova-api')


def _free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


@pytest.fixture
def conf_dir():
    tmp = tempfile.mkdtemp(prefix='nc_api_cmd_')
    for db, name in (('api', 'api'), ('main', 'cell1')):
        shutil.copy(apifixture._template(db),
                    os.path.join(tmp, '%s.sqlite' % name))
    yield tmp
    shutil.rmtree(tmp, ignore_errors=True)


def _write_conf(tmp, port):
    path = os.path.join(tmp, 'nova.conf')
    with open(path, 'w') as f:
        f.write('[DEFAULT]\n'
                'transport_url = fake://\n'
                'osapi_compute_listen = 127.0.0.1\n'
                'osapi_compute_listen_port = %d\n'
                'log_file = %s\n'
                '[api]\nauth_strategy = noauth2\n'
                'request_body_timeout = 2\n'
                '[api_database]\nconnection = sqlite:///%s/api.sqlite\n'
                '[database]\nconnection = sqlite:///%s/cell1.sqlite\n'
                % (port, os.path.join(tmp, 'api.log'), tmp, tmp))
    return path


def _wait_up(url, proc, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError('nova-api exited with %s' % proc.returncode)
        try:
            return requests.get(url, timeout=2)
        except (requests.ConnectionError, requests.Timeout):
            # Not listening yet, or listening before its worker is ready.
            time.sleep(0.2)
    raise AssertionError('nova-api did not answer on %s' % url)


@contextlib.contextmanager
def _nova_api(conf_dir, port):
    """A running nova-api on ``port``; killed if the test leaves it up."""
    conf = _write_conf(conf_dir, port)
    proc = subprocess.Popen([BIN, '--config-file', conf],
                            stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_nova_api_serves_and_stops_on_sigterm(conf_dir):
    port = _free_port()
    with _nova_api(conf_dir, port) as proc:
        base = 'http://127.0.0.1:%d' % port
        assert _wait_up(base + '/', proc).status_code == 200
        reply = requests.get(base + '/v2.1/flavors',
                             headers={'X-Auth-Token': 'admin:admin'},
                             timeout=5)
        assert reply.status_code == 200
        assert reply.json() == {'flavors': []}
        request_id = reply.headers['X-Openstack-Request-Id']
        bad = requests.post(base + '/v2.1/flavors', data='{oops',
                            headers={'X-Auth-Token': 'admin:admin',
                                     'Content-Type': 'application/json'},
                            timeout=5)
        assert bad.status_code == 400
        assert bad.json()['badRequest']['message'] == \
            'Malformed request body'
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 0
    with open(os.path.join(conf_dir, 'api.log')) as f:
        log = f.read()
    # The request's log line carries its request id.
    lines = [line for line in log.splitlines() if request_id in line]
    assert any('GET /v2.1/flavors' in line and 'status: 200' in line
               for line in lines), log[-2000:]


def test_nova_api_stops_when_stop_signals_crowd_in(conf_dir):
    port = _free_port()
    with _nova_api(conf_dir, port) as proc:
        _wait_up('http://127.0.0.1:%d/' % port, proc)
        stop_signals.rain(proc.pid)
        assert proc.wait(timeout=15) == 0


def test_nova_api_reports_busy_port(conf_dir):
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        sock.listen(1)
        port = sock.getsockname()[1]
        conf = _write_conf(conf_dir, port)
        proc = subprocess.run([BIN, '--config-file', conf],
                              capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert 'already in use' in proc.stderr
    assert 'Traceback' not in proc.stderr


def test_nova_api_bad_config_file():
    proc = subprocess.run([BIN, '--config-file', '/nonexistent/nova.conf'],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert 'Traceback' not in proc.stderr


def test_wsgi_application_reads_nova_config_file(conf_dir):
    conf = _write_conf(conf_dir, _free_port())
    code = (
        'import json, sys, webob\n'
        'from nova_clone.api import wsgi\n'
        'r = webob.Request.blank("/v2.1/flavors")\n'
        'r.headers["X-Auth-Token"] = "admin:admin"\n'
        'resp = r.get_response(wsgi.application)\n'
        'print(resp.status_int, resp.body.decode())\n')
    env = dict(os.environ, NOVA_CONFIG_FILE=conf)
    proc = subprocess.run([sys.executable, '-c', code], capture_output=True,
                          text=True, timeout=60, env=env,
                          cwd=os.path.dirname(conf_dir))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().endswith('200 {"flavors": []}')


def _stalled_post(port):
    """POST a body that stops half way; (status, body, seconds taken)."""
    start = time.monotonic()
    with socket.create_connection(('127.0.0.1', port), timeout=30) as sock:
        sock.sendall(b'POST /v2.1/flavors HTTP/1.1\r\nHost: localhost\r\n'
                     b'X-Auth-Token: admin:admin\r\n'
                     b'Content-Type: application/json\r\n'
                     b'Content-Length: 100\r\n\r\n{"flavor": ')
        data = b''
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break  # the server closed the connection
            data += chunk
    head, _sep, body = data.partition(b'\r\n\r\n')
    return int(head.split()[1]), body, time.monotonic() - start


_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))))


def _server_argv(server, conf, port):
    if server == 'nova-api':
        return [BIN, '--config-file', conf]
    return [sys.executable, '-m', 'gunicorn', '--worker-class', 'gthread',
            '--threads', '2', '--bind', '127.0.0.1:%d' % port,
            # The worker builds the app before it takes a request.
            '--config', 'python:nova_clone.stack.gunicorn_hooks',
            'nova_clone.api.wsgi:application']


@pytest.mark.parametrize('server', ['nova-api', 'gunicorn'])
def test_body_limits_under_each_server(conf_dir, server):
    """A body over max_request_body_size is a 413, one that stalls for
    request_body_timeout a 400."""
    port = _free_port()
    conf = _write_conf(conf_dir, port)
    proc = subprocess.Popen(_server_argv(server, conf, port),
                            stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, cwd=_ROOT,
                            env=dict(os.environ, NOVA_CONFIG_FILE=conf))
    try:
        base = 'http://127.0.0.1:%d' % port
        _wait_up(base + '/', proc)
        for size in (114689, 50 * 1024 * 1024):
            big = requests.post(
                base + '/v2.1/flavors', data=b'{"flavor": "%s"}' % (
                    b'x' * (size - 14)), timeout=60, headers={
                    'X-Auth-Token': 'admin:admin',
                    'Content-Type': 'application/json'})
            assert big.status_code == 413
            assert big.json()['overLimit']['code'] == 413
        status, body, took = _stalled_post(port)
        assert status == 400, body
        assert b'"badRequest"' in body
        assert b'stopped arriving' in body
        # request_body_timeout is 2 s; a connection's idle timeout, 120 s.
        assert 1.5 < took < 15
        # The server goes on serving.
        assert requests.get(base + '/v2.1/flavors', timeout=5, headers={
            'X-Auth-Token': 'admin:admin'}).status_code == 200
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
