"""Server groups, host aggregates and availability zones on real
processes: `nova-clone stack up` with three computes (fake driver) on
MariaDB and RabbitMQ, driven by the openstack CLI as a user and an
operator would."""

import uuid

import pytest

from tests.integration.test_boot_stack import _fault
from tests.integration.test_boot_stack import _settled
from tests.integration.test_boot_stack import HOSTS
from tests.integration.test_boot_stack import stack  # noqa: F401

pytestmark = pytest.mark.integration


def _name(prefix):
    return '%s-%s' % (prefix, uuid.uuid4().hex[:6])


def _boot(st, *args):
    """Servers created side by side, each shown once it left BUILD."""
    return st.osc_json('admin', 'server', 'create', '--flavor', 'm1.tiny',
                       '--image', 'tiny-raw', '--network', 'private',
                       *args)


def _boot_settled(st, count, *args):
    created = [_boot(st, *(args + (_name('srv'),))) for _ in range(count)]
    return [_settled(st, 'admin', s['id']) for s in created]


def _delete(st, servers):
    if servers:
        st.osc('admin', 'server', 'delete', '--wait',
               *[s['id'] for s in servers])


def test_anti_affinity_group_spreads_then_fails(stack):  # noqa: F811
    group = stack.osc_json('admin', 'server', 'group', 'create', '--policy',
                           'anti-affinity', _name('anti'))
    servers = _boot_settled(stack, 3, '--hint', 'group=%s' % group['id'])
    try:
        assert [s['status'] for s in servers] == ['ACTIVE'] * 3, [
            s.get('fault') for s in servers]
        hosts = {s['OS-EXT-SRV-ATTR:host'] for s in servers}
        assert hosts == set(HOSTS)
        fourth, = _boot_settled(stack, 1, '--hint',
                                'group=%s' % group['id'])
        servers.append(fourth)
        assert fourth['status'] == 'ERROR', fourth
        assert _fault(fourth)['message'].startswith(
            'No valid host was found')
        shown = stack.osc_json('admin', 'server', 'group', 'show',
                               group['id'])
        assert len(shown['members']) == 4
    finally:
        _delete(stack, servers)
        stack.osc('admin', 'server', 'group', 'delete', group['id'])


def test_affinity_group_stays_on_one_host(stack):  # noqa: F811
    group = stack.osc_json('admin', 'server', 'group', 'create', '--policy',
                           'affinity', _name('aff'))
    first, = _boot_settled(stack, 1, '--hint', 'group=%s' % group['id'])
    servers = [first]
    try:
        servers += _boot_settled(stack, 2, '--hint',
                                 'group=%s' % group['id'])
        assert [s['status'] for s in servers] == ['ACTIVE'] * 3, servers
        assert {s['OS-EXT-SRV-ATTR:host'] for s in servers} == {
            first['OS-EXT-SRV-ATTR:host']}
    finally:
        _delete(stack, servers)
        stack.osc('admin', 'server', 'group', 'delete', group['id'])


def test_same_and_different_host_hints(stack):  # noqa: F811
    # stack up enables SameHostFilter and DifferentHostFilter (DevStack's).
    servers = _boot_settled(stack, 3)
    try:
        first, second, third = servers
        # Left alone, the scheduler would spread these two elsewhere.
        servers += _boot_settled(stack, 2, '--hint',
                                 'same_host=%s' % first['id'])
        servers += _boot_settled(
            stack, 1, '--hint', 'different_host=%s' % first['id'],
            '--hint', 'different_host=%s' % second['id'])
        assert [s['status'] for s in servers] == ['ACTIVE'] * 6, servers
        hosts = [s['OS-EXT-SRV-ATTR:host'] for s in servers]
        assert len(set(hosts[:3])) == 3
        assert hosts[3] == hosts[4] == hosts[0]
        assert hosts[5] == hosts[2]
    finally:
        _delete(stack, servers)


def test_server_booted_into_a_zone_lands_on_its_host(stack):  # noqa: F811
    zone, name, host = _name('az1'), _name('agg1'), HOSTS[1]
    stack.osc('admin', 'aggregate', 'create', '--zone', zone, name)
    servers = []
    try:
        agg = stack.osc_json('admin', 'aggregate', 'add', 'host', name,
                             host)
        assert host in agg['hosts']
        zones = stack.osc_json('admin', 'availability', 'zone', 'list',
                               '--compute')
        states = {z['Zone Name']: z['Zone Status'] for z in zones}
        assert states[zone] == 'available'
        assert states['nova'] == 'available'
        servers = _boot_settled(stack, 2, '--availability-zone', zone)
        for server in servers:
            assert server['status'] == 'ACTIVE', server
            assert server['OS-EXT-SRV-ATTR:host'] == host
            assert server['OS-EXT-AZ:availability_zone'] == zone
        refused = stack.osc('admin', 'server', 'create', '--flavor',
                            'm1.tiny', '--image', 'tiny-raw', '--network',
                            'private', '--availability-zone',
                            _name('nowhere'), _name('srv'), check=False)
        assert refused.returncode != 0
        assert 'availability zone is not available' in refused.stderr
    finally:
        _delete(stack, servers)
        stack.osc('admin', 'aggregate', 'remove', 'host', name, host,
                  check=False)
        stack.osc('admin', 'aggregate', 'delete', name, check=False)
