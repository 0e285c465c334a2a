"""Live migration of LibvirtDriver between two real libvirtd daemons
("host A" and "host B", tools/setup-libvirt), each with its own
instances_path (non-shared storage: block migration), called in the
compute manager's order.

The guests print their uptime to the serial console every
TICK_SECONDS (``nclv.tick``): a guest that goes on counting on the other
host, where its boot marker never appears, was moved alive, not
rebooted.  Slow migrations come from a bandwidth cap and, for one that
cannot converge, a guest that keeps rewriting memory (``nclv.dirty``).
"""

import json
import os
import re
import subprocess
import threading
import time
import uuid

import pytest

from nova_clone.compute import power_state
from nova_clone.conf import CONF
from nova_clone import context as nova_context
from nova_clone import exception
from nova_clone.objects import migrate_data as migrate_data_obj
from nova_clone.objects import migration as migration_obj
from tests.integration import libvirt_hosts
from tests.integration.libvirt_hosts import wait_console

pytestmark = pytest.mark.integration

TICK_SECONDS = 2
# (pattern byte, length): data the guest's root disk holds beyond its
# image, which a block migration must copy.
DISK_DATA = ('0x5a', '8M')
MIB = 1024 ** 2
MIGRATION_TIMEOUT = 180
TICK = re.compile(r'GUEST-TICK (\d+\.\d+)')


PROGRESS = ('memory_total', 'memory_processed', 'memory_remaining',
            'disk_total', 'disk_processed', 'disk_remaining')


@pytest.fixture(scope='module')
def hosts(make_driver, tmp_path_factory):
    root = tmp_path_factory.mktemp('instances')
    return (make_driver(1, root / 'nclv-host1'),
            make_driver(2, root / 'nclv-host2'))


