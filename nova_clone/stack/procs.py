"""Background processes of a stack: start, find, probe and stop them.

Every service runs detached in its own session (so a Ctrl-C on the
terminal that ran ``stack up`` does not reach it), writes its output to a
log file and is remembered by a pid file.  A pid is trusted only while
the process it names still mentions the stack's state directory on its
command line: pids are reused, and ``stack down`` must never signal a
stranger.
"""

import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request

import psutil


def _pid_path(run_dir, name):
    return os.path.join(run_dir, name + '.pid')


def read_pid(run_dir, name):
    try:
        with open(_pid_path(run_dir, name)) as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return None


def owned_process(pid, marker):
    """The psutil.Process for pid if it is alive and belongs to the stack."""
    if not pid:
        return None
    try:
        proc = psutil.Process(pid)
        if proc.status() == psutil.STATUS_ZOMBIE:
            return None
        if marker in ' '.join(proc.cmdline()):
            return proc
        # setproctitle may have rewritten the command line; the
        # environment still says which stack started it.
        if proc.environ().get('NOVA_CLONE_STACK') == marker:
            return proc
        return None
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return None


def running(run_dir, name, marker):
    """The pid of service `name` when it is running, else None."""
    pid = read_pid(run_dir, name)
    return pid if owned_process(pid, marker) else None


def start(run_dir, name, argv, log_path, env=None, cwd=None, marker=None):
    """Start argv detached, output appended to log_path; return its pid."""
    os.makedirs(run_dir, exist_ok=True)
    os.makedirs(os.path.dirname(log_path), exist_ok=True)
    full_env = dict(os.environ)
    full_env.update(env or {})
    if marker is not None:
        full_env['NOVA_CLONE_STACK'] = marker
    with open(log_path, 'ab') as log, open(os.devnull, 'rb') as devnull:
        proc = subprocess.Popen(
            argv, stdin=devnull, stdout=log, stderr=subprocess.STDOUT,
            env=full_env, cwd=cwd, start_new_session=True, close_fds=True)
    with open(_pid_path(run_dir, name), 'w') as f:
        f.write('%d\n' % proc.pid)
    return proc.pid


def exited(pid):
    """Reap pid if it is our dead child; True when it is gone."""
    try:
        done, _status = os.waitpid(pid, os.WNOHANG)
        if done:
            return True
    except ChildProcessError:
        pass
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def _signal_tree(proc, sig):
    # gunicorn forks workers; signal the whole session so none is left.
    try:
        targets = proc.children(recursive=True) + [proc]
    except psutil.NoSuchProcess:
        return []
    for p in targets:
        try:
            p.send_signal(sig)
        except psutil.NoSuchProcess:
            pass
    return targets


def stop(run_dir, name, marker, timeout=10.0):
    """SIGTERM service `name` (and its children), SIGKILL after timeout.

    Returns 'stopped', 'killed' or 'not running'.
    """
    return stop_many(run_dir, [name], marker, timeout)[name]


def stop_many(run_dir, names, marker, timeout=10.0):
    """Stop several services at once: all get SIGTERM together, then
    whatever is still alive after `timeout` gets SIGKILL.

    Returns {name: 'stopped' | 'killed' | 'not running'}.
    """
    results, targets = {}, {}
    for name in names:
        pid = read_pid(run_dir, name)
        proc = owned_process(pid, marker)
        if proc is None:
            results[name] = 'not running'
            continue
        targets[name] = (pid, _signal_tree(proc, signal.SIGTERM))
    everyone = [p for _pid, procs_ in targets.values() for p in procs_]
    _gone, alive = psutil.wait_procs(everyone, timeout=timeout)
    for p in alive:
        try:
            p.kill()
        except psutil.NoSuchProcess:
            pass
    if alive:
        psutil.wait_procs(alive, timeout=5)
    alive_pids = {p.pid for p in alive}
    for name, (pid, procs_) in targets.items():
        killed = any(p.pid in alive_pids for p in procs_)
        results[name] = 'killed' if killed else 'stopped'
        exited(pid)
    for name in names:
        try:
            os.unlink(_pid_path(run_dir, name))
        except OSError:
            pass
    return results


def port_open(host, port, timeout=0.5):
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def http_status(url, timeout=2.0):
    """The HTTP status of GET url, or None when nothing answers."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            return resp.status
    except urllib.error.HTTPError as e:
        return e.code
    except (OSError, ValueError):
        return None


def free_ports(count, host='127.0.0.1'):
    """count distinct ports the kernel says are free right now."""
    socks, ports = [], []
    try:
        for _ in range(count):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind((host, 0))
            socks.append(s)
            ports.append(s.getsockname()[1])
    finally:
        for s in socks:
            s.close()
    return ports


def wait_until(predicate, timeout, interval=0.25, give_up=None):
    """Poll predicate until true (True) or timeout/give_up() (False)."""
    deadline = time.monotonic() + timeout
    while True:
        if predicate():
            return True
        if give_up is not None and give_up():
            return False
        if time.monotonic() >= deadline:
            return False
        time.sleep(interval)


def log_tail(path, lines=15):
    try:
        with open(path, 'rb') as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - 16384))
            data = f.read().decode('utf-8', 'replace')
    except OSError:
        return ''
    return '\n'.join(data.splitlines()[-lines:])


def gunicorn_argv(proc_name, host, port, app, workers=1, threads=8,
                  access_log=True):
    """Command line serving the WSGI callable `app` ('module:name').

    proc_name ends up in the process titles when setproctitle is present,
    so it carries the stack's marker either way.  ``access_log=False`` for
    an app that logs each request itself (with its request id): a second
    line per request costs CPU and says nothing more.
    """
    import sys
    log = ['--access-logfile', '-'] if access_log else []
    return [sys.executable, '-m', 'gunicorn', '--name', proc_name,
            '--worker-class', 'gthread', '--workers', str(workers),
            '--threads', str(threads), '--bind', '%s:%d' % (host, port),
            '--timeout', '300', '--graceful-timeout', '5',
            # Clients (keystoneauth, openstacksdk) keep connections open;
            # gunicorn's 2 s default closes them under a client that is
            # about to send, which the client sees as a reset.
            '--keep-alive', '75',
            '--config', 'python:nova_clone.stack.gunicorn_hooks'] + log + [
                app]
