"""`nova-clone up` as a user runs it: a fresh virtualenv holding only the
project, the stock `openstack` CLI against the clouds.yaml it writes.

One virtualenv per module (pip install of the repository; the local wheel
cache keeps it quick), one state directory, one port block.
"""

import json
import os
import queue
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

import pytest

from nova_clone.deploy import seed_data
from tests import stop_signals

pytestmark = pytest.mark.integration

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
READY_LINE = 'cloud ready'
READY_BUDGET = 10.0   # the promise: ready to serve in under 10 s
NUM_PORTS = 6


def _free_port_block(count=NUM_PORTS):
    """A base port whose next ``count`` ports are all free right now."""
    for _ in range(50):
        with socket.socket() as probe:
            probe.bind(('127.0.0.1', 0))
            base = probe.getsockname()[1]
        if base + count > 65000:
            continue
        socks = []
        try:
            for port in range(base, base + count):
                s = socket.socket()
                socks.append(s)
                s.bind(('127.0.0.1', port))
            return base
        except OSError:
            continue
        finally:
            for s in socks:
                s.close()
    raise RuntimeError('no free block of %d ports' % count)


@pytest.fixture(scope='module')
def venv():
    path = tempfile.mkdtemp(prefix='nc_up_venv_')
    subprocess.run([sys.executable, '-m', 'venv', path], check=True,
                   timeout=120)
    pip = subprocess.run(
        [os.path.join(path, 'bin', 'pip'), 'install', '-q',
         '--disable-pip-version-check', REPO],
        capture_output=True, text=True, timeout=600)
    assert pip.returncode == 0, pip.stdout[-2000:] + pip.stderr[-4000:]
    yield path
    # Thousands of small files: removing them can take longer than the
    # test itself on a busy disk, so it happens in the background.
    subprocess.Popen(['rm', '-rf', path], start_new_session=True,
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


class Up:
    """One `nova-clone up` subprocess, its output read by a thread."""

    def __init__(self, venv, state_dir, base_port, clouds_yaml, *extra):
        self.venv = venv
        self.output = []
        self.lines = queue.Queue()
        env = dict(os.environ, PYTHONUNBUFFERED='1', HOME=state_dir)
        self.cmd = [os.path.join(venv, 'bin', 'nova-clone'), 'up',
                    '--state-dir', state_dir, '--base-port', str(base_port),
                    '--clouds-yaml', clouds_yaml] + list(extra)
        self.started = time.monotonic()
        self.proc = subprocess.Popen(
            self.cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True, env=env, cwd=state_dir)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.proc.stdout:
            self.output.append(line)
            self.lines.put(line)
        self.lines.put(None)

    def wait_ready(self, timeout=60):
        """Wait for the whole ready banner; returns seconds since spawn."""
        deadline = time.monotonic() + timeout
        elapsed = None
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.5)
            except queue.Empty:
                continue
            if line is None:
                break
            if READY_LINE in line and elapsed is None:
                elapsed = time.monotonic() - self.started
            if elapsed is not None and line.startswith('Stop with'):
                return elapsed
        raise AssertionError('nova-clone up not ready; output:\n%s' %
                             ''.join(self.output))

    def stop(self, sig=signal.SIGTERM, timeout=15):
        self.proc.send_signal(sig)
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError('nova-clone up did not stop within %ss'
                                 % timeout)
        self.reader.join(5)
        return self.proc.returncode

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture(scope='module')
def deployment(venv):
    state_dir = tempfile.mkdtemp(prefix='nc_up_state_')
    info = {'state_dir': state_dir, 'base_port': _free_port_block(),
            'clouds_yaml': os.path.join(state_dir, 'user-clouds.yaml'),
            'procs': []}
    yield info
    for up in info['procs']:
        up.kill()
    shutil.rmtree(state_dir, ignore_errors=True)


def _start(venv, deployment, *extra):
    up = Up(venv, deployment['state_dir'], deployment['base_port'],
            deployment['clouds_yaml'], *extra)
    deployment['procs'].append(up)
    return up


def _openstack(venv, deployment, *args, timeout=90):
    env = dict(os.environ, OS_CLIENT_CONFIG_FILE=deployment['clouds_yaml'],
               HOME=deployment['state_dir'])
    for var in list(env):
        if var.startswith('OS_') and var != 'OS_CLIENT_CONFIG_FILE':
            env.pop(var)
    cmd = [os.path.join(venv, 'bin', 'openstack'), '--os-cloud',
           'nova-clone'] + list(args)
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env,
                          timeout=timeout)
    assert proc.returncode == 0, '%s\n%s\n%s' % (' '.join(args),
                                                 proc.stdout, proc.stderr)
    return proc.stdout


