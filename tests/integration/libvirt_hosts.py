"""Helpers of the tests that drive LibvirtDriver against real libvirtd
daemons (tools/setup-libvirt): the tiny guest's instance and image, and
a bounded wait for its console."""

import os
import subprocess
import time
import uuid

import pytest

from nova_clone.objects import flavor as flavor_obj
from nova_clone.objects import instance as instance_obj

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
SETUP = os.path.join(ROOT, 'tools', 'setup-libvirt')
# The payload (a 70 MB kernel package download) is cached across runs.
PAYLOAD_CACHE = '/tmp/nova-clone-libvirt-payload'
BOOT_TIMEOUT = 90
# Image ids of the test's image service -> the payload file standing for
# each (a key of tools/setup-libvirt's output).
IMAGES = {'disk-image': 'PAYLOAD_DISK', 'kernel-image': 'PAYLOAD_KERNEL',
          'ramdisk-image': 'PAYLOAD_RAMDISK'}
CMDLINE = 'console=ttyS0 quiet panic=-1'
IMAGE_META = {'id': 'disk-image', 'disk_format': 'raw',
              'properties': {'os_command_line': CMDLINE}}


def run_setup(*args, **env_vars):
    env = dict(os.environ, PAYLOAD_DIR=PAYLOAD_CACHE, **env_vars)
    proc = subprocess.run([SETUP, *args], env=env, capture_output=True,
                          text=True, timeout=600)
    if proc.returncode:
        pytest.fail('tools/setup-libvirt %s failed:\n%s%s' %
                    (' '.join(args), proc.stdout, proc.stderr))
    return dict(line.split('=', 1) for line in proc.stdout.splitlines()
                if '=' in line)


def flavor(name='tiny', flavorid='t1', memory_mb=128, vcpus=1, root_gb=1,
           id=1):
    return flavor_obj.Flavor(id=id, name=name, flavorid=flavorid,
                             memory_mb=memory_mb, vcpus=vcpus,
                             root_gb=root_gb, ephemeral_gb=0, swap=0)


def make_instance(cmdline=CMDLINE):
    """The tiny guest as the compute manager would hand it over, with the
    image properties it was booted from (its kernel command line
    ``cmdline``) in its system metadata."""
    tiny = flavor()
    return instance_obj.Instance(
        id=int(uuid.uuid4().int % 0xFFFFFFF), uuid=str(uuid.uuid4()),
        memory_mb=128, vcpus=1, root_gb=1, ephemeral_gb=0,
        image_ref='disk-image', kernel_id='kernel-image',
        ramdisk_id='ramdisk-image', flavor=tiny, display_name='tiny',
        user_id='u1', project_id='p1',
        system_metadata={'image_disk_format': 'raw',
                         'image_os_command_line': cmdline})


def wait_console(drv, ctx, inst, text, count=1, timeout=BOOT_TIMEOUT):
    deadline = time.monotonic() + timeout
    while True:
        out = drv.get_console_output(ctx, inst)
        if out.count(text) >= count:
            return out
        if time.monotonic() > deadline:
            pytest.fail('%r (x%d) not on the console after %s s; tail:\n%s'
                        % (text, count, timeout, out[-1500:]))
        time.sleep(0.25)
