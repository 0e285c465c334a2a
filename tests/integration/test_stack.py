"""`nova-clone stack up|status|down` on the real MariaDB and RabbitMQ.

One stack per module (unique name, free ports, its own state dir),
driven with the `openstack` CLI as a user would, torn down and purged at
the end even when a test fails.
"""

import contextlib
import json
import os
import secrets
import subprocess
import sys
import time

import psutil
import pymysql
import pytest

pytestmark = pytest.mark.integration

BIN = os.path.dirname(sys.executable)
NOVA_SERVICES = ('nova-conductor', 'nova-scheduler', 'nova-conductor-cell1',
                 'nova-compute-compute1', 'nova-compute-compute2')


def _clone(*args, timeout=240):
    return subprocess.run(
        [sys.executable, '-m', 'nova_clone.cmd.clone'] + list(args),
        capture_output=True, text=True, timeout=timeout)


class Stack(object):
    def __init__(self, name, state_dir):
        self.name = name
        self.state_dir = str(state_dir)
        self.up = None

    @property
    def clouds_yaml(self):
        return os.path.join(self.state_dir, 'clouds.yaml')

    def args(self):
        return ['--name', self.name, '--state-dir', self.state_dir]

    def osc(self, cloud, *args, check=True):
        env = dict(os.environ, OS_CLIENT_CONFIG_FILE=self.clouds_yaml)
        proc = subprocess.run(
            [os.path.join(BIN, 'openstack'), '--os-cloud', cloud] +
            list(args), capture_output=True, text=True, env=env, timeout=60)
        if check:
            assert proc.returncode == 0, (args, proc.stdout, proc.stderr)
        return proc

    def osc_json(self, cloud, *args):
        return json.loads(self.osc(cloud, *(args + ('-f', 'json'))).stdout)

    def pids(self):
        run = os.path.join(self.state_dir, 'run')
        result = {}
        for entry in os.listdir(run) if os.path.isdir(run) else ():
            if entry.endswith('.pid'):
                with open(os.path.join(run, entry)) as f:
                    result[entry[:-4]] = int(f.read())
        return result


def _alive(pid):
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


@contextlib.contextmanager
def stack_up(prefix, state_dir, computes):
    """A stack of ``computes`` computes up for the block, then down with
    its databases; whatever `down` missed is killed."""
    st = Stack(prefix + secrets.token_hex(4), state_dir)
    try:
        st.up = _clone('stack', 'up', '--computes', str(computes),
                       *st.args(), timeout=400)
        assert st.up.returncode == 0, st.up.stdout + st.up.stderr
        yield st
    finally:
        pids = st.pids()
        if os.path.exists(os.path.join(st.state_dir, 'stack.json')):
            _clone('stack', 'down', '--purge', *st.args(), timeout=120)
        for pid in pids.values():
            if _alive(pid):
                psutil.Process(pid).kill()


@pytest.fixture(scope='module')
def stack(tmp_path_factory):
    st = Stack('nct_' + secrets.token_hex(4),
               tmp_path_factory.mktemp('stack'))
    try:
        st.up = _clone('stack', 'up', '--computes', '2', *st.args())
        yield st
    finally:
        pids = st.pids()
        down = None
        if os.path.exists(os.path.join(st.state_dir, 'stack.json')):
            down = _clone('stack', 'down', '--purge', *st.args(),
                          timeout=120)
        # Whatever `down` missed must not outlive the test run.
        for pid in pids.values():
            if _alive(pid):
                psutil.Process(pid).kill()
        assert down is None or down.returncode == 0, down.stdout


def test_up_succeeds_and_reports_progress(stack):
    out = stack.up.stdout
    assert stack.up.returncode == 0, out + stack.up.stderr
    assert 'checking MariaDB and RabbitMQ' in out
    assert 'ready  keystone' in out
    assert 'ready  placement' in out
    assert 'export OS_CLIENT_CONFIG_FILE=%s' % stack.clouds_yaml in out
    assert 'Traceback' not in stack.up.stderr


def test_catalog_lists_the_six_services(stack):
    catalog = stack.osc_json('admin', 'catalog', 'list')
    types = {entry['Type'] for entry in catalog}
    assert types >= {'identity', 'compute', 'placement', 'image', 'network',
                     'volumev3', 'block-storage'}
    compute = [e for e in catalog if e['Type'] == 'compute'][0]
    interfaces = {ep['interface'] for ep in compute['Endpoints']}
    assert interfaces == {'public', 'internal', 'admin'}
    assert all(ep['url'].endswith('/v2.1') for ep in compute['Endpoints'])


