"""stack up's phases: services that answer, die, or stay silent."""

import sys

import pytest

from nova_clone.stack import procs
from nova_clone.stack import layout as stack_layout
from nova_clone.stack import services as stack_services
from nova_clone.stack import up as stack_up


@pytest.fixture
def up(tmp_path):
    layout = stack_layout.StackLayout.create(
        'unitstack', str(tmp_path / 'st'), '127.0.0.1', 0, 1, 1, 'fake')
    runner = stack_up.Up(layout)
    yield runner
    for name in ('web', 'dies', 'mute'):
        procs.stop(layout.run_dir, name, layout.marker, timeout=2)


def _http(up, name, code):
    port = up.layout.ports['glance']
    script = ('import http.server as h\n'
              'class H(h.BaseHTTPRequestHandler):\n'
              '    def do_GET(self):\n'
              '        self.send_response(%d); self.end_headers()\n'
              'h.HTTPServer(("127.0.0.1", %d), H).serve_forever()\n'
              % (code, port))
    return stack_services.Service(name, [sys.executable, '-c', script],
                                  'http', url='http://127.0.0.1:%d/' % port)


def test_answering_service_is_ready_and_kept_on_rerun(up, capsys):
    service = _http(up, 'web', 200)
    pids = up._phase([service], timeout=20)
    out = capsys.readouterr().out
    assert 'start  web' in out and 'ready  web' in out
    again = up._phase([service], timeout=20)
    assert again == pids
    assert 'keep   web' in capsys.readouterr().out


def test_dying_service_is_named_with_its_log(up, capsys):
    service = stack_services.Service(
        'dies', [sys.executable, '-c',
                 'import sys; print("cannot bind: boom"); sys.exit(3)'],
        'http', url='http://127.0.0.1:1/')
    with pytest.raises(stack_up.StackFailed, match='dies failed'):
        up._phase([service], timeout=20)
    out = capsys.readouterr().out
    assert 'FAILED dies' in out and 'exited' in out
    assert up.layout.log_file('dies') in out
    assert 'cannot bind: boom' in out


def test_broken_service_times_out_with_its_status(up, capsys):
    service = _http(up, 'mute', 500)
    with pytest.raises(stack_up.StackFailed):
        up._phase([service], timeout=2)
    assert 'answers HTTP 500' in capsys.readouterr().out


def test_up_without_the_stack_extra_stops_naming_it(up, monkeypatch):
    monkeypatch.setattr(stack_services, 'STACK_EXTRA',
                        ('keystone', 'nc_not_installed'))
    with pytest.raises(stack_up.StackFailed,
                       match=r"^nc_not_installed not installed: .*"
                             r"nova-clone\[stack\]"):
        up.run()


def test_port_taken_by_a_stranger_is_refused(up, capsys):
    import socket
    port = up.layout.ports['glance']
    stranger = socket.socket()
    stranger.bind(('127.0.0.1', port))
    stranger.listen(1)
    try:
        with pytest.raises(stack_up.StackFailed,
                           match='port %d of web is taken' % port):
            up._phase([_http(up, 'web', 200)], timeout=5)
    finally:
        stranger.close()
    assert procs.read_pid(up.layout.run_dir, 'web') is None
