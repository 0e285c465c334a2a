"""Boot and delete on real processes: `nova-clone stack up` with three
computes on MariaDB and RabbitMQ, driven by the openstack CLI, the bench
command and nova-manage, as an operator would."""

import ast
import contextlib
import ipaddress
import json
import os
import re
import subprocess
import sys
import time
import uuid

import pymysql
import pytest

from nova_clone.stack import procs
from nova_clone.stack import layout as stack_layout
from nova_clone.stack import nova as stack_nova
from nova_clone.stack import services as stack_services
from tests.integration.test_stack import _alive, _clone, stack_up

pytestmark = pytest.mark.integration

BIN = os.path.dirname(sys.executable)
CELL0 = '00000000-0000-0000-0000-000000000000'
HOSTS = ('compute1', 'compute2', 'compute3')


@pytest.fixture(scope='module')
def stack(tmp_path_factory):
    with stack_up('ncflow_', tmp_path_factory.mktemp('flowstack'),
                  3) as st:
        _unlimited_quota(st)
        yield st


def _conn(st, cloud='admin'):
    import openstack.connection
    from openstack import config as os_config
    cfg = os_config.OpenStackConfig(config_files=[st.clouds_yaml])
    return openstack.connection.Connection(config=cfg.get_one(cloud=cloud))


def _unlimited_quota(st):
    conn = _conn(st)
    resp = conn.compute.put(
        '/os-quota-sets/%s' % conn.current_project_id,
        json={'quota_set': {'instances': -1, 'cores': -1, 'ram': -1}},
        microversion='2.1')
    assert resp.status_code == 200, resp.text


def _manage(st, *args):
    conf = os.path.join(st.state_dir, 'etc', 'nova', 'nova.conf')
    return subprocess.run(
        [os.path.join(BIN, 'nova-manage'), '--config-file', conf] +
        list(args), capture_output=True, text=True, timeout=120)


def _parsed(value):
    """OSC prints nested fields either as JSON or as Python reprs."""
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except ValueError:
        return ast.literal_eval(value)


def _fault(shown):
    return _parsed(shown['fault'])


def _settled(st, cloud, server_id, timeout=90):
    """`server show` once the server has left BUILD."""
    deadline = time.monotonic() + timeout
    while True:
        shown = st.osc_json(cloud, 'server', 'show', server_id)
        if shown['status'] != 'BUILD' or time.monotonic() > deadline:
            return shown
        time.sleep(1)


def _layout(st):
    return stack_layout.StackLayout.load(st.state_dir)


def _api_db(st, sql, args):
    conn = pymysql.connect(host='127.0.0.1', user='root', password='',
                           database=_layout(st).db_name('nova_api'))
    try:
        with conn.cursor() as cur:
            cur.execute(sql, args)
            return cur.fetchall()
    finally:
        conn.close()


def _cell_of(st, server_id):
    rows = _api_db(st, 'SELECT cm.uuid FROM instance_mappings im JOIN '
                   'cell_mappings cm ON cm.id = im.cell_id '
                   'WHERE im.instance_uuid = %s', (server_id,))
    assert len(rows) == 1, rows
    return rows[0][0]


def _allocations(st, consumer):
    return st.osc_json('admin', 'resource', 'provider', 'allocation',
                       'show', consumer)


def _ports_of(st, server_id):
    return st.osc_json('admin', 'port', 'list', '--device-id', server_id)


def _compute(st, host):
    lay = _layout(st)
    return lay, [s for s in stack_services.compute_services(lay)
                 if s.host == host][0]


def _stop_computes(st, *hosts):
    lay = _layout(st)
    names = ['nova-compute-%s' % host for host in hosts]
    pids = [procs.running(lay.run_dir, name, lay.marker) for name in names]
    assert all(pids), dict(zip(names, pids))
    # A short grace: the tests want the host gone, not a tidy shutdown.
    procs.stop_many(lay.run_dir, names, lay.marker, timeout=2)
    assert not any(_alive(pid) for pid in pids)


