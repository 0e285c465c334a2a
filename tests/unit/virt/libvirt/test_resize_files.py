"""The file side of the libvirt driver's resize and cold migration: which
disks travel, the backup directory, the copy on the destination."""

import pytest

from nova_clone import exception
from nova_clone.objects import flavor as flavor_obj
from nova_clone.objects import instance as instance_obj
from nova_clone.virt.libvirt import config as vconfig
from nova_clone.virt.libvirt import resize
from nova_clone.virt.libvirt import utils


def test_only_disks_in_the_instance_directory_travel(tmp_path):
    inst_dir = str(tmp_path / 'uuid-1')
    guest = vconfig.Guest(
        virt_type='qemu', name='instance-1', uuid='uuid-1', memory_mb=128,
        vcpus=1, disks=[
            vconfig.GuestDisk(source_path=inst_dir + '/disk',
                              target_dev='vda'),
            vconfig.GuestDisk(source_path='/volumes/vol-1',
                              target_dev='vdb', driver_format='raw')])
    assert resize.local_disk_names(guest.to_xml(), inst_dir) == ['disk']


def test_copy_then_restore_and_remove(tmp_path):
    source = tmp_path / 'a' / 'uuid-1'
    backup = tmp_path / 'a' / 'uuid-1_resize'
    backup.mkdir(parents=True)
    (backup / 'disk').write_bytes(b'guest data')
    dest = tmp_path / 'b' / 'uuid-1'
    copied = resize.copy_disks([{'path': str(backup / 'disk')}], str(dest))
    assert copied == [str(dest / 'disk')]
    assert (dest / 'disk').read_bytes() == b'guest data'
    assert (backup / 'disk').exists()

    # A same-host move left new files in the instance directory: the
    # backup replaces them.
    source.mkdir()
    (source / 'disk').write_bytes(b'new guest')
    assert resize.restore(str(source))
    assert (source / 'disk').read_bytes() == b'guest data'
    assert not backup.exists()
    assert not resize.restore(str(source))
    assert (source / 'disk').exists()

    backup.mkdir()
    resize.remove_backup(str(source))
    assert not backup.exists() and source.exists()


def test_a_disk_the_destination_cannot_read_fails_the_copy(tmp_path):
    with pytest.raises(exception.DiskNotFound) as err:
        resize.copy_disks([{'path': str(tmp_path / 'gone' / 'disk')}],
                          str(tmp_path / 'dest'))
    assert str(tmp_path / 'gone' / 'disk') in err.value.format_message()


def test_move_aside_needs_the_instance_directory(tmp_path):
    with pytest.raises(exception.DiskNotFound):
        resize.move_aside(str(tmp_path / 'missing'), ['disk'])


def test_sizes_come_from_the_flavor_the_instance_has_now():
    small = flavor_obj.Flavor(memory_mb=192, vcpus=2, root_gb=2)
    # A resize sets the new flavor; the instance's own fields may lag.
    inst = instance_obj.Instance(memory_mb=128, vcpus=1, root_gb=1,
                                 flavor=small)
    assert [utils.flavor_value(inst, f) for f in
            ('memory_mb', 'vcpus', 'root_gb')] == [192, 2, 2]
    assert utils.flavor_value(instance_obj.Instance(memory_mb=64),
                              'memory_mb') == 64