def _json(venv, deployment, *args):
    return json.loads(_openstack(venv, deployment, *args, '-f', 'json'))


def test_up_serves_the_openstack_cli_and_survives_restart(venv, deployment):
    up = _start(venv, deployment, '--computes', '2')
    elapsed = up.wait_ready()
    banner = ''.join(up.output)
    assert elapsed < READY_BUDGET, 'ready after %.1fs:\n%s' % (elapsed,
                                                                banner)
    api_url = 'http://127.0.0.1:%d/v2.1' % deployment['base_port']
    assert api_url in banner
    assert deployment['clouds_yaml'] in banner

    flavors = {f['Name'] for f in _json(venv, deployment, 'flavor', 'list')}
    assert {'m1.tiny', 'm1.small', 'm1.medium', 'm1.large'} <= flavors
    # The seeded image and network, by the names the banner suggests.
    image, network = seed_data.IMAGE_NAME, seed_data.NETWORK_NAME
    assert '--image %s --network %s' % (image, network) in banner

    # Boot, list, events, delete -- the "done when".
    keep = _json(venv, deployment, 'server', 'create', '--flavor',
                 'm1.nano', '--image', image, '--network', network,
                 'keeper')
    server = _json(venv, deployment, 'server', 'create', '--flavor',
                   'm1.tiny', '--image', image, '--network', network,
                   '--wait', 'vm1')
    assert server['status'] == 'ACTIVE'
    listed = _json(venv, deployment, 'server', 'list')
    assert sorted(s['Name'] for s in listed) == ['keeper', 'vm1']
    assert {s['Status'] for s in listed if s['Name'] == 'vm1'} == {'ACTIVE'}
    events = _json(venv, deployment, 'server', 'event', 'list', 'vm1')
    assert [e['Action'] for e in events] == ['create']
    _openstack(venv, deployment, 'server', 'delete', '--wait', 'vm1')
    listed = _json(venv, deployment, 'server', 'list')
    assert [(s['Name'], s['Status']) for s in listed] == [
        ('keeper', 'ACTIVE')]

    # A second `up` on the same ports: one line naming port and option.
    clash_dir = tempfile.mkdtemp(prefix='nc_up_clash_')
    try:
        clash = Up(venv, clash_dir, deployment['base_port'],
                   os.path.join(clash_dir, 'clouds.yaml'))
        clash.proc.wait(timeout=60)
        clash.reader.join(5)
        out = ''.join(clash.output)
    finally:
        shutil.rmtree(clash_dir, ignore_errors=True)
    assert clash.proc.returncode != 0
    lines = [line for line in out.splitlines() if line.strip()]
    assert len(lines) == 1, out
    assert str(deployment['base_port']) in lines[0]
    assert '--api-port' in lines[0] and '--base-port' in lines[0]

    # SIGTERM: clean exit, quickly.
    stopped_at = time.monotonic()
    assert up.stop(signal.SIGTERM) == 0, ''.join(up.output)
    assert time.monotonic() - stopped_at < 10

    # Start again on the same state: everything is still there.
    again = _start(venv, deployment)
    again.wait_ready()
    assert {f['Name'] for f in _json(venv, deployment, 'flavor',
                                     'list')} == flavors
    assert [i['Name'] for i in _json(venv, deployment, 'image', 'list')] \
        == [image]
    listed = _json(venv, deployment, 'server', 'list')
    assert [(s['ID'], s['Status']) for s in listed] == [
        (keep['id'], 'ACTIVE')]
    assert again.stop(signal.SIGINT) == 0, ''.join(again.output)


def test_up_stops_when_stop_signals_crowd_in(venv, deployment):
    # Each stop signal arriving while the previous one is handled used to
    # hang `up` for good (its handler re-entered threading.Event.set).
    for attempt in range(3):
        up = _start(venv, deployment)
        up.wait_ready()
        stop_signals.rain(up.proc.pid, seed=attempt)
        assert up.stop(signal.SIGTERM) == 0, ''.join(up.output)
        assert 'nova-clone up: stopped.' in ''.join(up.output)
