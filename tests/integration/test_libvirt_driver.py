"""LibvirtDriver against a real libvirtd and QEMU (TCG where KVM is not
usable), started by tools/setup-libvirt.

The driver is driven directly, as the compute manager would: one tiny
guest (Debian kernel + busybox initramfs booted directly from AMI-style
kernel/ramdisk images, on a qcow2 overlay of a raw root image) is spawned,
checked, given a volume, powered off and on, and destroyed.  Boots are
serialised and every wait is bounded.
"""

import os
import pathlib
import uuid
import xml.etree.ElementTree as ET

import pytest

from nova_clone.compute import power_state
from nova_clone.conf import CONF
from nova_clone import context as nova_context
from nova_clone import exception
from nova_clone.placement import provider_tree
from nova_clone.virt.libvirt import imagebackend
from tests.integration import libvirt_hosts
from tests.integration.libvirt_hosts import IMAGE_META
from tests.integration.libvirt_hosts import make_instance
from tests.integration.libvirt_hosts import wait_console

pytestmark = pytest.mark.integration


@pytest.fixture(scope='module')
def drv(make_driver, tmp_path_factory):
    return make_driver(1, tmp_path_factory.mktemp('instances'))


@pytest.fixture(scope='module')
def guest(drv, libvirt_env):
    ctx = nova_context.get_admin_context()
    inst = make_instance()
    drv.spawn(ctx, inst, IMAGE_META, [], None, {})
    yield ctx, inst
    drv.destroy(ctx, inst, [])


def test_host_resources_and_inventory(drv):
    nodes = drv.get_available_nodes()
    # The node is named as the daemon's host reports itself.
    assert nodes == ['nclv-host1']
    res = drv.get_available_resource(nodes[0])
    assert res['hypervisor_type'] == 'QEMU'
    assert res['hypervisor_version'] >= 2000000
    assert res['vcpus'] >= 1 and res['memory_mb'] > 0
    assert res['local_gb'] > 0
    tree = provider_tree.ProviderTree()
    tree.new_root(nodes[0], str(uuid.uuid4()))
    drv.update_provider_tree(tree, nodes[0])
    inv = tree.data(nodes[0]).inventory
    assert inv['VCPU']['total'] == res['vcpus']
    assert inv['MEMORY_MB']['total'] == res['memory_mb']
    assert inv['DISK_GB']['total'] == res['local_gb']
    assert 'COMPUTE_STORAGE_BUS_VIRTIO' in tree.data(nodes[0]).traits
    with pytest.raises(exception.HypervisorUnavailable):
        drv.get_available_resource('not-' + nodes[0])


def test_spawn_boots_the_guest(drv, guest, libvirt_env):
    ctx, inst = guest
    out = wait_console(drv, ctx, inst, libvirt_env['GUEST_MARKER'])
    assert 'disks=vda,' in out
    assert drv.get_info(inst).state == power_state.RUNNING
    assert inst.uuid in drv.list_instance_uuids()
    assert inst.name in drv.list_instances()
    # The root disk is a qcow2 overlay of the raw base image in _base,
    # grown to the flavor's root_gb.
    disk = os.path.join(drv.instance_dir(inst), 'disk')
    info = imagebackend.image_info(disk)
    assert info['format'] == 'qcow2'
    assert info['virtual-size'] == 1024 ** 3
    assert info['backing-filename'] == drv.image_cache.path_for('disk-image')
    assert sorted(drv.downloads) == sorted(libvirt_hosts.IMAGES)


def test_attach_and_detach_file_volume(drv, guest, tmp_path):
    ctx, inst = guest
    vol = tmp_path / 'volume-1'
    with open(vol, 'wb') as f:
        f.truncate(16 * 1024 ** 2)  # sparse
    conn_info = {'driver_volume_type': 'file',
                 'data': {'device_path': str(vol), 'volume_id': 'vol-1',
                          'access_mode': 'rw'},
                 'serial': 'vol-1'}
    connector = drv.get_volume_connector(inst)
    assert connector['host'] == CONF.host and 'initiator' not in connector
    drv.attach_volume(ctx, conn_info, inst, '/dev/vdb')
    wait_console(drv, ctx, inst, 'GUEST-DISK add vdb', timeout=30)
    dom = drv._host.get_domain(inst)
    sources = [s.get('file') for s in
               ET.fromstring(dom.XMLDesc(0)).findall('./devices/disk/source')]
    assert str(vol) in sources
    drv.detach_volume(ctx, conn_info, inst, '/dev/vdb')
    wait_console(drv, ctx, inst, 'GUEST-DISK remove vdb', timeout=30)
    import libvirt
    persistent = dom.XMLDesc(libvirt.VIR_DOMAIN_XML_INACTIVE)
    assert str(vol) not in persistent and str(vol) not in dom.XMLDesc(0)


