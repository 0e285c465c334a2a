"""Resize and cold migration of LibvirtDriver between two real libvirtd
daemons ("host A" and "host B", tools/setup-libvirt), each with its own
instances_path, called in the compute manager's order: the source stops
the guest and hands its disks over, the destination starts it with the
new flavor, then the source confirms or the destination is destroyed and
the source reverts.  What the guest is, is read back from libvirt.
"""

import json
import os
import shutil
import subprocess
import uuid

import pytest

from nova_clone.compute import power_state
from nova_clone import context as nova_context
from nova_clone import exception
from nova_clone.objects import migration as migration_obj
from nova_clone.virt.libvirt import imagebackend
from tests.integration import libvirt_hosts
from tests.integration.libvirt_hosts import IMAGE_META
from tests.integration.libvirt_hosts import wait_console

pytestmark = pytest.mark.integration

GIB = 1024 ** 3
# Written into the disk while it waits on the source: proves the bytes
# themselves reached the destination.
PATTERN = ('0x5a', '1M', '64k')


@pytest.fixture(scope='module')
def hosts(make_driver, tmp_path_factory):
    """Hosts A and B: two daemons, instances_path <root>/<host> each, as
    `stack up --driver libvirt` lays them out."""
    root = tmp_path_factory.mktemp('instances')
    return (make_driver(1, root / 'nclv-host1'),
            make_driver(2, root / 'nclv-host2'))


@pytest.fixture
def guest(hosts, libvirt_env):
    """A running tiny guest on host A; removed from both hosts after."""
    ctx = nova_context.get_admin_context()
    inst = libvirt_hosts.make_instance()
    host_a = hosts[0]
    host_a.spawn(ctx, inst, IMAGE_META, [], None, {})
    wait_console(host_a, ctx, inst, libvirt_env['GUEST_MARKER'])
    yield ctx, inst
    for drv in hosts:
        drv.destroy(ctx, inst, [])
        shutil.rmtree(drv.instance_dir(inst) + '_resize', ignore_errors=True)


def _migration(source, dest):
    return migration_obj.Migration(
        uuid=str(uuid.uuid4()), migration_type='resize',
        source_compute=source.get_available_nodes()[0],
        dest_compute=dest.get_available_nodes()[0],
        source_node=source.get_available_nodes()[0],
        dest_node=dest.get_available_nodes()[0])


def _bigger():
    return libvirt_hosts.flavor('small', 't2', memory_mb=192, vcpus=2,
                                root_gb=2, id=2)


def _domain(drv, inst):
    """(state, memory MiB, vCPUs) as the daemon reports the guest."""
    state, max_kib, _mem, vcpus, _cpu = drv._host.get_domain(inst).info()
    return drv.get_info(inst).state, max_kib // 1024, vcpus


def _qemu_io(path, command, *options):
    return subprocess.run(['qemu-io', *options, '-c',
                           '%s -P %s %s %s' % ((command,) + PATTERN), path],
                          capture_output=True, text=True, timeout=60)


def _move(source, dest, ctx, inst, new_flavor):
    """The source's part of a move to new_flavor; then the instance
    carries the new flavor, as the manager leaves it for the
    destination's finish_migration."""
    migration = _migration(source, dest)
    disk_info = source.migrate_disk_and_power_off(
        ctx, inst, dest.get_available_nodes()[0], new_flavor, [],
        timeout=30, retry_interval=10)
    old_flavor = inst.flavor
    inst.apply_flavor(new_flavor)
    inst.old_flavor, inst.new_flavor = old_flavor, new_flavor
    return migration, disk_info


