"""nova-conductor and nova-compute as real processes (RabbitMQ, MariaDB).

Each compute registers its services row THROUGH the conductor (it has no
database configured and refuses to open one), heartbeats, is mapped by
``nova-manage cell_v2 discover_hosts --by-service``, shows in
``list_hosts``, exits 0 on SIGTERM and is reported down once killed.
"""

import os
import signal
import subprocess
import time
import uuid

import pytest
import sqlalchemy as sa

from nova_clone import servicegroup
from tests import stop_signals

pytestmark = pytest.mark.integration

ROOT = 'mysql+pymysql://root@127.0.0.1/%s?charset=utf8mb4'
RABBIT = 'rabbit://guest:guest@127.0.0.1:5672/'
BIN = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), '.venv', 'bin')
DOWN_TIME = 4


@pytest.fixture
def dbs():
    prefix = 'nc_h2_%s' % uuid.uuid4().hex[:10]
    names = {k: '%s_%s' % (prefix, k) for k in ('api', 'cell1',
                                                'cell1_cell0')}
    engine = sa.create_engine(ROOT % '')
    with engine.begin() as conn:
        for name in names.values():
            conn.execute(sa.text('CREATE DATABASE `%s` CHARACTER SET utf8mb4'
                                 % name))
    yield names
    with engine.begin() as conn:
        for name in names.values():
            conn.execute(sa.text('DROP DATABASE IF EXISTS `%s`' % name))
    engine.dispose()


def _conf(path, host, exchange, tmp_path, dbs=None, cell_only=False):
    text = ('[DEFAULT]\n'
            'host = %s\n'
            'transport_url = %s\n'
            'control_exchange = %s\n'
            'report_interval = 1\n'
            'service_down_time = %d\n'
            'periodic_fuzzy_delay = 0\n'
            'graceful_shutdown_timeout = 10\n'
            'state_path = %s\n'
            'debug = true\n'
            % (host, RABBIT, exchange, DOWN_TIME, tmp_path / host))
    if dbs and cell_only:
        text += '[database]\nconnection = %s\n' % (ROOT % dbs['cell1'])
    elif dbs:
        text += ('[api_database]\nconnection = %s\n'
                 '[database]\nconnection = %s\n'
                 % (ROOT % dbs['api'], ROOT % dbs['cell1']))
    path.write_text(text)
    return str(path)


class Proc:
    def __init__(self, binary, conf, log):
        self.log = log
        self.handle = open(log, 'w')
        self.proc = subprocess.Popen([os.path.join(BIN, binary),
                                      '--config-file', conf],
                                     stdout=self.handle,
                                     stderr=subprocess.STDOUT)

    def text(self):
        with open(self.log) as f:
            return f.read()

    def stop(self, sig=signal.SIGTERM, timeout=30):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout=timeout)
        finally:
            self.handle.close()


def _wait(predicate, timeout, what):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.3)
    raise AssertionError('timed out waiting for %s' % what)


def _service_row(engine, host, binary):
    with engine.connect() as conn:
        row = conn.execute(sa.text(
            'SELECT * FROM services WHERE host=:h AND `binary`=:b AND '
            'deleted=0'), {'h': host, 'b': binary}).mappings().first()
    return dict(row) if row else None