def test_attach_volume_errors_are_clean(drv, guest):
    ctx, inst = guest
    with pytest.raises(exception.VolumeDriverNotFound):
        drv.attach_volume(ctx, {'driver_volume_type': 'iscsi', 'data': {}},
                          inst, '/dev/vdc')
    with pytest.raises(exception.DiskNotFound):
        drv.attach_volume(ctx, {'driver_volume_type': 'file',
                                'data': {'device_path': '/nonexistent/v'}},
                          inst, '/dev/vdc')


def test_power_off_and_on(drv, guest, libvirt_env):
    ctx, inst = guest
    # A clean (ACPI) shutdown first: the guest says goodbye on its console.
    drv.power_off(inst, timeout=30, retry_interval=10)
    assert drv.get_info(inst).state == power_state.SHUTDOWN
    assert 'GUEST-POWEROFF' in drv.get_console_output(ctx, inst)
    drv.power_on(ctx, inst, [])
    assert drv.get_info(inst).state == power_state.RUNNING
    # The console log is appended to: the second boot adds its marker.
    wait_console(drv, ctx, inst, libvirt_env['GUEST_MARKER'], count=2)


def test_pause_suspend_and_resume(drv, guest, libvirt_env):
    ctx, inst = guest
    marker = libvirt_env['GUEST_MARKER']
    wait_console(drv, ctx, inst, marker)
    boots = drv.get_console_output(ctx, inst).count(marker)
    drv.pause(inst)
    assert drv.get_info(inst).state == power_state.PAUSED
    drv.unpause(inst)
    assert drv.get_info(inst).state == power_state.RUNNING
    drv.suspend(ctx, inst)
    assert drv.get_info(inst).state == power_state.SHUTDOWN
    drv.resume(ctx, inst, [])
    assert drv.get_info(inst).state == power_state.RUNNING
    # Restored from memory, not booted again: it still reacts to a
    # hot-plugged disk, and no new boot marker appeared.
    vol = _volume(pathlib.Path(drv.instance_dir(inst)), 'vol-r1')
    # (The guest names disks in arrival order, whatever the target.)
    added = drv.get_console_output(ctx, inst).count('GUEST-DISK add vd')
    drv.attach_volume(ctx, vol, inst, '/dev/vdc')
    wait_console(drv, ctx, inst, 'GUEST-DISK add vd', count=added + 1,
                  timeout=30)
    drv.detach_volume(ctx, vol, inst, '/dev/vdc')
    assert drv.get_console_output(ctx, inst).count(marker) == boots
    with pytest.raises(exception.InstanceNotRunning):
        drv.resume(ctx, inst, [])


def test_soft_and_hard_reboot(drv, guest, libvirt_env):
    ctx, inst = guest
    marker = libvirt_env['GUEST_MARKER']
    out = wait_console(drv, ctx, inst, marker)
    boots, poweroffs = out.count(marker), out.count('GUEST-POWEROFF')
    # Soft: the guest is asked to shut down (and does), then restarts.
    drv.reboot(ctx, inst, [], 'SOFT')
    assert drv.get_info(inst).state == power_state.RUNNING
    out = wait_console(drv, ctx, inst, marker, count=boots + 1)
    assert out.count('GUEST-POWEROFF') == poweroffs + 1
    # Hard: no word to the guest, it just boots again.
    drv.reboot(ctx, inst, [], 'HARD')
    assert drv.get_info(inst).state == power_state.RUNNING
    out = wait_console(drv, ctx, inst, marker, count=boots + 2)
    assert out.count('GUEST-POWEROFF') == poweroffs + 1


