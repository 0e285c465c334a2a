"""Resize, cold and live migration of a real guest: `nova-clone stack up
--driver libvirt --computes 2` (each compute with its own libvirtd and
instances directory), driven with the openstack CLI.  After each step the
guest's domain is read back from the libvirtd of each host: where it is
defined, whether it runs, with how much memory, and which instance
directories hold its files.
"""

import configparser
import os
import re
import secrets
import xml.etree.ElementTree as ET

import psutil
import pytest

from tests.integration.test_stack_libvirt import _alive
from tests.integration.test_stack_libvirt import _clone
from tests.integration.test_stack_libvirt import _wait
from tests.integration.test_stack_libvirt import Stack

pytestmark = pytest.mark.integration

HOSTS = ('compute1', 'compute2')
# The seeded m1.nano is 128 MiB; the resize gives the guest more memory
# on the same 1 GB root disk.
BIGGER = ('nano-192', '192', '1', '1')


@pytest.fixture(scope='module')
def stack(tmp_path_factory):
    st = Stack('ncrslv_' + secrets.token_hex(4),
               tmp_path_factory.mktemp('stack_libvirt_resize'))
    try:
        st.up = _clone('stack', 'up', '--driver', 'libvirt', '--computes',
                       '2', *st.args(), timeout=900)
        assert st.up.returncode == 0, st.up.stdout + st.up.stderr
        name, ram, vcpus, disk = BIGGER
        st.osc('admin', 'flavor', 'create', '--ram', ram, '--vcpus', vcpus,
               '--disk', disk, name)
        yield st
    finally:
        pids = list(st.pids().values()) + st.libvirtd_pids()
        if os.path.exists(os.path.join(st.state_dir, 'stack.json')):
            _clone('stack', 'down', '--purge', *st.args(), timeout=180)
        for pid in pids + st.qemu_pids():
            if _alive(pid):
                psutil.Process(pid).kill()


def _uri(st, host):
    conf = configparser.ConfigParser(interpolation=None)
    conf.read(os.path.join(st.state_dir, 'etc', 'nova',
                           'nova-cpu-%s.conf' % host))
    return conf.get('libvirt', 'connection_uri')


def _virsh(st, host, *args):
    import subprocess
    return subprocess.run(['virsh', '-c', _uri(st, host)] + list(args),
                          capture_output=True, text=True, timeout=30)


def _domain(st, host, server_id):
    """(state, memory MiB) of the server's domain on ``host``, None when
    the host has no such domain."""
    names = _virsh(st, host, 'list', '--all', '--uuid').stdout.split()
    if server_id not in names:
        return None
    state = _virsh(st, host, 'domstate', server_id).stdout.strip()
    xml = _virsh(st, host, 'dumpxml', server_id).stdout
    memory_kib = int(ET.fromstring(xml).find('memory').text)
    return state, memory_kib // 1024


def _files(st, host, server_id):
    """Which of the instance directory and its resize backup exist on
    ``host``."""
    inst_dir = os.path.join(st.state_dir, 'nova', 'instances', host,
                            server_id)
    return (os.path.isdir(inst_dir), os.path.isdir(inst_dir + '_resize'))


def _settled(st, server_id, status, timeout=180):
    def shown():
        server = st.osc_json('admin', 'server', 'show', server_id)
        if server['status'] == status and not server.get(
                'OS-EXT-STS:task_state'):
            return server
        return None
    server = _wait(shown, timeout, interval=2)
    assert server, st.osc_json('admin', 'server', 'show', server_id)
    return server


def _running(st, host, server_id, memory_mb):
    """The guest runs on ``host`` with ``memory_mb`` (a booting TCG guest
    may take a moment to be reported running)."""
    assert _wait(lambda: _domain(st, host, server_id) == (
        'running', memory_mb), 60), _domain(st, host, server_id)


def _other(host):
    return [h for h in HOSTS if h != host][0]


def _boot_running(st, name):
    """(server id, its host, the other host) of a new m1.nano guest, once
    it runs."""
    server = st.osc_json('demo', 'server', 'create', '--image',
                         'tiny-guest', '--flavor', 'm1.nano', '--network',
                         'private', '--wait', name, timeout=180)
    sid = server['id']
    first = st.osc_json('admin', 'server', 'show', sid)[
        'OS-EXT-SRV-ATTR:host']
    _running(st, first, sid, 128)
    return sid, first, _other(first)