def _start_computes(st, *hosts):
    """Start stopped computes of the stack as `stack up` would and wait
    until they heartbeat."""
    lay = _layout(st)
    started = []
    for host in hosts:
        service = [s for s in stack_services.compute_services(lay)
                   if s.host == host][0]
        started.append((service, procs.start(
            lay.run_dir, service.name, service.argv,
            lay.log_file(service.name), env=service.env, marker=lay.marker)))
    for service, pid in started:
        assert procs.wait_until(
            lambda: stack_services.ready(service, pid), 60, interval=0.5), \
            'see %s' % lay.log_file(service.name)


@contextlib.contextmanager
def _spawn_fails(st, hosts, how):
    """Stop ``hosts`` and set their fake driver to fail every spawn
    (``retryable`` or ``fatal``); the caller starts them.  Afterwards the
    computes run again with their own configuration."""
    lay = _layout(st)
    saved = {}
    _stop_computes(st, *hosts)
    try:
        for host in hosts:
            path = stack_nova.compute_conf_path(lay, host)
            with open(path) as f:
                saved[path] = f.read()
            with open(path, 'a') as f:
                f.write('\n[fake_driver]\nfail_spawn = %s:%s\n' % (host, how))
        yield
    finally:
        _stop_computes(st, *hosts)
        for path, text in saved.items():
            with open(path, 'w') as f:
                f.write(text)
        _start_computes(st, *hosts)


def _events(st, server_id, request_id):
    action = st.osc_json('admin', '--os-compute-api-version', '2.62',
                         'server', 'event', 'show', server_id, request_id)
    return _parsed(action['events'])


def _create_request(st, cloud, server_id):
    actions = st.osc_json(cloud, 'server', 'event', 'list', server_id)
    creates = [a for a in actions if a['Action'] == 'create']
    assert len(creates) == 1, actions
    return creates[0]['Request ID']


def _innodb_deadlocks():
    conn = pymysql.connect(host='127.0.0.1', user='root', password='')
    try:
        with conn.cursor() as cur:
            cur.execute("SHOW GLOBAL STATUS LIKE 'Innodb_deadlocks'")
            return int(cur.fetchone()[1])
    finally:
        conn.close()


def test_up_ends_by_booting_a_server_per_compute(stack):
    out = stack.up.stdout
    assert '- check: boot 3 servers side by side, then delete them' in out
    placed, = [line for line in out.splitlines()
               if re.search(r'\]\s+ACTIVE on ', line)]
    counts = re.findall(r'(compute\d) \((\d+)\)', placed)
    assert {host for host, _ in counts} <= set(HOSTS), placed
    assert sum(int(n) for _, n in counts) == 3, placed
    assert 'deleted in' in placed
    # The check deletes what it booted.
    assert stack.osc_json('admin', 'server', 'list', '--all-projects',
                          '--name', '^stack-check-') == []
    assert stack.osc_json('admin', 'server', 'list', '--all-projects',
                          '--deleted', '--name', '^stack-check-') != []


def test_storm_spreads_over_the_computes(stack):
    deadlocks = _innodb_deadlocks()
    proc = subprocess.run(
        [os.path.join(BIN, 'nova-clone'), 'bench', '--cloud', 'admin',
         '--os-client-config-file', stack.clouds_yaml, '--servers', '30',
         '--concurrency', '10', '--flavor', 'm1.tiny', '--image',
         'tiny-raw', '--network', 'private', '--timeout', '240'],
        capture_output=True, text=True, timeout=400)
    lines = [line for line in proc.stdout.splitlines() if line.startswith('{')]
    assert len(lines) == 1, proc.stdout + proc.stderr
    report = json.loads(lines[0])
    print('bench:', lines[0])
    assert proc.returncode == 0, report
    assert report['active'] == 30 and report['errors'] == 0
    assert report['all_deleted'] is True
    # Three equal computes: no host gets the lion's share.
    assert set(report['hosts']) == {'compute1', 'compute2', 'compute3'}
    assert report['max_host_share'] <= 0.5, report['hosts']
    # Concurrent claims never deadlock in Placement's database (each
    # deadlock held a server back a second or more).
    assert _innodb_deadlocks() == deadlocks


