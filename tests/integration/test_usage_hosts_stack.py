"""Usage, hosts and floating IPs through the openstack CLI against
`nova-clone stack up` (fake driver, MariaDB, RabbitMQ): what an operator
sees after booting, and a floating IP reaching a server through a
router, as Tempest's network set-up builds it."""

import uuid

import pytest

from tests.integration.test_stack import stack_up

pytestmark = pytest.mark.integration

HOSTS = ('compute1', 'compute2')


@pytest.fixture(scope='module')
def stack(tmp_path_factory):
    with stack_up('ncusage_', tmp_path_factory.mktemp('usagestack'), 2) as st:
        yield st


@pytest.fixture(scope='module')
def server(stack):
    booted = stack.osc_json('demo', 'server', 'create', '--flavor',
                            'm1.tiny', '--image', 'tiny-raw', '--network',
                            'private', '--wait',
                            'usage-' + uuid.uuid4().hex[:6])
    assert booted['status'] == 'ACTIVE', booted
    yield booted
    stack.osc('demo', 'server', 'delete', '--wait', booted['id'])


def _value(row, *names):
    for name in names:
        if name in row:
            return row[name]
    raise AssertionError('none of %s in %s' % (names, row))


def _servers(row):
    # OSC prints the count, or (newer ones) the server usages themselves.
    value = _value(row, 'Servers', 'servers', 'server_usages')
    return len(value) if isinstance(value, list) else int(value)


def test_usage_shows_the_booted_server(stack, server):
    mine = stack.osc_json('demo', 'usage', 'show')
    assert _servers(mine) >= 1, mine
    listed = stack.osc_json('admin', 'usage', 'list')
    demo = stack.osc_json('admin', 'project', 'show', 'demo')
    rows = [r for r in listed
            if _value(r, 'Project', 'project') in (demo['id'], 'demo')]
    # The listing is not detailed: usage totals, no servers.
    assert rows and float(_value(rows[0], 'CPU Hours', 'total_vcpus_usage')
                          ) > 0, listed


def test_hosts_list_and_show(stack, server):
    hosts = stack.osc_json('admin', 'host', 'list')
    computes = {_value(h, 'Host Name', 'host_name') for h in hosts
                if _value(h, 'Service', 'service') == 'compute'}
    assert computes == set(HOSTS), hosts
    shown = stack.osc_json('admin', 'host', 'show', HOSTS[0])
    projects = [_value(r, 'Project', 'project') for r in shown]
    assert projects[:3] == ['(total)', '(used_now)', '(used_max)'], shown


def test_floating_ip_through_a_router(stack, server):
    tag = uuid.uuid4().hex[:6]
    public = stack.osc_json('admin', 'network', 'create', '--external',
                            'public-' + tag)
    stack.osc_json('admin', 'subnet', 'create', '--network', public['id'],
                   '--subnet-range', '172.24.%d.0/24' % (
                       int(tag[:2], 16) % 200), 'public-sub-' + tag)
    router = stack.osc_json('demo', 'router', 'create', 'router-' + tag)
    assert router['name'] == 'router-' + tag
    stack.osc('demo', 'router', 'set', '--external-gateway', public['id'],
              router['id'])
    private = stack.osc_json('demo', 'network', 'show', 'private')
    subnet = private['subnets']
    subnet = subnet[0] if isinstance(subnet, list) else subnet
    stack.osc('demo', 'router', 'add', 'subnet', router['id'], subnet)
    fip = stack.osc_json('demo', 'floating', 'ip', 'create', public['id'])
    stack.osc('demo', 'server', 'add', 'floating', 'ip', server['id'],
              fip['floating_ip_address'])
    shown = stack.osc_json('demo', 'floating', 'ip', 'show', fip['id'])
    ports = stack.osc_json('demo', 'port', 'list', '--server', server['id'])
    assert shown['port_id'] in [p['ID'] for p in ports], (shown, ports)
    assert shown['router_id'] == router['id']
    stack.osc('demo', 'server', 'remove', 'floating', 'ip', server['id'],
              fip['floating_ip_address'])
    stack.osc('demo', 'floating', 'ip', 'delete', fip['id'])
    stack.osc('demo', 'router', 'remove', 'subnet', router['id'], subnet)
    stack.osc('demo', 'router', 'delete', router['id'])
