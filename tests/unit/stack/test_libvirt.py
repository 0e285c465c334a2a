"""Where a libvirt stack's daemons live and how its computes reach them."""

import configparser

import pytest

from nova_clone.stack import layout as stack_layout
from nova_clone.stack import libvirt as stack_libvirt
from nova_clone.stack import nova as stack_nova


def _layout(state_dir, computes=2, driver='libvirt'):
    return stack_layout.StackLayout.create(
        'lvstack', str(state_dir), '127.0.0.1', 20000, computes, 1, driver)


def _ini(path):
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(path)
    return parser


def test_each_compute_gets_its_own_daemon(tmp_path):
    lay = _layout(tmp_path / 'st')
    stack_nova.write_confs(lay)
    uris = []
    for host in ('compute1', 'compute2'):
        section = _ini(stack_nova.compute_conf_path(lay, host))['libvirt']
        assert section['virt_type'] == 'qemu'
        uris.append(section['connection_uri'])
    # Under the stack's state dir, or a short /tmp dir when the socket
    # path would be too long for AF_UNIX (xdist's tmp paths are long).
    where = stack_libvirt.state_dir(lay)
    assert where in (lay.path('libvirt'),
                     '/tmp/nclv-' + where.rsplit('-', 1)[-1])
    assert uris == [
        'qemu+unix:///system?socket=%s/%d/run/libvirt-sock'
        % (where, i) for i in (1, 2)]


def test_fake_computes_have_no_libvirt_section(tmp_path):
    lay = _layout(tmp_path / 'st', driver='fake')
    stack_nova.write_confs(lay)
    assert not _ini(stack_nova.compute_conf_path(
        lay, 'compute1')).has_section('libvirt')


def test_long_state_dir_gets_a_short_stable_socket_dir(tmp_path):
    deep = tmp_path / ('x' * 90)
    lay = _layout(deep)
    short = stack_libvirt.state_dir(lay)
    assert short.startswith('/tmp/nclv-')
    assert short == stack_libvirt.state_dir(_layout(deep, computes=5))
    assert short != stack_libvirt.state_dir(_layout(tmp_path / 'other'))
    # The socket path must fit in sockaddr_un.
    assert len(short + '/999/run/libvirt-sock-admin') <= 107


def test_down_of_a_stack_without_daemons_does_nothing(tmp_path):
    lay = _layout(tmp_path / 'st')
    assert stack_libvirt.stop(lay) == 'not running'


def test_seed_without_payload_is_a_clean_error(tmp_path):
    with pytest.raises(stack_libvirt.LibvirtSetupError,
                       match='PAYLOAD_KERNEL'):
        stack_libvirt.seed(None, {'image': 'http://127.0.0.1:1',
                                  'compute': 'http://127.0.0.1:1'},
                           {'PAYLOAD_KERNEL': str(tmp_path / 'nope')})


def test_up_without_root_says_why(tmp_path, monkeypatch, capsys):
    from nova_clone.stack import up as stack_up
    monkeypatch.setattr(stack_libvirt.os, 'geteuid', lambda: 1000)
    with pytest.raises(stack_up.StackFailed, match='needs root'):
        stack_up.Up(_layout(tmp_path / 'st')).libvirt()