def test_conductor_and_computes(tmp_path, dbs):
    tag = uuid.uuid4().hex[:8]
    exchange = 'nc_h2_svc_%s' % tag
    conductor_host = 'cond-%s' % tag
    graceful, killed = 'cmp-a-%s' % tag, 'cmp-b-%s' % tag
    cond_conf = _conf(tmp_path / 'conductor.conf', conductor_host, exchange,
                      tmp_path, dbs)

    def manage(*args):
        proc = subprocess.run([os.path.join(BIN, 'nova-manage'),
                               '--config-file', cond_conf] + list(args),
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        return proc.stdout

    manage('api_db', 'sync')
    manage('cell_v2', 'map_cell0')
    manage('db', 'sync')
    manage('cell_v2', 'create_cell', '--name', 'cell1')

    cell = sa.create_engine(ROOT % dbs['cell1'])
    procs = []
    try:
        conductor = Proc('nova-conductor', cond_conf, tmp_path / 'cond.log')
        procs.append(conductor)
        _wait(lambda: _service_row(cell, conductor_host, 'nova-conductor'),
              60, 'the conductor row')
        scheduler = Proc('nova-scheduler', _conf(
            tmp_path / 'scheduler.conf', 'sched-%s' % tag, exchange,
            tmp_path, dbs), tmp_path / 'sched.log')
        procs.append(scheduler)
        computes = {}
        for host in (graceful, killed):
            # One compute even has a [database] connection configured:
            # it must still go through the conductor.
            conf = _conf(tmp_path / (host + '.conf'), host, exchange,
                         tmp_path, dbs if host == killed else None,
                         cell_only=True)
            computes[host] = Proc('nova-compute', conf,
                                  tmp_path / (host + '.log'))
            procs.append(computes[host])
        for host in (graceful, killed):
            row = _wait(lambda: _service_row(cell, host, 'nova-compute'),
                        60, 'the %s row' % host)
            assert row['version'] == 73 and row['topic'] == 'compute'
            row = _wait(lambda: (lambda r: r if r['report_count'] >= 3
                                 else None)(_service_row(
                                     cell, host, 'nova-compute')),
                        30, '%s heartbeats' % host)
            assert servicegroup.API(
                service_down_time=DOWN_TIME).service_is_up(row)

        # The registration ran in the conductor, under the compute's
        # request id; the compute never opened a database.
        cond_log = conductor.text()
        registered = [line for line in cond_log.splitlines()
                      if 'Registered service nova-compute on host %s'
                      % killed in line]
        assert registered and ' req-' in registered[0], cond_log[-3000:]
        for host in (graceful, killed):
            log = computes[host].text()
            assert 'No database access allowed' not in log
            assert 'Database engine started' not in log
            assert 'conductor connection established' in log, log[-3000:]

        out = manage('cell_v2', 'discover_hosts', '--by-service',
                     '--verbose')
        assert graceful in out and killed in out
        listing = manage('cell_v2', 'list_hosts')
        assert graceful in listing and killed in listing
        assert 'cell1' in listing

        # SIGTERM: a clean exit.
        assert computes[graceful].stop(signal.SIGTERM, timeout=60) == 0
        assert 'Caught SIGTERM' in computes[graceful].text()
        # SIGKILL: no goodbye; the heartbeats stop and it goes down.
        computes[killed].stop(signal.SIGKILL)
        time.sleep(DOWN_TIME + 1.5)
        row = _service_row(cell, killed, 'nova-compute')
        assert not servicegroup.API(
            service_down_time=DOWN_TIME).service_is_up(row)
        _wait(lambda: _service_row(cell, 'sched-%s' % tag,
                                   'nova-scheduler'), 30, 'the scheduler')
        stop_signals.rain(scheduler.proc.pid)
        assert scheduler.stop(signal.SIGTERM, timeout=60) == 0, \
            scheduler.text()[-3000:]
        assert conductor.stop(signal.SIGTERM, timeout=60) == 0
    finally:
        for proc in procs:
            if proc.proc.poll() is None:
                proc.stop(signal.SIGKILL)
        cell.dispose()


def test_bad_config_file_is_a_one_line_error(tmp_path):
    for binary in ('nova-conductor', 'nova-compute', 'nova-scheduler'):
        proc = subprocess.run([os.path.join(BIN, binary), '--config-file',
                               str(tmp_path / 'missing.conf')],
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == 2
        assert 'Traceback' not in proc.stderr
        assert 'missing.conf' in proc.stderr


def test_compute_waiting_for_conductor_exits_on_sigterm(tmp_path):
    tag = uuid.uuid4().hex[:8]
    conf = _conf(tmp_path / 'lonely.conf', 'lonely-%s' % tag,
                 'nc_h2_lonely_%s' % tag, tmp_path)
    compute = Proc('nova-compute', conf, tmp_path / 'lonely.log')
    try:
        _wait(lambda: 'starting' in compute.text(), 30, 'start-up')
        time.sleep(1)
        assert compute.proc.poll() is None  # still waiting
        assert compute.stop(signal.SIGTERM, timeout=30) == 0
        assert 'Traceback' not in compute.text()
    finally:
        if compute.proc.poll() is None:
            compute.stop(signal.SIGKILL)


def test_conductor_workers(tmp_path, dbs):
    """[conductor] workers = 2: two worker processes serve the topic and
    heartbeat the one services row; a worker that dies is replaced; SIGTERM
    stops them all."""
    import psutil
    tag = uuid.uuid4().hex[:8]
    host = 'cond-%s' % tag
    conf_path = tmp_path / 'conductor.conf'
    conf = _conf(conf_path, host, 'nc_h2_wrk_%s' % tag, tmp_path, dbs)
    conf_path.write_text(conf_path.read_text() +
                         '[conductor]\nworkers = 2\n')
    for args in (('api_db', 'sync'), ('cell_v2', 'map_cell0'),
                 ('db', 'sync'), ('cell_v2', 'create_cell', '--name',
                                  'cell1')):
        proc = subprocess.run([os.path.join(BIN, 'nova-manage'),
                               '--config-file', conf] + list(args),
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    cell = sa.create_engine(ROOT % dbs['cell1'])
    conductor = Proc('nova-conductor', conf, tmp_path / 'cond.log')
    try:
        parent = psutil.Process(conductor.proc.pid)
        workers = _wait(lambda: (lambda c: c if len(c) == 2 else None)(
            parent.children()), 60, 'two workers')
        _wait(lambda: conductor.text().count(
            'Starting conductor node') == 2, 60, 'both workers started')
        row = _wait(lambda: (lambda r: r if r and r['report_count'] >= 4
                             else None)(_service_row(
                                 cell, host, 'nova-conductor')),
                    60, 'heartbeats')
        with cell.connect() as c:
            rows = c.execute(sa.text(
                'SELECT COUNT(*) FROM services WHERE host=:h AND '
                'deleted=0'), {'h': host}).scalar()
        assert rows == 1 and row['topic'] == 'conductor'

        workers[0].kill()
        replaced = _wait(lambda: (lambda c: c if len(c) == 2 and
                                  workers[0].pid not in {p.pid for p in c}
                                  else None)(parent.children()),
                         30, 'a replacement worker')
        assert 'starting another' in conductor.text()

        # Many stop signals close together stop it as one does.
        stop_signals.rain(conductor.proc.pid)
        assert conductor.stop(signal.SIGTERM, timeout=60) == 0, \
            conductor.text()[-3000:]
        assert not any(p.is_running() and p.status() != 'zombie'
                       for p in replaced)
    finally:
        if conductor.proc.poll() is None:
            conductor.stop(signal.SIGKILL)
        cell.dispose()