def test_users_and_roles(stack):
    demo = stack.osc_json('demo', 'token', 'issue')
    projects = {p['Name']: p['ID']
                for p in stack.osc_json('admin', 'project', 'list')}
    assert demo['project_id'] == projects['demo']
    assignments = stack.osc_json('admin', 'role', 'assignment', 'list',
                                 '--names', '--project', 'service')
    for user in ('nova', 'placement', 'glance', 'neutron', 'cinder'):
        roles = {a['Role'] for a in assignments
                 if a['User'] == '%s@Default' % user}
        assert roles == {'admin', 'service'}, user
    # The reader may read but not write.
    denied = stack.osc('reader', 'project', 'create', 'nope', check=False)
    assert denied.returncode != 0


def _identity_v3(stack):
    url = stack.osc_json('admin', 'endpoint', 'list', '--service',
                         'identity', '--interface', 'public')[0]['URL']
    base = url.rstrip('/')
    return base if base.endswith('/v3') else base + '/v3'


def _validate(base, token, subject):
    import urllib.error
    import urllib.request
    req = urllib.request.Request(
        base + '/auth/tokens',
        headers={'X-Auth-Token': token, 'X-Subject-Token': subject})
    try:
        return urllib.request.urlopen(req, timeout=10).status
    except urllib.error.HTTPError as err:
        return err.code


def test_revoked_token_is_refused_at_once(stack):
    # Keystone caches validations in-process: a revocation must still
    # apply to the very next check, as without the cache.
    base = _identity_v3(stack)
    admin = stack.osc_json('admin', 'token', 'issue')['id']
    demo = stack.osc_json('demo', 'token', 'issue')['id']

    def validate():
        return _validate(base, admin, demo)
    assert [validate() for _ in range(3)] == [200, 200, 200]
    stack.osc('admin', 'token', 'revoke', demo)
    assert validate() == 404


def test_fresh_keystone_worker_validates_concurrent_requests(stack):
    # Right after a (re)start every service validates tokens at once; a
    # fresh Keystone worker must not refuse any of them while it loads
    # its policy.
    from concurrent import futures
    import urllib.request
    base = _identity_v3(stack)
    admin = stack.osc_json('admin', 'token', 'issue')['id']
    demo = stack.osc_json('demo', 'token', 'issue')['id']
    master = psutil.Process(stack.pids()['keystone'])
    for _ in range(3):
        for worker in master.children():
            worker.kill()
        deadline = time.monotonic() + 60
        while True:  # the master starts a new worker
            try:
                urllib.request.urlopen(base, timeout=2)
                break
            except OSError:
                assert time.monotonic() < deadline, 'keystone did not restart'
                time.sleep(0.05)
        with futures.ThreadPoolExecutor(24) as pool:
            codes = list(pool.map(lambda _: _validate(base, admin, demo),
                                  range(24)))
        assert codes == [200] * 24


def test_placement_answers_through_keystone(stack):
    providers = stack.osc_json('admin', 'resource', 'provider', 'list')
    names = {p['name'] for p in providers}
    assert {'compute1', 'compute2'} <= names
    # Without a token Placement refuses: keystonemiddleware guards it.
    import urllib.error
    import urllib.request
    url = [e for e in stack.osc_json('admin', 'endpoint', 'list',
                                     '--service', 'placement')][0]['URL']
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(url + '/resource_providers', timeout=10)
    assert err.value.code == 401


def test_demo_user_uses_image_network_volume(stack, tmp_path):
    data = tmp_path / 'disk.img'
    data.write_bytes(os.urandom(4096))
    image = stack.osc_json('demo', 'image', 'create', '--file', str(data),
                           '--disk-format', 'raw', '--container-format',
                           'bare', 'img')
    assert image['status'] == 'active'
    net = stack.osc_json('demo', 'network', 'create', 'net')
    sub = stack.osc_json('demo', 'subnet', 'create', '--subnet-range',
                         '10.9.0.0/24', '--network', 'net', 'sub')
    assert sub['network_id'] == net['id']
    assert sub['cidr'] == '10.9.0.0/24'
    vol = stack.osc_json('demo', 'volume', 'create', '--size', '1', 'vol')
    deadline = time.monotonic() + 30
    while vol['status'] != 'available' and time.monotonic() < deadline:
        time.sleep(0.5)
        vol = stack.osc_json('demo', 'volume', 'show', vol['id'])
    assert vol['status'] == 'available'


