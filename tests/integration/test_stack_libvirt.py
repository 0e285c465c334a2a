"""`nova-clone stack up --driver libvirt`: real guests through the CLI.

One stack per module (unique name, free ports, one compute with its own
libvirtd from tools/setup-libvirt), driven with the `openstack` CLI as a
user would, and torn down and purged at the end even when a test fails.
The guest is the tiny payload of tools/setup-libvirt (kernel + busybox
initramfs, booted directly), cached across runs like the driver tests do.
"""

import configparser
import json
import os
import secrets
import subprocess
import sys
import time

import psutil
import pytest

pytestmark = pytest.mark.integration

BIN = os.path.dirname(sys.executable)
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
# Shared with tests/integration/test_libvirt_driver.py: a 70 MB download.
PAYLOAD_CACHE = '/tmp/nova-clone-libvirt-payload'
MARKER = 'NOVA-CLONE-GUEST-UP'
BOOT_TIMEOUT = 90


def _clone(*args, timeout=300):
    env = dict(os.environ, PAYLOAD_DIR=PAYLOAD_CACHE)
    return subprocess.run(
        [sys.executable, '-m', 'nova_clone.cmd.clone'] + list(args),
        capture_output=True, text=True, timeout=timeout, env=env)


def _alive(pid):
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


class Stack(object):
    def __init__(self, name, state_dir):
        self.name = name
        self.state_dir = str(state_dir)
        self.up = None

    def args(self):
        return ['--name', self.name, '--state-dir', self.state_dir]

    def osc(self, cloud, *args, check=True, timeout=120):
        env = dict(os.environ, OS_CLIENT_CONFIG_FILE=os.path.join(
            self.state_dir, 'clouds.yaml'))
        proc = subprocess.run(
            [os.path.join(BIN, 'openstack'), '--os-cloud', cloud] +
            list(args), capture_output=True, text=True, env=env,
            timeout=timeout)
        if check:
            assert proc.returncode == 0, (args, proc.stdout, proc.stderr)
        return proc

    def osc_json(self, cloud, *args, **kw):
        return json.loads(self.osc(cloud, *(args + ('-f', 'json')),
                                   **kw).stdout)

    def compute_conf(self):
        conf = configparser.ConfigParser(interpolation=None)
        conf.read(os.path.join(self.state_dir, 'etc', 'nova',
                               'nova-cpu-compute1.conf'))
        return conf

    @property
    def uri(self):
        return self.compute_conf().get('libvirt', 'connection_uri')

    def virsh(self, *args):
        return subprocess.run(['virsh', '-c', self.uri] + list(args),
                              capture_output=True, text=True, timeout=30)

    def pids(self):
        run = os.path.join(self.state_dir, 'run')
        result = {}
        for entry in os.listdir(run) if os.path.isdir(run) else ():
            if entry.endswith('.pid'):
                with open(os.path.join(run, entry)) as f:
                    result[entry[:-4]] = int(f.read())
        return result

    def libvirtd_pids(self):
        base = os.path.join(self.state_dir, 'libvirt')
        pids = []
        for entry in os.listdir(base) if os.path.isdir(base) else ():
            path = os.path.join(base, entry, 'libvirtd.pid')
            if os.path.exists(path):
                with open(path) as f:
                    pids.append(int(f.read()))
        return pids

    def qemu_pids(self):
        found = []
        for proc in psutil.process_iter(['name', 'cmdline']):
            try:
                if (proc.info['name'] or '').startswith('qemu-system') and \
                        self.state_dir in ' '.join(proc.info['cmdline']
                                                   or ()):
                    found.append(proc.pid)
            except psutil.NoSuchProcess:
                pass
        return found


def _wait(predicate, timeout, interval=0.5):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value or time.monotonic() >= deadline:
            return value
        time.sleep(interval)


@pytest.fixture(scope='module')
def stack(tmp_path_factory):
    st = Stack('nctlv_' + secrets.token_hex(4),
               tmp_path_factory.mktemp('stack_libvirt'))
    try:
        # The first run on a machine builds the guest payload (download).
        st.up = _clone('stack', 'up', '--driver', 'libvirt', '--computes',
                       '1', *st.args(), timeout=900)
        yield st
    finally:
        pids = list(st.pids().values()) + st.libvirtd_pids()
        down = None
        if os.path.exists(os.path.join(st.state_dir, 'stack.json')):
            down = _clone('stack', 'down', '--purge', *st.args(),
                          timeout=180)
        # Whatever `down` missed must not outlive the test run.
        for pid in pids + st.qemu_pids():
            if _alive(pid):
                psutil.Process(pid).kill()
        assert down is None or down.returncode == 0, down.stdout