def test_no_valid_host_leaves_the_server_in_cell0(stack):
    name = 'huge-%s' % uuid.uuid4().hex[:6]
    # Far more RAM than any fake host (128 GiB) has.
    stack.osc('admin', 'flavor', 'create', '--ram', '1048576', '--disk',
              '1', '--vcpus', '1', name)
    server = stack.osc_json('admin', 'server', 'create', '--flavor', name,
                            '--image', 'tiny-raw', '--network', 'private',
                            'nvh')
    shown = _settled(stack, 'admin', server['id'])
    assert shown['status'] == 'ERROR', shown
    assert _fault(shown)['message'].startswith('No valid host was found')
    assert _cell_of(stack, server['id']) == CELL0
    assert _allocations(stack, server['id']) == []
    stack.osc('admin', 'server', 'delete', '--wait', server['id'])


def test_placement_audit_finds_and_deletes_orphans(stack):
    rps = stack.osc_json('admin', 'resource', 'provider', 'list')
    rp = [r for r in rps if r['name'] == 'compute1'][0]['uuid']
    consumer = str(uuid.uuid4())
    stack.osc('admin', '--os-placement-api-version', '1.28', 'resource',
              'provider', 'allocation', 'set', '--allocation',
              'rp=%s,VCPU=1' % rp, '--project-id', uuid.uuid4().hex,
              '--user-id', uuid.uuid4().hex, consumer)
    found = _manage(stack, 'placement', 'audit', '--verbose')
    assert found.returncode == 3, found.stdout + found.stderr
    assert consumer in found.stdout
    deleted = _manage(stack, 'placement', 'audit', '--delete')
    assert deleted.returncode == 4, deleted.stdout + deleted.stderr
    clean = _manage(stack, 'placement', 'audit')
    assert clean.returncode == 0, clean.stdout + clean.stderr


def test_demo_boots_on_the_admins_flavor_image_and_network(stack, tmp_path):
    tag = uuid.uuid4().hex[:6]
    disk = tmp_path / 'disk.img'
    disk.write_bytes(os.urandom(8192))
    flavor = stack.osc_json('admin', 'flavor', 'create', '--ram', '128',
                            '--disk', '1', '--vcpus', '1', 'fl-' + tag)
    image = stack.osc_json('admin', 'image', 'create', '--file', str(disk),
                           '--disk-format', 'raw', '--container-format',
                           'bare', '--public', 'img-' + tag)
    assert image['status'] == 'active'
    net = stack.osc_json('admin', 'network', 'create', '--share',
                         'net-' + tag)
    stack.osc_json('admin', 'subnet', 'create', '--network', net['id'],
                   '--subnet-range', '10.77.0.0/24', 'sub-' + tag)

    server = stack.osc_json('demo', 'server', 'create', '--flavor',
                            flavor['id'], '--image', image['id'],
                            '--network', net['id'], '--wait', 'vm-' + tag)
    assert server['status'] == 'ACTIVE', server
    addresses = _parsed(server['addresses'])
    if isinstance(addresses, str):
        # Older OSC prints "net=10.77.0.5"; newer a {net: [ip]} mapping.
        name, _, ips = addresses.partition('=')
        addresses = {name: ips.split(', ')}
    assert list(addresses) == ['net-' + tag], addresses
    ip = addresses['net-' + tag][0]
    ip = ip['addr'] if isinstance(ip, dict) else ip
    assert ipaddress.ip_address(ip) in ipaddress.ip_network('10.77.0.0/24')

    request_id = _create_request(stack, 'demo', server['id'])
    builds = [e for e in _events(stack, server['id'], request_id)
              if e['event'] == 'compute__do_build_and_run_instance']
    assert len(builds) == 1, builds
    assert builds[0]['result'] == 'Success'
    assert builds[0]['host'] in HOSTS
    stack.osc('demo', 'server', 'delete', '--wait', server['id'])


