"""etc/nova/nova.conf.sample must be what the generator produces today."""

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_sample_config_is_current(tmp_path):
    out = tmp_path / 'nova.conf.sample'
    subprocess.run(
        [sys.executable, '-m', 'oslo_config.generator',
         '--config-file', str(ROOT / 'etc' / 'nova-config-generator.conf'),
         '--output-file', str(out)],
        check=True, cwd=ROOT, capture_output=True)
    committed = (ROOT / 'etc' / 'nova' / 'nova.conf.sample').read_text()
    assert out.read_text() == committed, (
        'etc/nova/nova.conf.sample is stale; regenerate it with '
        '`oslo-config-generator --config-file etc/nova-config-generator.conf`')


def test_a_nova_conf_configures_nova_clone(tmp_path):
    """Options keep Nova's groups and names."""
    conf_file = tmp_path / 'nova.conf'
    conf_file.write_text(
        '[DEFAULT]\nhost = compute7\ncompute_driver = fake.FakeDriver\n'
        'transport_url = rabbit://guest:guest@127.0.0.1:5672/\n'
        '[api_database]\nconnection = mysql+pymysql://root@127.0.0.1/nova_api\n'
        '[database]\nconnection = mysql+pymysql://root@127.0.0.1/nova\n'
        '[placement]\nauth_type = password\nauth_url = http://k/v3\n'
        'username = placement\nregion_name = RegionOne\n'
        '[scheduler]\nmax_attempts = 5\n'
        '[filter_scheduler]\nram_weight_multiplier = -1.0\n')
    code = (
        'from nova_clone.conf import CONF\n'
        'CONF(["--config-file", %r], project="nova")\n'
        'print(CONF.host, CONF.compute_driver, CONF.api_database.connection,'
        ' CONF.database.connection, CONF.placement.auth_type,'
        ' CONF.placement.region_name, CONF.scheduler.max_attempts,'
        ' CONF.filter_scheduler.ram_weight_multiplier)\n' % str(conf_file))
    result = subprocess.run([sys.executable, '-W', 'ignore', '-c', code],
                            check=True, capture_output=True, text=True)
    assert result.stdout.split() == [
        'compute7', 'fake.FakeDriver',
        'mysql+pymysql://root@127.0.0.1/nova_api',
        'mysql+pymysql://root@127.0.0.1/nova', 'password', 'RegionOne',
        '5', '-1.0']