def test_resize_to_another_host_then_confirm(hosts, guest, libvirt_env):
    host_a, host_b = hosts
    ctx, inst = guest
    dir_a, dir_b = host_a.instance_dir(inst), host_b.instance_dir(inst)
    bigger = _bigger()

    migration, disk_info = _move(host_a, host_b, ctx, inst, bigger)
    # Source: stopped cleanly, its files set aside as the backup.
    assert _domain(host_a, inst)[0] == power_state.SHUTDOWN
    backup = dir_a + '_resize'
    assert not os.path.exists(dir_a)
    with open(os.path.join(backup, 'console.log')) as f:
        assert 'GUEST-POWEROFF' in f.read()
    (disk,) = json.loads(disk_info)
    assert disk['path'] == os.path.join(backup, 'disk')
    assert disk['type'] == 'qcow2' and disk['virt_disk_size'] == GIB
    assert _qemu_io(disk['path'], 'write').returncode == 0

    host_b.finish_migration(ctx, migration, inst, disk_info, [], IMAGE_META,
                            True, {})
    wait_console(host_b, ctx, inst, libvirt_env['GUEST_MARKER'])
    assert _domain(host_b, inst) == (power_state.RUNNING, 192, 2)
    # The disk was copied into B's own directory, grown to the new root
    # size and backed by B's own copy of the image.
    disk_b = os.path.join(dir_b, 'disk')
    info = imagebackend.image_info(disk_b)
    assert info['virtual-size'] == 2 * GIB
    assert info['backing-filename'] == \
        host_b.image_cache.path_for('disk-image')
    assert os.path.dirname(dir_b) != os.path.dirname(dir_a)
    read = _qemu_io(disk_b, 'read', '-U', '-r')
    assert read.returncode == 0, read.stdout + read.stderr
    assert disk_b in host_b._host.get_domain(inst).XMLDesc(0)

    host_a.confirm_migration(ctx, migration, inst, [])
    assert inst.uuid not in host_a.list_instance_uuids()
    assert not os.path.exists(backup) and not os.path.exists(dir_a)
    # B is untouched by the source's cleanup.
    assert _domain(host_b, inst)[0] == power_state.RUNNING
    assert os.path.exists(disk_b)


def test_resize_then_revert(hosts, guest, libvirt_env):
    host_a, host_b = hosts
    ctx, inst = guest
    dir_a, dir_b = host_a.instance_dir(inst), host_b.instance_dir(inst)
    marker = libvirt_env['GUEST_MARKER']
    bigger = _bigger()

    migration, disk_info = _move(host_a, host_b, ctx, inst, bigger)
    host_b.finish_migration(ctx, migration, inst, disk_info, [], IMAGE_META,
                            True, {})
    wait_console(host_b, ctx, inst, marker)

    # The manager's revert: the destination destroys its copy ...
    host_b.destroy(ctx, inst, [], None, destroy_disks=True)
    assert inst.uuid not in host_b.list_instance_uuids()
    assert not os.path.exists(dir_b)
    assert os.path.exists(os.path.join(dir_a + '_resize', 'disk'))
    # ... and the source gets the old flavor back and restarts.
    inst.apply_flavor(inst.old_flavor)
    host_a.finish_revert_migration(ctx, inst, [], migration)
    wait_console(host_a, ctx, inst, marker, count=2)
    assert _domain(host_a, inst) == (power_state.RUNNING, 128, 1)
    assert not os.path.exists(dir_a + '_resize')
    # The source's own disk, never grown.
    info = imagebackend.image_info(os.path.join(dir_a, 'disk'))
    assert info['virtual-size'] == GIB
    # The image's kernel command line came back from the instance's
    # system metadata.
    xml = host_a._host.get_domain(inst).XMLDesc(0)
    assert libvirt_hosts.CMDLINE in xml


def test_cold_migration_of_a_stopped_guest(hosts, guest, libvirt_env):
    host_a, host_b = hosts
    ctx, inst = guest
    host_a.power_off(inst, timeout=30, retry_interval=10)
    migration, disk_info = _move(host_a, host_b, ctx, inst, inst.flavor)
    # A stopped guest arrives stopped (the manager's power_on=False).
    host_b.finish_migration(ctx, migration, inst, disk_info, [], IMAGE_META,
                            False, {}, power_on=False)
    assert _domain(host_b, inst) == (power_state.SHUTDOWN, 128, 1)
    disk_b = os.path.join(host_b.instance_dir(inst), 'disk')
    assert imagebackend.image_info(disk_b)['virtual-size'] == GIB
    host_a.confirm_migration(ctx, migration, inst, [])
    assert inst.uuid not in host_a.list_instance_uuids()
    host_b.power_on(ctx, inst, [])
    wait_console(host_b, ctx, inst, libvirt_env['GUEST_MARKER'])
    assert _domain(host_b, inst)[0] == power_state.RUNNING


