"""Stack layout: names, ports and paths decided once and kept."""

import configparser
import os

import pytest

from nova_clone.stack import clouds
from nova_clone.stack import ini as stack_ini
from nova_clone.stack import layout as stack_layout
from nova_clone.stack import nova as stack_nova
from nova_clone.stack import peers as stack_peers


def _layout(tmp_path, **kw):
    args = dict(name='teststack', state_dir=str(tmp_path / 'st'),
                host_ip='127.0.0.1', base_port=20000, computes=3, cells=2,
                driver='fake')
    args.update(kw)
    return stack_layout.StackLayout.create(**args)


def _ini(path):
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str
    parser.read(path)
    return parser


def test_base_port_gives_consecutive_ports(tmp_path):
    lay = _layout(tmp_path)
    assert [lay.ports[s] for s in stack_layout.HTTP_SERVICES] == list(
        range(20000, 20006))
    assert lay.url('nova-api') == 'http://127.0.0.1:20002'
    assert lay.auth_url == 'http://127.0.0.1:20000/v3'


def test_free_ports_when_no_base(tmp_path):
    lay = _layout(tmp_path, base_port=0)
    ports = list(lay.ports.values())
    assert len(set(ports)) == 6 and all(p > 0 for p in ports)


@pytest.mark.parametrize('name', ['', 'Upper', '1abc', 'has-dash',
                                  'x' * 25, 'a;drop'])
def test_bad_names_are_refused(tmp_path, name):
    with pytest.raises(stack_layout.LayoutError):
        _layout(tmp_path, name=name)


def test_bad_base_port_is_refused(tmp_path):
    with pytest.raises(stack_layout.LayoutError):
        _layout(tmp_path, base_port=65533)


def test_save_and_load_round_trip(tmp_path):
    lay = _layout(tmp_path)
    lay.save()
    assert oct(os.stat(lay.state_file).st_mode & 0o777) == '0o600'
    again = stack_layout.StackLayout.load(lay.state_dir)
    assert again.to_dict() == lay.to_dict()
    assert stack_layout.StackLayout.load(str(tmp_path / 'none')) is None


def test_corrupt_state_file_is_a_clean_error(tmp_path):
    (tmp_path / 'stack.json').write_text('{not json')
    with pytest.raises(stack_layout.LayoutError):
        stack_layout.StackLayout.load(str(tmp_path))


def test_databases_and_vhosts_carry_the_stack_name(tmp_path):
    lay = _layout(tmp_path)
    assert lay.db_names() == [
        'teststack_keystone', 'teststack_placement', 'teststack_nova_api',
        'teststack_nova_cell0', 'teststack_nova_cell1',
        'teststack_nova_cell2', 'teststack_glance', 'teststack_neutron',
        'teststack_cinder']
    assert lay.vhosts() == ['teststack', 'teststack_cell1',
                            'teststack_cell2']
    assert lay.transport_url(2).endswith('/teststack_cell2')
    assert [lay.cell_of_compute(i) for i in (1, 2, 3)] == [1, 2, 1]


def test_nova_confs_split_api_cell_and_compute(tmp_path):
    lay = _layout(tmp_path)
    stack_nova.write_confs(lay)
    top = _ini(stack_nova.top_conf_path(lay))
    assert top['api_database']['connection'] == lay.db_url('nova_api')
    assert top['database']['connection'] == lay.db_url('nova_cell0')
    assert top['DEFAULT']['transport_url'] == lay.transport_url()
    assert top['keystone_authtoken']['username'] == 'nova'
    cell2 = _ini(stack_nova.cell_conf_path(lay, 2))
    assert not cell2.has_section('api_database')
    assert cell2['database']['connection'] == lay.db_url('nova_cell2')
    assert cell2['DEFAULT']['transport_url'] == lay.transport_url(2)
    cpu = _ini(stack_nova.compute_conf_path(lay, 'compute2'))
    assert cpu['DEFAULT']['host'] == 'compute2'
    assert cpu['DEFAULT']['transport_url'] == lay.transport_url(2)
    assert not cpu.has_section('database')
    assert not cpu.has_section('libvirt')
    assert cpu['placement']['username'] == 'placement'
    assert cpu['placement']['password'] == lay.service_password


def test_libvirt_computes_use_qemu(tmp_path):
    lay = _layout(tmp_path, driver='libvirt')
    stack_nova.write_confs(lay)
    cpu = _ini(stack_nova.compute_conf_path(lay, 'compute1'))
    assert cpu['DEFAULT']['compute_driver'] == 'libvirt.LibvirtDriver'
    assert cpu['libvirt']['virt_type'] == 'qemu'


def test_peer_conf_points_at_keystone_and_nova(tmp_path):
    lay = _layout(tmp_path)
    conf = _ini(stack_peers.write_conf(lay, 'neutron'))
    assert conf['peers']['connection'] == lay.db_url('neutron')
    assert conf['peers']['neutron_port'] == str(lay.ports['neutron'])
    assert conf['keystone_authtoken']['username'] == 'neutron'
    assert conf['nova']['endpoint_override'] == (lay.url('nova-api') +
                                                  '/v2.1')


def test_ini_keeps_percent_and_drops_none(tmp_path):
    text = stack_ini.render({'s': {'url': 'http://x/v3/%(project_id)s',
                                   'flag': True, 'unset': None}})
    assert 'url = http://x/v3/%(project_id)s' in text
    assert 'flag = true' in text
    assert 'unset' not in text


def test_clouds_yaml_has_admin_demo_reader(tmp_path):
    import yaml
    path = clouds.write(str(tmp_path / 'c' / 'clouds.yaml'),
                        'http://127.0.0.1:1/v3', 'pw')
    data = yaml.safe_load(open(path))['clouds']
    assert set(data) == {'admin', 'demo', 'reader'}
    assert data['reader']['auth']['project_name'] == 'demo'
    assert data['admin']['auth']['password'] == 'pw'


@pytest.mark.parametrize('name', ['nova.conf', 'nova_cell1.conf',
                                  'nova-cpu.conf'])
def test_deployment_examples_load_with_our_options(name):
    from oslo_config import cfg
    from oslo_messaging import opts as messaging_opts

    from nova_clone import conf as nc_conf
    root = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.dirname(os.path.abspath(__file__)))))
    path = os.path.join(root, 'etc', 'nova', 'deployment', name)
    conf = cfg.ConfigOpts()
    for module in nc_conf.MODULES:
        module.register_opts(conf)
    for group, opts in messaging_opts.list_opts():
        conf.register_opts(opts, group=group)
    conf(['--config-file', path], project='nova')
    assert conf.transport_url.startswith('rabbit://')
    assert conf.placement.auth_type == 'password'
    if name == 'nova.conf':
        assert conf.api_database.connection.endswith('/nova_api'
                                                     '?charset=utf8mb4')
        assert conf.osapi_compute_listen_port == 8774
    if name == 'nova-cpu.conf':
        assert conf.host == 'compute1'
        assert conf.database.connection is None
        assert conf.libvirt.virt_type == 'kvm'