def test_compute_service_list_shows_services_up(stack):
    services = stack.osc_json('admin', 'compute', 'service', 'list')
    seen = {(s['Binary'], s['Host']) for s in services
            if s['State'] == 'up'}
    binaries = [b for b, _ in seen]
    assert binaries.count('nova-conductor') >= 1
    assert 'nova-scheduler' in binaries
    assert {('nova-compute', 'compute1'),
            ('nova-compute', 'compute2')} <= seen


def test_demo_boots_and_deletes_a_server(stack):
    server = stack.osc_json('demo', 'server', 'create', '--flavor',
                            'm1.tiny', '--image', 'tiny-raw', '--network',
                            'private', '--wait', 'vm1')
    assert server['status'] == 'ACTIVE'
    hosts = stack.osc_json('admin', 'server', 'show', server['id'])
    assert hosts['OS-EXT-SRV-ATTR:host'] in ('compute1', 'compute2')
    stack.osc('demo', 'server', 'delete', '--wait', server['id'])
    assert stack.osc_json('demo', 'server', 'list') == []


def test_status_shows_every_process_alive(stack):
    assert stack.up.returncode == 0
    proc = _clone('stack', 'status', *stack.args())
    lines = proc.stdout.splitlines()
    pids = stack.pids()
    for name in ('keystone', 'placement'):
        row = [line for line in lines if line.startswith(name + ' ')][0]
        assert str(pids[name]) in row and ' yes ' in row
        assert 'answering' in row and 'not answering' not in row
    assert proc.returncode == 0, proc.stdout


def test_rerun_keeps_running_services(stack):
    before = stack.pids()
    # An operator's own option survives the re-run; stack up's are reset.
    conf = os.path.join(stack.state_dir, 'etc', 'nova', 'nova.conf')
    with open(conf, 'a') as f:
        f.write('\n[DEFAULT]\n# ours\ncpu_allocation_ratio = 8.0\n'
                'report_interval = 60\n')
    again = _clone('stack', 'up', '--computes', '2', *stack.args())
    assert again.returncode == 0, again.stdout + again.stderr
    assert 'keep   keystone' in again.stdout
    assert stack.pids() == before
    with open(conf) as f:
        text = f.read()
    assert 'cpu_allocation_ratio = 8.0' in text
    assert 'report_interval = 60' not in text
    assert text.count('[DEFAULT]') == 1


def test_up_elsewhere_refuses_the_databases_of_a_stack_of_that_name(
        stack, tmp_path):
    other = str(tmp_path / 'elsewhere')
    proc = _clone('stack', 'up', '--name', stack.name, '--state-dir', other)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert '%s_nova_api' % stack.name in proc.stdout
    assert 'DROP DATABASE' in proc.stdout
    # Nothing was started, written or dropped: the first stack still runs.
    assert not os.path.exists(os.path.join(other, 'stack.json'))
    status = _clone('stack', 'status', *stack.args())
    assert status.returncode == 0, status.stdout


def test_down_leaves_no_process(stack):
    pids = stack.pids()
    assert pids
    children = []
    for pid in pids.values():
        try:
            children += [c.pid for c in
                         psutil.Process(pid).children(recursive=True)]
        except psutil.NoSuchProcess:
            pass
    proc = _clone('stack', 'down', *stack.args(), timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    left = [pid for pid in list(pids.values()) + children if _alive(pid)]
    assert left == []
    # The state dir is kept, so status still knows the stack: all down.
    status = _clone('stack', 'status', *stack.args())
    assert status.returncode == 3
    assert ' yes ' not in status.stdout


def test_purge_drops_the_databases(stack):
    proc = _clone('stack', 'down', '--purge', *stack.args(), timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    conn = pymysql.connect(host='127.0.0.1', user='root', password='')
    try:
        with conn.cursor() as cur:
            cur.execute('SHOW DATABASES LIKE %s', (stack.name + '\\_%',))
            assert cur.fetchall() == ()
    finally:
        conn.close()
    assert not os.path.exists(stack.state_dir)