def test_resize_on_the_same_host_then_confirm(hosts, guest, libvirt_env):
    host_a = hosts[0]
    ctx, inst = guest
    bigger = _bigger()
    migration, disk_info = _move(host_a, host_a, ctx, inst, bigger)
    host_a.finish_migration(ctx, migration, inst, disk_info, [], IMAGE_META,
                            True, {})
    wait_console(host_a, ctx, inst, libvirt_env['GUEST_MARKER'])
    host_a.confirm_migration(ctx, migration, inst, [])
    # Confirming on the host the guest now runs on keeps it running.
    assert _domain(host_a, inst) == (power_state.RUNNING, 192, 2)
    assert not os.path.exists(host_a.instance_dir(inst) + '_resize')


def test_resize_down_is_refused_before_anything_stops(hosts, guest):
    host_a, host_b = hosts
    ctx, inst = guest
    smaller = libvirt_hosts.flavor('zero', 't0', root_gb=0, id=3)
    with pytest.raises(exception.InstanceFaultRollback) as err:
        host_a.migrate_disk_and_power_off(ctx, inst, 'nclv-host2', smaller,
                                          [])
    assert 'Unable to resize disk down' in str(err.value)
    assert _domain(host_a, inst)[0] == power_state.RUNNING
    assert os.path.exists(host_a.instance_dir(inst))


def test_a_failed_finish_leaves_the_source_able_to_revert(hosts, guest,
                                                          libvirt_env):
    host_a, host_b = hosts
    ctx, inst = guest
    migration, disk_info = _move(host_a, host_b, ctx, inst, _bigger())
    # The destination cannot read the disk where disk_info says it is.
    (disk,) = json.loads(disk_info)
    unreadable = json.dumps([dict(disk, path='/nonexistent/disk')])
    with pytest.raises(exception.DiskNotFound):
        host_b.finish_migration(ctx, migration, inst, unreadable, [],
                                IMAGE_META, True, {})
    assert inst.uuid not in host_b.list_instance_uuids()
    assert not os.path.exists(host_b.instance_dir(inst))
    assert os.path.exists(disk['path'])

    inst.apply_flavor(inst.old_flavor)
    host_a.finish_revert_migration(ctx, inst, [], migration)
    wait_console(host_a, ctx, inst, libvirt_env['GUEST_MARKER'], count=2)
    assert _domain(host_a, inst) == (power_state.RUNNING, 128, 1)


def test_revert_over_a_shared_instances_path(make_driver, libvirt_env,
                                             tmp_path_factory):
    """Both hosts keep instances in one directory: the destination's copy
    and the source's backup sit side by side, and the destination's
    destroy removes only its copy."""
    shared = tmp_path_factory.mktemp('shared-instances')
    host_a, host_b = make_driver(1, shared), make_driver(2, shared)
    ctx = nova_context.get_admin_context()
    inst = libvirt_hosts.make_instance()
    marker = libvirt_env['GUEST_MARKER']
    host_a.spawn(ctx, inst, IMAGE_META, [], None, {})
    try:
        wait_console(host_a, ctx, inst, marker)
        migration, disk_info = _move(host_a, host_b, ctx, inst, _bigger())
        host_b.finish_migration(ctx, migration, inst, disk_info, [],
                                IMAGE_META, True, {})
        wait_console(host_b, ctx, inst, marker)
        assert _domain(host_b, inst) == (power_state.RUNNING, 192, 2)
        host_b.destroy(ctx, inst, [], None, destroy_disks=True)
        assert os.path.exists(os.path.join(str(shared), inst.uuid +
                                           '_resize', 'disk'))
        inst.apply_flavor(inst.old_flavor)
        host_a.finish_revert_migration(ctx, inst, [], migration)
        wait_console(host_a, ctx, inst, marker, count=2)
        assert _domain(host_a, inst) == (power_state.RUNNING, 128, 1)
        assert imagebackend.image_info(os.path.join(
            host_a.instance_dir(inst), 'disk'))['virtual-size'] == GIB
    finally:
        for drv in (host_b, host_a):
            drv.destroy(ctx, inst, [])
