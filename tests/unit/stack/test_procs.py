"""Detached processes: started, recognised by their marker, stopped."""

import argparse
import os
import sys
import time

import psutil

from nova_clone.stack import procs
from nova_clone.stack import cli as stack
from nova_clone.stack import infra as stack_infra
from nova_clone.stack import layout as stack_layout

SLEEPER = [sys.executable, '-c', 'import sys, time; time.sleep(60)']
STUBBORN = [sys.executable, '-c',
            'import signal, time\n'
            'signal.signal(signal.SIGTERM, signal.SIG_IGN)\n'
            'print("ready", flush=True)\n'
            'time.sleep(60)']


def test_start_find_stop(tmp_path):
    marker = str(tmp_path)
    run = str(tmp_path / 'run')
    pid = procs.start(run, 'sleeper', SLEEPER + [marker],
                      str(tmp_path / 'logs' / 'sleeper.log'))
    try:
        assert procs.wait_until(
            lambda: procs.running(run, 'sleeper', marker) == pid, 5)
        # Another stack's marker does not claim this process.
        assert procs.running(run, 'sleeper', '/elsewhere') is None
        assert procs.stop(run, 'sleeper', marker, timeout=5) == 'stopped'
        assert not psutil.pid_exists(pid) or procs.exited(pid)
        assert procs.read_pid(run, 'sleeper') is None
        assert procs.stop(run, 'sleeper', marker) == 'not running'
    finally:
        if psutil.pid_exists(pid):
            psutil.Process(pid).kill()


def test_marker_in_environment_is_enough(tmp_path):
    run = str(tmp_path / 'run')
    pid = procs.start(run, 'anon', SLEEPER, str(tmp_path / 'anon.log'),
                      marker=str(tmp_path))
    try:
        assert procs.wait_until(
            lambda: procs.running(run, 'anon', str(tmp_path)) == pid, 5)
    finally:
        procs.stop(run, 'anon', str(tmp_path), timeout=5)


def test_stale_pid_file_of_a_stranger_is_not_signalled(tmp_path):
    run = tmp_path / 'run'
    run.mkdir()
    # Our own pid: alive but not part of the stack.
    (run / 'ghost.pid').write_text('%d\n' % os.getpid())
    assert procs.running(str(run), 'ghost', str(tmp_path)) is None
    assert procs.stop(str(run), 'ghost', str(tmp_path)) == 'not running'


def test_sigterm_ignored_then_killed(tmp_path):
    log = tmp_path / 'stubborn.log'
    pid = procs.start(str(tmp_path), 'stubborn', STUBBORN + [str(tmp_path)],
                      str(log))
    assert procs.wait_until(lambda: 'ready' in log.read_text(), 10)
    started = time.monotonic()
    assert procs.stop(str(tmp_path), 'stubborn', str(tmp_path),
                      timeout=0.5) == 'killed'
    assert time.monotonic() - started < 5
    assert procs.exited(pid)


def test_log_tail_and_probes(tmp_path):
    log = tmp_path / 'x.log'
    log.write_text('\n'.join('line %d' % i for i in range(100)))
    assert procs.log_tail(str(log), 2) == 'line 98\nline 99'
    assert procs.log_tail(str(tmp_path / 'missing')) == ''
    port = procs.free_ports(1)[0]
    assert procs.http_status('http://127.0.0.1:%d/' % port, 0.5) is None
    assert not procs.port_open('127.0.0.1', port)


def _parse(*argv):
    parser = argparse.ArgumentParser()
    stack.add_arguments(parser)
    return parser.parse_args(list(argv))


def test_cli_options():
    args = _parse('up', '--computes', '3', '--cells', '2', '--driver',
                  'libvirt', '--base-port', '30000', '--name', 'abc')
    assert (args.computes, args.cells, args.driver, args.base_port,
            args.name) == (3, 2, 'libvirt', 30000, 'abc')
    assert _parse('down', '--purge').purge is True
    assert _parse('status').stack_command == 'status'


def test_status_without_a_stack_is_a_clean_error(tmp_path, capsys):
    rc = stack.run(_parse('status', '--state-dir', str(tmp_path / 'none')))
    assert rc == 1
    assert 'no stack in' in capsys.readouterr().out


def test_bad_name_is_a_clean_error(tmp_path, capsys):
    rc = stack.run(_parse('up', '--name', 'Bad-Name', '--state-dir',
                          str(tmp_path)))
    assert rc == 2
    assert 'stack name' in capsys.readouterr().out


def test_unreachable_services_give_one_hint_line(tmp_path, capsys,
                                                 monkeypatch):
    closed = procs.free_ports(2)
    monkeypatch.setattr(stack_layout, 'DB_PORT', closed[0])
    monkeypatch.setattr(stack_layout, 'MQ_PORT', closed[1])
    rc = stack.run(_parse('up', '--name', 'probe', '--state-dir',
                          str(tmp_path)))
    out = capsys.readouterr().out
    assert rc == 1
    error = [line for line in out.splitlines() if line.startswith('error')]
    assert len(error) == 1
    assert 'MariaDB' in error[0] and 'RabbitMQ' in error[0]
    assert stack_infra.START_HINT in error[0]
