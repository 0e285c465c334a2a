"""Boot and delete on real processes: `nova-clone stack up` with three
computes on MariaDB and RabbitMQ, driven by the openstack CLI, the bench
command and nova-manage, as an operator would."""

import json
import os
import secrets
import subprocess
import sys
import time
import uuid

import psutil
import pytest

from tests.integration.test_stack import Stack, _alive, _clone

pytestmark = pytest.mark.integration

BIN = os.path.dirname(sys.executable)


@pytest.fixture(scope='module')
def stack(tmp_path_factory):
    st = Stack('ncflow_' + secrets.token_hex(4),
               tmp_path_factory.mktemp('flowstack'))
    try:
        st.up = _clone('stack', 'up', '--computes', '3', *st.args(),
                       timeout=400)
        assert st.up.returncode == 0, st.up.stdout + st.up.stderr
        _unlimited_quota(st)
        yield st
    finally:
        pids = st.pids()
        if os.path.exists(os.path.join(st.state_dir, 'stack.json')):
            _clone('stack', 'down', '--purge', *st.args(), timeout=120)
        for pid in pids.values():
            if _alive(pid):
                psutil.Process(pid).kill()


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


def test_storm_spreads_over_the_computes(stack):
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


def test_no_valid_host_is_reported_on_the_server(stack):
    name = 'nowhere-%s' % uuid.uuid4().hex[:6]
    stack.osc('admin', 'flavor', 'create', '--ram', '64', '--disk', '1',
              '--vcpus', '1', '--property',
              'trait:CUSTOM_FLOW_NOWHERE=required', name)
    server = stack.osc_json('admin', 'server', 'create', '--flavor', name,
                            '--image', 'tiny-raw', '--network', 'private',
                            'nvh')
    deadline = time.monotonic() + 60
    shown = None
    while time.monotonic() < deadline:
        shown = stack.osc_json('admin', 'server', 'show', server['id'])
        if shown['status'] != 'BUILD':
            break
        time.sleep(1)
    assert shown['status'] == 'ERROR', shown
    fault = shown['fault']
    if isinstance(fault, str):
        fault = json.loads(fault.replace("'", '"'))
    assert fault['message'].startswith('No valid host was found.')
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