def test_resize_confirm_then_cold_migrate_revert(stack):
    sid, first, second = _boot_running(stack, 'mover')

    # Resize: the guest leaves the first host, its files kept there as
    # the backup, and runs on the second with the new flavor's memory.
    stack.osc('demo', 'server', 'resize', '--flavor', BIGGER[0], '--wait',
              sid, timeout=300)
    resized = _settled(stack, sid, 'VERIFY_RESIZE')
    assert resized['OS-EXT-SRV-ATTR:host'] == second
    _running(stack, second, sid, 192)
    assert _domain(stack, first, sid)[0] == 'shut off'
    assert _files(stack, first, sid) == (False, True)
    assert _files(stack, second, sid) == (True, False)

    # Confirm: nothing of the guest is left on the first host.
    stack.osc('demo', 'server', 'resize', 'confirm', sid)
    _settled(stack, sid, 'ACTIVE')
    assert _wait(lambda: _domain(stack, first, sid) is None, 60)
    assert _files(stack, first, sid) == (False, False)
    _running(stack, second, sid, 192)

    # Cold migration back to the first host, then revert: the guest runs
    # on the second host again, the first keeps nothing.
    stack.osc('admin', 'server', 'migrate', '--wait', sid, timeout=300)
    moved = _settled(stack, sid, 'VERIFY_RESIZE')
    assert moved['OS-EXT-SRV-ATTR:host'] == first
    _running(stack, first, sid, 192)
    assert _domain(stack, second, sid)[0] == 'shut off'
    assert _files(stack, second, sid) == (False, True)

    stack.osc('admin', 'server', 'resize', 'revert', sid)
    reverted = _settled(stack, sid, 'ACTIVE')
    assert reverted['OS-EXT-SRV-ATTR:host'] == second
    _running(stack, second, sid, 192)
    assert _wait(lambda: _domain(stack, first, sid) is None, 60)
    assert _files(stack, first, sid) == (False, False)
    assert _files(stack, second, sid) == (True, False)

    stack.osc('demo', 'server', 'delete', '--wait', sid, timeout=120)
    for host in HOSTS:
        assert _domain(stack, host, sid) is None
        assert _files(stack, host, sid) == (False, False)


TICK = re.compile(r'GUEST-TICK (\d+\.\d+)')


def _last_tick(st, server_id):
    """The newest uptime the guest printed on its console, or None."""
    log = st.osc('demo', 'console', 'log', 'show', server_id).stdout
    ticks = [float(t) for t in TICK.findall(log)]
    return ticks[-1] if ticks else None


def test_live_migration_moves_the_running_guest(stack):
    # The guest prints its uptime every 2 s: on the destination it goes
    # on counting, with no new boot, if it was moved alive.
    stack.osc('admin', 'image', 'set', '--property',
              'os_command_line=console=ttyS0 quiet panic=-1 nclv.tick=2',
              'tiny-guest')
    sid, first, second = _boot_running(stack, 'walker')
    before = _wait(lambda: _last_tick(stack, sid), 90, interval=2)
    assert before, stack.osc('demo', 'console', 'log', 'show', sid).stdout

    # No host given: the scheduler picks the other one.  The stream goes
    # to the destination's own address, which the stack configured.
    stack.osc('admin', '--os-compute-api-version', '2.30', 'server',
              'migrate', '--live-migration', '--wait', sid, timeout=300)
    moved = _settled(stack, sid, 'ACTIVE')
    assert moved['OS-EXT-SRV-ATTR:host'] == second
    _running(stack, second, sid, 128)
    assert _domain(stack, first, sid) is None
    assert _files(stack, first, sid) == (False, False)
    assert _files(stack, second, sid) == (True, False)
    migrations = stack.osc_json('admin', '--os-compute-api-version', '2.80',
                                'server', 'migration', 'list', '--server',
                                sid)
    assert [(m['Type'], m['Status'], m['Source Compute'],
             m['Dest Compute']) for m in migrations] == [
        ('live-migration', 'completed', first, second)], migrations

    after = _wait(lambda: (lambda t: t if t and t > before else None)(
        _last_tick(stack, sid)), 60, interval=2)
    log = stack.osc('demo', 'console', 'log', 'show', sid).stdout
    assert after, log
    assert 'NOVA-CLONE-GUEST-UP' not in log, log
    stack.osc('demo', 'server', 'delete', '--wait', sid, timeout=120)
    for host in HOSTS:
        assert _domain(stack, host, sid) is None
