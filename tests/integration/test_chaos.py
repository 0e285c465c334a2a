"""``nova-clone chaos`` on a fake-driver stack: 30 servers booted,
resized and deleted while a compute, the cell conductor, the
super-conductor, the scheduler and a nova-api worker are SIGKILLed and
restarted and Placement is stopped for a while; nothing may be lost.

RabbitMQ and MariaDB are not restarted here: the rest of the suite (and
any other stack on the machine) shares them, and a restart would fail
their tests, not this one.
"""

import json
import os
import subprocess
import sys

import pytest

from tests.integration.test_stack import stack_up

pytestmark = pytest.mark.integration

BIN = os.path.dirname(sys.executable)
ZEROS = ('orphan_allocations', 'servers_without_allocation',
         'servers_unsettled', 'error_without_fault', 'dangling_mappings',
         'ports_of_gone_servers', 'volumes_of_gone_servers')


@pytest.fixture(scope='module')
def stack(tmp_path_factory):
    with stack_up('ncchaos_', tmp_path_factory.mktemp('chaosstack'),
                  2) as st:
        yield st


def test_chaos_run_loses_nothing(stack):
    proc = subprocess.run(
        [os.path.join(BIN, 'nova-clone'), 'chaos', *stack.args(),
         '--servers', '30', '--concurrency', '6',
         '--placement-outage', '15', '--no-restart-rabbitmq',
         '--no-restart-mariadb', '--settle-timeout', '180'],
        capture_output=True, text=True, timeout=900)
    lines = [line for line in proc.stdout.splitlines()
             if line.startswith('{')]
    assert len(lines) == 1, proc.stdout + proc.stderr
    print('chaos:', lines[0])
    report = json.loads(lines[0])
    assert report['faults'] == sorted([
        'api-worker', 'cell-conductor', 'compute', 'placement',
        'scheduler', 'super-conductor']), report
    assert report['fault_errors'] == [], report
    assert {k: report[k] for k in ZEROS} == dict.fromkeys(ZEROS, 0), \
        proc.stderr[-3000:]
    assert proc.returncode == 0, report
