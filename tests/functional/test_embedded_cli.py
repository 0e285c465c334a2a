"""`nova-clone up`'s command line: options, ports, start-up refusals."""

import argparse
import socket

import pytest

from nova_clone.embedded import cli as embedded
from nova_clone.embedded import cloud as embedded_cloud


def _parse(*argv):
    parser = argparse.ArgumentParser(prog='nova-clone up')
    embedded.add_arguments(parser)
    return parser, parser.parse_args(list(argv))


def test_help_documents_every_option():
    parser, _ = _parse()
    text = parser.format_help()
    for option in ('--state-dir', '--host', '--base-port', '--api-port',
                   '--identity-port', '--placement-port', '--glance-port',
                   '--neutron-port', '--cinder-port', '--computes',
                   '--clouds-yaml', '--log-file', '--debug',
                   '--config-file'):
        assert option in text
    assert 'openstack --os-cloud nova-clone server create' in text


def test_default_ports_are_the_services_usual_ones():
    _, args = _parse()
    assert embedded.resolve_ports(args) == {
        'api': 8774, 'identity': 5000, 'placement': 8778, 'glance': 9292,
        'neutron': 9696, 'cinder': 8776}


def test_base_port_places_services_and_explicit_ports_win():
    _, args = _parse('--base-port', '20000', '--glance-port', '31000')
    assert embedded.resolve_ports(args) == {
        'api': 20000, 'identity': 20001, 'placement': 20002,
        'glance': 31000, 'neutron': 20004, 'cinder': 20005}


@pytest.mark.parametrize('argv', [
    ['--computes', '0'], ['--computes', 'two'], ['--api-port', '70000'],
    ['--base-port', 'x']])
def test_bad_values_are_usage_errors(argv, capsys):
    parser, _ = _parse()
    with pytest.raises(SystemExit) as exc:
        parser.parse_args(argv)
    assert exc.value.code == 2
    assert 'Traceback' not in capsys.readouterr().err


def test_base_port_too_high_is_one_line(capsys, tmp_path):
    _, args = _parse('--base-port', '65533', '--state-dir', str(tmp_path))
    assert embedded.run(args) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and '--base-port 65533' in err[0]


def test_busy_port_is_one_line_naming_port_and_option(capsys, tmp_path):
    holder = socket.socket()
    holder.bind(('127.0.0.1', 0))
    holder.listen(1)
    port = holder.getsockname()[1]
    try:
        _, args = _parse('--api-port', str(port), '--base-port', '40000',
                         '--state-dir', str(tmp_path))
        assert embedded.run(args) == 1
    finally:
        holder.close()
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert str(port) in err[0]
    assert '--api-port' in err[0] and '--base-port' in err[0]
    # Nothing was started: the state directory was not even created.
    assert not any(tmp_path.iterdir())


def test_state_dir_in_use_is_refused(tmp_path):
    first = embedded_cloud.EmbeddedCloud(str(tmp_path))
    second = embedded_cloud.EmbeddedCloud(str(tmp_path))
    first._take_lock()
    try:
        with pytest.raises(embedded_cloud.StartError) as exc:
            second._take_lock()
        assert str(tmp_path) in str(exc.value)
        assert '--state-dir' in str(exc.value)
    finally:
        first._lock_file.close()


def test_clouds_yaml_keeps_other_clouds_and_replaces_ours(tmp_path):
    import yaml

    from nova_clone.deploy import clouds_yaml
    path = tmp_path / 'clouds.yaml'
    path.write_text(yaml.safe_dump({'clouds': {
        'other': {'auth': {'auth_url': 'http://elsewhere'}},
        'nova-clone': {'auth': {'auth_url': 'http://stale'}}}}))
    creds = {'admin_password': 'pw', 'demo_password': 'pw'}
    entries = embedded_cloud.clouds_entries(
        'nova-clone', 'http://127.0.0.1:5000', creds)
    assert clouds_yaml.merge(str(path), entries)
    clouds = yaml.safe_load(path.read_text())['clouds']
    assert clouds['other'] == {'auth': {'auth_url': 'http://elsewhere'}}
    assert clouds['nova-clone']['auth']['auth_url'] == 'http://127.0.0.1:5000'
    assert clouds['nova-clone']['auth']['username'] == 'admin'
    assert clouds['nova-clone-demo']['auth']['project_name'] == 'demo'
    assert oct(path.stat().st_mode & 0o777) == '0o600'


def test_clouds_yaml_that_is_not_yaml_is_left_alone(tmp_path):
    from nova_clone.deploy import clouds_yaml
    path = tmp_path / 'clouds.yaml'
    path.write_text('clouds: [unclosed\n')
    assert not clouds_yaml.merge(str(path), {'nova-clone': {}})
    assert path.read_text() == 'clouds: [unclosed\n'
