"""Fixtures of the tests that drive LibvirtDriver against real libvirtd
daemons started by tools/setup-libvirt."""

import shutil
import uuid

import pytest

from nova_clone.conf import CONF
from nova_clone.virt import driver as virt_driver
from tests.integration import libvirt_hosts


@pytest.fixture(scope='session')
def libvirt_env():
    try:
        import libvirt  # noqa: F401
    except ImportError:
        pytest.fail('libvirt-python is not installed: '
                    'pip install -e ".[libvirt]"')
    # Short path: the daemon's unix socket path must fit in 108 bytes.
    state = '/tmp/nclv-%s' % uuid.uuid4().hex[:8]
    try:
        # Two daemons: two "hosts" for migrations.
        yield libvirt_hosts.run_setup(state, LIBVIRT_INSTANCES='2',
                                      LIBVIRT_HOSTNAME_PREFIX='nclv-host')
    finally:
        libvirt_hosts.run_setup('stop', state)
        shutil.rmtree(state, ignore_errors=True)


@pytest.fixture(scope='module')
def make_driver(libvirt_env):
    """make_driver(daemon_number, instances_path) -> an initialised driver.

    Each driver keeps the URI and instances_path it was started with, so
    several "compute hosts" live in this one process.
    """
    common = [('virt_type', libvirt_env['LIBVIRT_VIRT_TYPE'], 'libvirt'),
              ('tb_cache_size', 32, 'libvirt')]
    for name, value, group in common:
        CONF.set_override(name, value, group=group)
    drivers = []

    def make(number, instances_path):
        CONF.set_override('connection_uri',
                          libvirt_env['LIBVIRT_URI_%d' % number], 'libvirt')
        CONF.set_override('instances_path', str(instances_path))
        try:
            drv = virt_driver.load_compute_driver(None,
                                                  'libvirt.LibvirtDriver')
            drv.init_host('libvirt-it-%d' % number)
        finally:
            CONF.clear_override('connection_uri', 'libvirt')
            CONF.clear_override('instances_path')
        downloads = []

        # The image service of this test: the payload files stand for the
        # Glance images (the driver's Glance path is the compute helper's).
        def download(ctx, image_id, dest):
            downloads.append(image_id)
            shutil.copyfile(libvirt_env[libvirt_hosts.IMAGES[image_id]],
                            dest)

        drv.image_download = download
        drv.downloads = downloads
        drivers.append(drv)
        return drv

    yield make
    for drv in drivers:
        drv.cleanup_host(None)
    for name, _, group in common:
        CONF.clear_override(name, group=group)
