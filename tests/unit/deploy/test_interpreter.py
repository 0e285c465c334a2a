"""Telling a slow CPython build from an optimised one."""

import subprocess
import sys

from nova_clone.deploy import interpreter


def _build(monkeypatch, configure_args, library):
    monkeypatch.setattr(interpreter.sysconfig, 'get_config_var',
                        lambda name: configure_args)
    monkeypatch.setattr(interpreter, '_shared_libpython', lambda: library)


def test_shared_unoptimised_build_is_slow_and_named(monkeypatch):
    _build(monkeypatch, "'--enable-shared' '--prefix=/opt/py'",
           '/opt/py/lib/libpython3.11.so.1.0')
    reason = interpreter.slow_build()
    assert 'libpython3.11.so.1.0' in reason
    assert '--enable-optimizations' in reason
    assert '/usr/bin/python3' in interpreter.advice()


def test_optimised_shared_build_is_fast(monkeypatch):
    _build(monkeypatch, "'--enable-shared' '--enable-optimizations'",
           '/opt/py/lib/libpython3.11.so.1.0')
    assert interpreter.slow_build() is None
    assert interpreter.advice() is None


def test_static_build_is_fast(monkeypatch):
    _build(monkeypatch, "'--prefix=/usr'", None)
    assert interpreter.slow_build() is None


def test_maps_name_the_library_this_process_runs_from():
    library = interpreter._shared_libpython()
    linked = subprocess.run(['ldd', sys.executable], capture_output=True,
                            text=True).stdout
    assert (library is not None) == ('libpython' in linked)


def test_script_exit_code_matches_the_check():
    # tools/run-tests runs the file this way to pick an interpreter.
    run = subprocess.run([sys.executable, interpreter.__file__],
                         capture_output=True, text=True)
    assert run.returncode == (1 if interpreter.slow_build() else 0)
    assert run.stdout.strip() == (interpreter.slow_build() or '')