def _boot_tiny(stack, cloud, name):
    server = stack.osc_json(cloud, 'server', 'create', '--flavor',
                            'm1.tiny', '--image', 'tiny-raw', '--network',
                            'private', '--wait', name)
    assert server['status'] == 'ACTIVE', server
    # Before the delete the server holds resources: the checks below bite.
    assert _allocations(stack, server['id']) != []
    assert len(_ports_of(stack, server['id'])) == 1
    return server


def test_delete_frees_allocations_and_ports(stack):
    server = _boot_tiny(stack, 'demo', 'del-' + uuid.uuid4().hex[:6])
    stack.osc('demo', 'server', 'delete', '--wait', server['id'])
    assert _allocations(stack, server['id']) == []
    assert _ports_of(stack, server['id']) == []


def test_delete_while_its_compute_is_down_is_local(stack):
    server = _boot_tiny(stack, 'demo', 'down-' + uuid.uuid4().hex[:6])
    host = stack.osc_json('admin', 'server', 'show',
                          server['id'])['OS-EXT-SRV-ATTR:host']
    _stop_computes(stack, host)
    # The operator fences the dead host, as Nova expects before evacuate;
    # the API then sees the service down without waiting service_down_time.
    stack.osc('admin', '--os-compute-api-version', '2.11', 'compute',
              'service', 'set', '--down', host, 'nova-compute')
    try:
        services = stack.osc_json('admin', 'compute', 'service', 'list',
                                  '--service', 'nova-compute')
        assert [s['State'] for s in services if s['Host'] == host] == \
            ['down']
        conn = _conn(stack, 'demo')
        resp = conn.compute.delete('/servers/%s' % server['id'],
                                   raise_exc=False)
        assert resp.status_code == 204, resp.text
        gone = conn.compute.get('/servers/%s' % server['id'],
                                raise_exc=False)
        assert gone.status_code == 404, gone.text
        assert _allocations(stack, server['id']) == []
        assert _ports_of(stack, server['id']) == []
    finally:
        stack.osc('admin', '--os-compute-api-version', '2.11', 'compute',
                  'service', 'set', '--up', host, 'nova-compute')
        _start_computes(stack, host)
    services = stack.osc_json('admin', 'compute', 'service', 'list',
                              '--service', 'nova-compute')
    assert {s['Host'] for s in services if s['State'] == 'up'} == set(HOSTS)