def _qemu_io(path, command, *options):
    """Write or check (read -P) DISK_DATA at the start of the disk."""
    proc = subprocess.run(
        ['qemu-io', *options, '-c', '%s -P %s 0 %s' % ((command,) + DISK_DATA),
         path], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and 'Pattern verification failed' not in \
        proc.stdout, proc.stdout + proc.stderr


def _boot(hosts, libvirt_env, *knobs):
    """Host A's guest, with DISK_DATA written on its root disk."""
    ctx = nova_context.get_admin_context()
    cmdline = ' '.join((libvirt_hosts.CMDLINE,
                        'nclv.tick=%d' % TICK_SECONDS) + knobs)
    inst = libvirt_hosts.make_instance(cmdline)
    image_meta = dict(libvirt_hosts.IMAGE_META,
                      properties={'os_command_line': cmdline})
    host_a = hosts[0]
    host_a.spawn(ctx, inst, image_meta, [], None, {}, power_on=False)
    _qemu_io(os.path.join(host_a.instance_dir(inst), 'disk'), 'write')
    host_a.power_on(ctx, inst, [])
    wait_console(host_a, ctx, inst, libvirt_env['GUEST_MARKER'])
    return ctx, inst


@pytest.fixture
def guest(hosts, libvirt_env):
    """A running tiny guest on host A that reports its uptime."""
    ctx, inst = _boot(hosts, libvirt_env)
    yield ctx, inst
    for drv in hosts:
        drv.destroy(ctx, inst, [])


@pytest.fixture
def busy_guest(hosts, libvirt_env):
    """Same, rewriting 16 MiB of its memory all the time."""
    ctx, inst = _boot(hosts, libvirt_env, 'nclv.dirty=16')
    yield ctx, inst
    for drv in hosts:
        drv.destroy(ctx, inst, [])


@pytest.fixture
def libvirt_opt():
    """libvirt_opt(name, value): a [libvirt] option for this test."""
    names = []

    def set_opt(name, value):
        CONF.set_override(name, value, 'libvirt')
        names.append(name)

    yield set_opt
    for name in names:
        CONF.clear_override(name, 'libvirt')


def _ticks(drv, ctx, inst):
    return [float(t) for t in TICK.findall(
        drv.get_console_output(ctx, inst))]


def _wait_tick_after(drv, ctx, inst, uptime, timeout=60):
    """Wait for the guest on ``drv`` to report an uptime past ``uptime``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ticks = _ticks(drv, ctx, inst)
        if ticks and ticks[-1] > uptime:
            return ticks[-1]
        time.sleep(0.5)
    pytest.fail('no uptime past %s on %s\'s console; tail:\n%s' % (
        uptime, drv.get_available_nodes()[0],
        drv.get_console_output(ctx, inst)[-800:]))


def _state(drv, inst):
    try:
        return drv.get_info(inst).state
    except exception.InstanceNotFound:
        return None


class _RecordedMigration(migration_obj.Migration):
    """A migration record with no database behind it: each save the
    driver makes hands the record to ``on_save``."""

    @classmethod
    def obj_name(cls):
        return 'Migration'  # what the migrate data's field accepts

    def save(self):
        self.on_save(self)


class Move:
    """One live migration as the compute manager runs it."""

    def __init__(self, source, dest, ctx, inst):
        self.source, self.dest = source, dest
        self.ctx, self.inst = ctx, inst
        self.dest_host = dest.get_available_nodes()[0]
        self.migration = _RecordedMigration(
            uuid=str(uuid.uuid4()), migration_type='live-migration',
            source_compute=source.get_available_nodes()[0],
            dest_compute=self.dest_host, status='running')
        self.migration.on_save = self._record
        # What the driver saved on the record, in order.
        self.saved = []
        self.outcome = None
        self.data = None

    def prepare(self):
        src_node = self.source.get_available_nodes()[0]
        src_info = self.source.get_available_resource(src_node)
        dst_info = self.dest.get_available_resource(self.dest_host)
        # block_migration None: the API's "auto".
        data = self.dest.check_can_live_migrate_destination(
            self.ctx, self.inst, src_info, dst_info, block_migration=None)
        try:
            data = self.source.check_can_live_migrate_source(
                self.ctx, self.inst, data)
        finally:
            self.dest.cleanup_live_migration_destination_check(self.ctx,
                                                               data)
        disk_info = self.source.get_instance_disk_info(self.inst)
        self.data = self.dest.pre_live_migration(
            self.ctx, self.inst, None, [], disk_info, data)
        self.data.migration = self.migration
        return self.data

    def _post(self, ctx, inst, dest, block_migration, migrate_data):
        assert dest == self.dest_host
        self.source.post_live_migration(ctx, inst, None, migrate_data)
        self.source.post_live_migration_at_source(ctx, inst, [])
        self.dest.post_live_migration_at_destination(ctx, inst, [],
                                                     block_migration)
        self.outcome = 'completed'

    def _recover(self, ctx, inst, dest, migrate_data,
                 migration_status='error'):
        self.dest.rollback_live_migration_at_destination(
            ctx, inst, [], None, destroy_disks=True,
            migrate_data=migrate_data)
        self.outcome = migration_status

    def _record(self, migration):
        assert migration is self.migration
        self.saved.append({name: getattr(migration, name)
                           for name in PROGRESS})

    def run(self):
        self.source.live_migration(self.ctx, self.inst, self.dest_host,
                                   self._post, self._recover,
                                   self.data.block_migration, self.data)
        return self.outcome

    def start(self):
        thread = threading.Thread(target=self.run, daemon=True)
        thread.start()
        return thread

    def wait_progress(self, check, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(check(saved) for saved in self.saved):
                return
            time.sleep(0.5)
        pytest.fail('no such progress: %s' % self.saved[-3:])


def _assert_moved(source, dest, ctx, inst, libvirt_env, last_uptime):
    assert _state(dest, inst) == power_state.RUNNING
    assert _state(source, inst) is None
    assert not os.path.exists(source.instance_dir(inst))
    # Alive and counting on, never booted there.
    uptime = _wait_tick_after(dest, ctx, inst, last_uptime)
    assert libvirt_env['GUEST_MARKER'] not in dest.get_console_output(ctx,
                                                                      inst)
    return uptime


def _assert_stayed(source, dest, inst):
    """Still running on the source, nothing of it left on dest."""
    assert _state(source, inst) == power_state.RUNNING
    assert _state(dest, inst) is None
    assert not os.path.exists(dest.instance_dir(inst))


def test_block_live_migration_there_and_back(hosts, guest, libvirt_env,
                                             tmp_path):
    host_a, host_b = hosts
    ctx, inst = guest
    # A volume (a file both hosts reach) stays where it is.
    volume = tmp_path / 'volume-1'
    volume.write_bytes(b'')
    os.truncate(volume, 16 * MIB)
    conn_info = {'driver_volume_type': 'file', 'serial': 'volume-1',
                 'data': {'device_path': str(volume), 'volume_id': 'v1'}}
    host_a.attach_volume(ctx, conn_info, inst, '/dev/vdb')
    wait_console(host_a, ctx, inst, 'GUEST-DISK add vdb', timeout=30)
    uptime = _wait_tick_after(host_a, ctx, inst, 0)

    move = Move(host_a, host_b, ctx, inst)
    data = move.prepare()
    # Separate instances_path: block migration, chosen by the source.
    assert data.block_migration is True
    assert data.is_shared_instance_path is False
    assert data.dst_instances_path == host_b.instances_path
    assert move.run() == 'completed'
    uptime = _assert_moved(host_a, host_b, ctx, inst, libvirt_env, uptime)
    # The disk now lives in B's directory, backed by B's image cache.
    dom = host_b._host.get_domain(inst)
    assert dom.isPersistent()
    disk_b = os.path.join(host_b.instance_dir(inst), 'disk')
    for xml in (dom.XMLDesc(0), dom.XMLDesc(
            host_b._host.libvirt.VIR_DOMAIN_XML_INACTIVE)):
        assert disk_b in xml and host_a.instances_path not in xml
    _qemu_io(disk_b, 'read', '-U', '-r')
    assert host_b.downloads.count('disk-image') == 1
    assert str(volume) in dom.XMLDesc(0)
    host_b.detach_volume(ctx, conn_info, inst, '/dev/vdb')
    wait_console(host_b, ctx, inst, 'GUEST-DISK remove vdb', timeout=30)

    back = Move(host_b, host_a, ctx, inst)
    back.prepare()
    assert back.run() == 'completed'
    _assert_moved(host_b, host_a, ctx, inst, libvirt_env, uptime)
    _qemu_io(os.path.join(host_a.instance_dir(inst), 'disk'), 'read', '-U',
             '-r')


def test_refused_destinations(hosts, guest):
    host_a, host_b = hosts
    ctx, inst = guest
    node = host_a.get_available_nodes()[0]
    src_info = host_a.get_available_resource(node)
    with pytest.raises(exception.InvalidHypervisorType):
        host_b.check_can_live_migrate_destination(
            ctx, inst, dict(src_info, hypervisor_type='Xen'), {})
    with pytest.raises(exception.InvalidCPUInfo):
        host_b.check_can_live_migrate_destination(
            ctx, inst, dict(src_info, cpu_info=json.dumps(
                {'arch': 'aarch64', 'model': 'cortex-a57'})), {})
    huge = libvirt_hosts.make_instance()
    huge.flavor = libvirt_hosts.flavor(memory_mb=1024 ** 2)
    with pytest.raises(exception.MigrationPreCheckError) as err:
        host_b.check_can_live_migrate_destination(ctx, huge, src_info, {})
    assert 'Lack of memory' in str(err.value)
    # Shared-storage migration asked for between separate directories.
    data = host_b.check_can_live_migrate_destination(
        ctx, inst, src_info, {}, block_migration=False)
    with pytest.raises(exception.InvalidSharedStorage):
        host_a.check_can_live_migrate_source(ctx, inst, data)
    host_b.cleanup_live_migration_destination_check(ctx, data)
    assert not [n for n in os.listdir(host_b.instances_path)
                if n.startswith('.migrate-check-')]
    with pytest.raises(exception.NoActiveMigrationForInstance):
        host_a.live_migration_abort(inst)
    # Migrate data that never went through the destination: the
    # migration cannot start, and is rolled back at once.
    move = Move(host_a, host_b, ctx, inst)
    move.data = migrate_data_obj.LibvirtLiveMigrateData(
        block_migration=True, is_shared_instance_path=False)
    assert move.run() == 'error'
    _assert_stayed(host_a, host_b, inst)


def test_abort_of_a_slow_migration(hosts, guest, libvirt_env, libvirt_opt):
    host_a, host_b = hosts
    ctx, inst = guest
    libvirt_opt('live_migration_bandwidth', 1)
    move = Move(host_a, host_b, ctx, inst)
    move.prepare()
    thread = move.start()
    move.wait_progress(lambda p: p['memory_processed'] > 0)
    assert thread.is_alive()
    progress = move.saved[-1]
    assert progress['memory_total'] >= 128 * MIB
    assert progress['memory_remaining'] > 0
    # The disk (what the guest holds beyond its image) went first.
    assert progress['disk_processed'] == progress['disk_total'] >= 8 * MIB
    uptime = _ticks(host_a, ctx, inst)[-1]
    host_a.live_migration_abort(inst)
    thread.join(MIGRATION_TIMEOUT)
    assert move.outcome == 'cancelled'
    _assert_stayed(host_a, host_b, inst)
    _wait_tick_after(host_a, ctx, inst, uptime)


def test_force_complete_pauses_a_migration_that_cannot_converge(
        hosts, busy_guest, libvirt_env, libvirt_opt):
    host_a, host_b = hosts
    ctx, inst = busy_guest
    uptime = _wait_tick_after(host_a, ctx, inst, 0)
    # About half the rate the guest dirties memory at under TCG.
    libvirt_opt('live_migration_bandwidth', 4)
    move = Move(host_a, host_b, ctx, inst)
    move.prepare()
    thread = move.start()
    # More copied than the guest has: memory is being sent again.
    move.wait_progress(lambda p: p['memory_processed'] > p['memory_total'],
                       timeout=MIGRATION_TIMEOUT)
    assert thread.is_alive()
    host_a.live_migration_force_complete(inst)
    thread.join(MIGRATION_TIMEOUT)
    assert move.outcome == 'completed'
    _assert_moved(host_a, host_b, ctx, inst, libvirt_env, uptime)


def test_completion_timeout_aborts(hosts, guest, libvirt_env, libvirt_opt):
    host_a, host_b = hosts
    ctx, inst = guest
    libvirt_opt('live_migration_bandwidth', 1)
    # 1 s per GiB: 2 GiB of memory (Nova's floor) + the 1 GiB disk.
    libvirt_opt('live_migration_completion_timeout', 1)
    move = Move(host_a, host_b, ctx, inst)
    move.prepare()
    started = time.monotonic()
    assert move.run() == 'cancelled'
    assert time.monotonic() - started < 30
    _assert_stayed(host_a, host_b, inst)


def test_the_stream_goes_to_the_destinations_inbound_addr(
        hosts, guest, libvirt_env, libvirt_opt):
    host_a, host_b = hosts
    ctx, inst = guest
    uptime = _wait_tick_after(host_a, ctx, inst, 0)
    # An address nobody listens on fails the copy, which rolls back.
    nowhere = '127.0.0.99'
    libvirt_opt('live_migration_inbound_addr', nowhere)
    move = Move(host_a, host_b, ctx, inst)
    assert move.prepare().target_connect_addr == nowhere
    assert move.run() == 'error'
    _assert_stayed(host_a, host_b, inst)

    libvirt_opt('live_migration_inbound_addr',
                libvirt_env['LIBVIRT_MIGRATION_ADDR_2'])
    move = Move(host_a, host_b, ctx, inst)
    move.prepare()
    assert move.run() == 'completed'
    _assert_moved(host_a, host_b, ctx, inst, libvirt_env, uptime)


def test_live_migration_over_a_shared_instances_path(make_driver, libvirt_env,
                                                     tmp_path_factory):
    """Both hosts keep instances in one directory: no disk is copied and
    the guest goes on with the very same files."""
    shared = tmp_path_factory.mktemp('shared-instances')
    host_a, host_b = make_driver(1, shared), make_driver(2, shared)
    ctx, inst = _boot((host_a, host_b), libvirt_env)
    try:
        uptime = _wait_tick_after(host_a, ctx, inst, 0)
        move = Move(host_a, host_b, ctx, inst)
        data = move.prepare()
        assert data.is_shared_instance_path is True
        assert data.block_migration is False
        assert move.run() == 'completed'
        assert _state(host_b, inst) == power_state.RUNNING
        assert _state(host_a, inst) is None
        disk = os.path.join(host_b.instance_dir(inst), 'disk')
        assert disk in host_b._host.get_domain(inst).XMLDesc(0)
        _qemu_io(disk, 'read', '-U', '-r')
        # Same console file: the boot marker is the one of the first boot.
        _wait_tick_after(host_b, ctx, inst, uptime)
        out = host_b.get_console_output(ctx, inst)
        assert out.count(libvirt_env['GUEST_MARKER']) == 1
    finally:
        for drv in (host_b, host_a):
            drv.destroy(ctx, inst, [], destroy_disks=drv is host_a)