@pytest.fixture(scope='module')
def up(stack):
    assert stack.up.returncode == 0, stack.up.stdout + stack.up.stderr
    return stack


def _console(stack, server_id, inst_dir):
    """The guest's console: os-getConsoleOutput, or its console.log when
    the API has no such action."""
    proc = stack.osc('demo', 'console', 'log', 'show', server_id,
                     check=False)
    if proc.returncode == 0:
        return proc.stdout
    assert 'no such action' in proc.stderr.lower(), proc.stderr
    try:
        with open(os.path.join(inst_dir, 'console.log'), errors='replace') \
                as f:
            return f.read()
    except FileNotFoundError:
        return ''


def test_up_gives_each_compute_its_libvirtd_and_seeds_the_guest(up):
    out = up.up.stdout
    assert 'libvirtd up: qemu+unix:///system?socket=' in out
    assert 'Traceback' not in up.up.stderr
    conf = up.compute_conf()
    assert conf.get('libvirt', 'virt_type') == 'qemu'
    assert up.virsh('version').returncode == 0
    # The daemon reports the compute's name: it is the hypervisor's.
    hypervisors = up.osc_json('admin', 'hypervisor', 'list')
    assert [h['Hypervisor Hostname'] for h in hypervisors] == ['compute1']
    images = {i['Name']: i for i in up.osc_json('demo', 'image', 'list',
                                                '--long')}
    ami = up.osc_json('demo', 'image', 'show', 'tiny-guest')
    assert ami['disk_format'] == 'ami'
    props = ami['properties']
    assert props['kernel_id'] == images['tiny-guest-kernel']['ID']
    assert props['ramdisk_id'] == images['tiny-guest-ramdisk']['ID']
    assert images['tiny-guest-kernel']['Disk Format'] == 'aki'
    assert images['tiny-guest-ramdisk']['Disk Format'] == 'ari'
    flavor = up.osc_json('demo', 'flavor', 'show', 'm1.nano')
    assert (flavor['ram'], flavor['vcpus'], flavor['disk']) == (128, 1, 1)
    # stack status names the daemon beside the services.
    status = _clone('stack', 'status', *up.args())
    assert status.returncode == 0, status.stdout
    row = [line for line in status.stdout.splitlines()
           if line.startswith('libvirtd-1 ')]
    assert row and 'yes' in row[0] and 'answering qemu+unix' in row[0], \
        status.stdout


def test_guest_boots_prints_its_marker_and_goes_on_delete(up):
    server = up.osc_json('demo', 'server', 'create', '--image',
                         'tiny-guest', '--flavor', 'm1.nano', '--network',
                         'private', '--wait', 'vm1', timeout=180)
    assert server['status'] == 'ACTIVE'
    inst_dir = os.path.join(up.state_dir, 'nova', 'instances', 'compute1',
                            server['id'])
    names = up.virsh('list', '--all', '--name').stdout.split()
    assert len(names) == 1

    def booted():
        out = _console(up, server['id'], inst_dir)
        return out if MARKER in out else None

    assert _wait(booted, BOOT_TIMEOUT, interval=2), _console(
        up, server['id'], inst_dir)[-2000:]
    assert up.qemu_pids()

    up.osc('demo', 'server', 'delete', '--wait', server['id'], timeout=120)
    assert up.osc_json('demo', 'server', 'list') == []
    listing = up.virsh('list', '--all', '--name')
    assert listing.returncode == 0 and listing.stdout.split() == []
    assert _wait(lambda: not up.qemu_pids(), 10) is True
    assert not os.path.exists(inst_dir)


def test_down_stops_libvirtd_and_its_guests(up):
    server = up.osc_json('demo', 'server', 'create', '--image',
                         'tiny-guest', '--flavor', 'm1.nano', '--network',
                         'private', '--wait', 'vm2', timeout=180)
    assert server['status'] == 'ACTIVE'
    assert up.qemu_pids()
    daemons = up.libvirtd_pids()
    assert daemons and all(_alive(pid) for pid in daemons)
    proc = _clone('stack', 'down', *up.args(), timeout=180)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert 'libvirtd' in proc.stdout
    assert [pid for pid in daemons if _alive(pid)] == []
    assert up.qemu_pids() == []