def test_bad_requests_get_novas_errors(stack):
    demo = _conn(stack, 'demo')
    admin = _conn(stack, 'admin')
    flavor = demo.compute.get('/flavors/detail').json()['flavors']
    flavor = [f for f in flavor if f['name'] == 'm1.tiny'][0]['id']
    image = demo.image.find_image('tiny-raw', ignore_missing=False).id
    private = [{'uuid': demo.network.find_network(
        'private', ignore_missing=False).id}]

    def create(server, conn=demo, **kwargs):
        resp = conn.compute.post('/servers', json={'server': server},
                                 raise_exc=False, **kwargs)
        assert 400 <= resp.status_code < 500, resp.text
        return resp

    def error(resp, status, kind='badRequest'):
        assert resp.status_code == status, resp.text
        body = resp.json()
        assert list(body) == [kind], body
        assert body[kind]['code'] == status
        return body[kind]['message']

    raw = demo.compute.post('/servers', data='{"server": ',
                            headers={'Content-Type': 'application/json'},
                            raise_exc=False)
    error(raw, 400)
    error(create({'name': 'x', 'imageRef': image}), 400)  # no flavorRef
    error(create({'name': 'x', 'flavorRef': flavor, 'imageRef': image,
                  'networks': 'everything'}), 400)
    missing = str(uuid.uuid4())
    assert error(create({'name': 'x', 'flavorRef': missing,
                         'imageRef': image, 'networks': private}),
                 400) == 'Invalid flavorRef provided.'
    assert error(create({'name': 'x', 'flavorRef': flavor,
                         'imageRef': missing, 'networks': private}),
                 400) == 'Can not find requested image'
    assert error(create({'name': 'x', 'flavorRef': flavor,
                         'imageRef': image,
                         'networks': [{'uuid': missing}]},
                        microversion='2.37'),
                 400) == 'Network %s could not be found.' % missing

    # Another project's server does not exist for demo.
    theirs = admin.compute.post('/servers', json={'server': {
        'name': 'admins', 'flavorRef': flavor, 'imageRef': image,
        'networks': private}}, raise_exc=False)
    assert theirs.status_code == 202, theirs.text
    theirs = theirs.json()['server']['id']
    try:
        for method in (demo.compute.get, demo.compute.delete):
            resp = method('/servers/%s' % theirs, raise_exc=False)
            assert error(resp, 404, 'itemNotFound') == \
                'Instance %s could not be found.' % theirs
        assert admin.compute.get('/servers/%s' % theirs,
                                 raise_exc=False).status_code == 200
    finally:
        stack.osc('admin', 'server', 'delete', '--wait', theirs)


def test_up_fails_naming_the_host_when_the_check_cannot_boot(stack):
    lay = _layout(stack)
    with _spawn_fails(stack, HOSTS, 'fatal'):
        again = _clone('stack', 'up', '--computes', '3', *stack.args(),
                       timeout=400)
        assert again.returncode == 1, again.stdout + again.stderr
        assert 'the stack is running but cannot boot' in again.stderr + \
            again.stdout
        message = again.stdout + again.stderr
        assert re.search(r'went to ERROR', message), message
        assert any(' on %s ' % host in message for host in HOSTS), message
        assert lay.log_dir in message
        assert 'Traceback' not in again.stderr
        # Even a failed check deletes its servers.
        assert stack.osc_json('admin', 'server', 'list', '--all-projects',
                              '--name', '^stack-check-') == []


def test_failing_hosts_reschedule_to_the_healthy_one(stack):
    failing = ('compute1', 'compute2')
    with _spawn_fails(stack, failing, 'retryable'):
        _start_computes(stack, *failing)
        healthy, = [p['uuid'] for p in stack.osc_json(
            'admin', 'resource', 'provider', 'list', '--name', 'compute3')]

        ids = [stack.osc_json('admin', 'server', 'create', '--flavor',
                              'm1.tiny', '--image', 'tiny-raw', '--network',
                              'private', 'resched-%d' % i)['id']
               for i in range(3)]
        rescheduled = 0
        for server_id in ids:
            shown = _settled(stack, 'admin', server_id)
            assert shown['status'] == 'ACTIVE', shown
            assert shown['OS-EXT-SRV-ATTR:host'] == 'compute3'
            builds = [(e['host'], e['result']) for e in _events(
                stack, server_id, _create_request(stack, 'admin', server_id))
                if e['event'] == 'compute__do_build_and_run_instance']
            # One build event per attempt (their times tie to the second, so
            # no order): the boot ended on the healthy host, every other
            # attempt was on a failing one.
            assert [b for b in builds if b[0] not in failing] == \
                [('compute3', 'Success')], builds
            assert len(builds) <= 3, builds
            rescheduled += len(builds) > 1
            # Placement holds the healthy host's resources only.
            assert {a['resource_provider'] for a in _allocations(
                stack, server_id)} == {healthy}, server_id
        # The weighers spread: at least one boot tried a failing host first.
        assert rescheduled >= 1
        for server_id in ids:
            stack.osc('admin', 'server', 'delete', '--wait', server_id)