def test_destroy_leaves_nothing(drv, libvirt_env):
    ctx = nova_context.get_admin_context()
    inst = make_instance()
    drv.spawn(ctx, inst, IMAGE_META, [], None, {}, power_on=False)
    assert drv.get_info(inst).state == power_state.SHUTDOWN
    inst_dir = drv.instance_dir(inst)
    assert os.path.isdir(inst_dir)
    drv.destroy(ctx, inst, [])
    assert inst.uuid not in drv.list_instance_uuids()
    assert not os.path.exists(inst_dir)
    with pytest.raises(exception.InstanceNotFound):
        drv.get_info(inst)
    # Destroying a guest that is already gone is not an error.
    drv.destroy(ctx, inst, [])
    # The base image stays cached for the next guest.
    assert drv.image_cache.is_cached('disk-image')


def _volume(tmp_path, name):
    vol = tmp_path / name
    with open(vol, 'wb') as f:
        f.truncate(16 * 1024 ** 2)
    return {'driver_volume_type': 'file',
            'data': {'device_path': str(vol), 'volume_id': name},
            'serial': name}


# -- images from the image service (the Glance stand-in) ---------------------

@pytest.fixture
def glance_images(tmp_path, libvirt_env):
    """The payload uploaded to a Glance stand-in as aki/ari/raw images;
    [glance] points the driver's image API at it."""
    from keystoneauth1 import loading as ks_loading
    from oslo_config import cfg

    from nova_clone.peers import conf as peers_conf
    from nova_clone.image import glance
    from nova_clone import client_auth
    from nova_clone.peers import local

    password = 'secret'
    conf = cfg.ConfigOpts()
    peers_conf.register_opts(conf)
    conf([], project='nova-clone-test', default_config_files=[],
         default_config_dirs=[])
    conf.set_override('connection', 'sqlite:///%s/peers.sqlite' % tmp_path,
                      'peers')
    conf.set_override('admin_password', password, 'peers')
    running = local.LocalPeers(conf).start()
    CONF.register_opts(ks_loading.get_auth_plugin_conf_options('password'),
                       group='glance')
    values = {'auth_type': 'password', 'auth_url': running.auth_url,
              'username': 'nova', 'password': password,
              'project_name': 'service', 'user_domain_name': 'Default',
              'project_domain_name': 'Default',
              'endpoint_override': running.url('glance')}
    previous = {key: CONF._get_opt_info(key, 'glance').get('override')
                for key in values}
    for key, value in values.items():
        CONF.set_override(key, value, group='glance')
    client_auth.reset()
    try:
        ctx = nova_context.get_admin_context()
        api = glance.API()
        disk = tmp_path / 'root.raw'
        with open(disk, 'wb') as f:
            f.truncate(1024 ** 2)
        ids = {}
        for key, path, fmt in (('kernel', libvirt_env['PAYLOAD_KERNEL'],
                                'aki'),
                               ('ramdisk', libvirt_env['PAYLOAD_RAMDISK'],
                                'ari'),
                               ('disk', str(disk), 'raw')):
            with open(path, 'rb') as f:
                ids[key] = api.create(ctx, {
                    'name': key, 'disk_format': fmt,
                    'container_format': 'bare', 'visibility': 'public',
                    'properties': {}}, data=f)['id']
        yield ctx, ids
    finally:
        for key, value in previous.items():
            if value is None:
                CONF.clear_override(key, group='glance')
            else:
                CONF.set_override(key, value, group='glance')
        client_auth.reset()
        running.stop()


def test_spawn_from_glance_images(make_driver, libvirt_env, glance_images,
                                  tmp_path_factory):
    ctx, ids = glance_images
    drv = make_driver(1, tmp_path_factory.mktemp('glance-instances'))
    drv.image_download = None  # the real image API this time
    inst = make_instance()
    inst.image_ref, inst.kernel_id, inst.ramdisk_id = (
        ids['disk'], ids['kernel'], ids['ramdisk'])
    image_meta = dict(IMAGE_META, id=ids['disk'])
    drv.spawn(ctx, inst, image_meta, [], None, {})
    try:
        wait_console(drv, ctx, inst, libvirt_env['GUEST_MARKER'])
        for key in ('disk', 'kernel', 'ramdisk'):
            assert drv.image_cache.is_cached(ids[key])
        assert os.path.getsize(drv.image_cache.path_for(ids['kernel'])) == \
            os.path.getsize(libvirt_env['PAYLOAD_KERNEL'])
    finally:
        drv.destroy(ctx, inst, [])
