"""nova-status upgrade check, run as a process against SQLite databases
and a small HTTP server standing in for Placement's version document."""

import http.server
import json
import os
import subprocess
import threading

import pytest

pytestmark = pytest.mark.integration

BIN = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), '.venv', 'bin')


class _VersionHandler(http.server.BaseHTTPRequestHandler):
    max_version = '1.39'

    def do_GET(self):
        body = json.dumps({'versions': [{
            'id': 'v1.0', 'min_version': '1.0', 'status': 'CURRENT',
            'max_version': self.server.max_version, 'links': []}]}).encode()
        self.send_response(200)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def placement():
    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0),
                                             _VersionHandler)
    server.max_version = '1.39'
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def _run(binary, conf, *args):
    proc = subprocess.run([os.path.join(BIN, binary), '--config-file',
                           str(conf)] + list(args), capture_output=True,
                          text=True, timeout=120)
    return proc.returncode, proc.stdout, proc.stderr


def _conf(tmp_path, placement_url=None):
    text = ('[DEFAULT]\ntransport_url = rabbit://guest:guest@127.0.0.1/\n'
            '[api_database]\nconnection = sqlite:///%s/api.db\n'
            '[database]\nconnection = sqlite:///%s/cell1.db\n'
            % (tmp_path, tmp_path))
    if placement_url:
        text += ('[placement]\nauth_type = none\nendpoint_override = %s\n'
                 % placement_url)
    conf = tmp_path / 'nova.conf'
    conf.write_text(text)
    return conf


def test_upgrade_check_follows_the_setup(tmp_path, placement):
    url = 'http://127.0.0.1:%d' % placement.server_address[1]
    conf = _conf(tmp_path, url)
    assert _run('nova-manage', conf, 'api_db', 'sync')[0] == 0
    rc, out, err = _run('nova-status', conf, 'upgrade', 'check')
    assert rc == 2, out + err
    assert 'at least two cell mappings' in out.replace('\n', ' ').replace(
        '|', '').replace('  ', ' ')
    for args in (('cell_v2', 'map_cell0'),
                 ('cell_v2', 'create_cell', '--name', 'cell1'),
                 ('db', 'sync')):
        assert _run('nova-manage', conf, *args)[0] == 0
    rc, out, err = _run('nova-status', conf, 'upgrade', 'check', '--json')
    assert rc == 0, out + err
    results = {c['check']: c for c in json.loads(out)['checks']}
    assert results['Cells v2']['result'] == 0
    assert results['Placement API']['result'] == 0

    placement.max_version = '1.20'
    rc, out, _ = _run('nova-status', conf, 'upgrade', 'check', '--json')
    assert rc == 2
    details = {c['check']: c for c in json.loads(out)['checks']}
    assert '1.36' in details['Placement API']['details']


def test_upgrade_check_without_placement_config_warns(tmp_path):
    conf = _conf(tmp_path)
    for args in (('api_db', 'sync'), ('cell_v2', 'map_cell0'),
                 ('cell_v2', 'create_cell', '--name', 'cell1'),
                 ('db', 'sync')):
        assert _run('nova-manage', conf, *args)[0] == 0
    rc, out, err = _run('nova-status', conf, 'upgrade', 'check', '--json')
    assert rc == 1, out + err
    results = {c['check']: c for c in json.loads(out)['checks']}
    assert results['Placement API']['result'] == 1
    assert 'Traceback' not in out + err


def test_upgrade_check_reports_unmigrated_cell_in_one_line(tmp_path):
    conf = _conf(tmp_path)
    for args in (('api_db', 'sync'), ('cell_v2', 'map_cell0'),
                 ('cell_v2', 'create_cell', '--name', 'cell1')):
        assert _run('nova-manage', conf, *args)[0] == 0
    rc, out, err = _run('nova-status', conf, 'upgrade', 'check', '--json')
    assert rc == 2
    cells = {c['check']: c for c in json.loads(out)['checks']}['Cells v2']
    assert cells['details'].endswith('no such table: compute_nodes')
    assert 'SELECT' not in cells['details']
