"""Volumes on real processes (fake driver): `nova-clone stack up`, the
openstack CLI attaching, detaching, booting from volumes, shelving and
unshelving, with Cinder's volume and attachment records and the BDMs in
the cell database checked after each step."""

import json
import time

import pymysql
import pytest

from nova_clone.stack import nova as stack_nova
from tests.integration.test_boot_stack import (
    _layout, _parsed, _start_computes, _stop_computes)
from tests.integration.test_stack import stack_up

pytestmark = pytest.mark.integration

HOST = 'compute1'


@pytest.fixture(scope='module')
def stack(tmp_path_factory):
    with stack_up('ncvol_', tmp_path_factory.mktemp('volstack'), 1) as st:
        yield st


def _bdms(st, server_id):
    """(volume_id, device_name, attachment_id, boot_index,
    delete_on_termination) of the server's live volume BDMs."""
    conn = pymysql.connect(host='127.0.0.1', user='root', password='',
                           database=_layout(st).db_name('nova_cell1'))
    try:
        with conn.cursor() as cur:
            cur.execute(
                'SELECT volume_id, device_name, attachment_id, boot_index, '
                'delete_on_termination FROM block_device_mapping WHERE '
                "instance_uuid = %s AND deleted = 0 AND destination_type = "
                "'volume' ORDER BY id", (server_id,))
            return [(r[0], r[1], r[2], r[3], bool(r[4]))
                    for r in cur.fetchall()]
    finally:
        conn.close()


def _until(what, fn, timeout=60):
    deadline = time.monotonic() + timeout
    while True:
        value = fn()
        if value or time.monotonic() > deadline:
            assert value, 'timed out waiting for %s' % what
            return value
        time.sleep(0.5)


def _volume(st, volume_id):
    proc = st.osc('demo', 'volume', 'show', volume_id, '-f', 'json',
                  check=False)
    if proc.returncode != 0:
        return None
    return json.loads(proc.stdout)


def _volume_status(st, volume_id, status):
    seen = {}

    def reached():
        seen['volume'] = _volume(st, volume_id)
        return (seen['volume'] or {}).get('status') == status
    _until('volume %s %s' % (volume_id, status), reached)
    return seen['volume']


def _volume_gone(st, volume_id):
    _until('volume %s deleted' % volume_id,
           lambda: _volume(st, volume_id) is None)


def _attachments(st, volume_id):
    """Cinder's attachment records of the volume (admin, 3.27)."""
    return [a for a in st.osc_json(
        'admin', '--os-volume-api-version', '3.27', 'volume', 'attachment',
        'list', '--all-projects')
        if a['Volume ID'] == volume_id]


def _server_status(st, server_id, status, timeout=90):
    return _until('server %s %s' % (server_id, status), lambda: (
        st.osc_json('demo', 'server', 'show', server_id)['status'] == status
    ), timeout=timeout)


def _new_volume(st, name, *extra):
    volume = st.osc_json('demo', 'volume', 'create', '--size', '1', *extra,
                         name)
    return _volume_status(st, volume['id'], 'available')


def _server(st, name, *args):
    server = st.osc_json('demo', 'server', 'create', '--flavor', 'm1.tiny',
                         '--network', 'private', '--wait', *args, name)
    assert server['status'] == 'ACTIVE', server
    return server


def test_attach_and_detach_at_2_1_and_2_101(stack):
    server = _server(stack, 'vm-attach', '--image', 'tiny-raw')
    volume = _new_volume(stack, 'vol-a')
    added = stack.osc_json('demo', '--os-compute-api-version', '2.1',
                           'server', 'add', 'volume', server['id'],
                           volume['id'])
    assert added['Device'] == '/dev/vdb'
    volume = _volume_status(stack, volume['id'], 'in-use')
    assert [a['server_id'] for a in _parsed(volume['attachments'])] == [
        server['id']]
    (attachment,) = _attachments(stack, volume['id'])
    assert attachment['Status'] == 'attached'
    assert _bdms(stack, server['id']) == [
        (volume['id'], '/dev/vdb', attachment['ID'], None, False)]

    stack.osc('demo', 'server', 'remove', 'volume', server['id'],
              volume['id'])
    _volume_status(stack, volume['id'], 'available')
    assert _attachments(stack, volume['id']) == []
    _until('BDM gone', lambda: _bdms(stack, server['id']) == [])

    # 2.101: 202 without a body; the attach goes on behind.
    stack.osc('demo', '--os-compute-api-version', '2.101', 'server', 'add',
              'volume', '--tag', 'data', '--enable-delete-on-termination',
              server['id'], volume['id'])
    _volume_status(stack, volume['id'], 'in-use')
    listed = stack.osc_json('demo', '--os-compute-api-version', '2.101',
                            'server', 'volume', 'list', server['id'])
    assert [(v['Volume ID'], v['Tag'], v['Delete On Termination?'])
            for v in listed] == [(volume['id'], 'data', True)]
    stack.osc('demo', 'server', 'delete', '--wait', server['id'])
    _volume_gone(stack, volume['id'])


def test_boot_from_volume_and_delete(stack):
    kept = _new_volume(stack, 'vol-root', '--image', 'tiny-raw')
    server = _server(stack, 'vm-bfv', '--volume', kept['id'])
    _volume_status(stack, kept['id'], 'in-use')
    ((volume_id, device, attachment_id, boot_index, dot),) = _bdms(
        stack, server['id'])
    assert (volume_id, boot_index, dot) == (kept['id'], 0, False)
    (attachment,) = _attachments(stack, kept['id'])
    assert attachment['ID'] == attachment_id

    made = _server(stack, 'vm-bfv-new', '--image', 'tiny-raw',
                   '--boot-from-volume', '1')
    ((new_volume, _, _, boot_index, _),) = _bdms(stack, made['id'])
    assert boot_index == 0
    _volume_status(stack, new_volume, 'in-use')

    stack.osc('demo', 'server', 'delete', '--wait', server['id'],
              made['id'])
    # Not delete_on_termination: detached and kept.
    _volume_status(stack, kept['id'], 'available')
    assert _attachments(stack, kept['id']) == []
    assert _volume(stack, new_volume)['status'] == 'available'
    stack.osc('demo', 'volume', 'delete', kept['id'], new_volume)


def test_shelve_offload_attach_unshelve(stack):
    server = _server(stack, 'vm-shelve', '--image', 'tiny-raw')
    stack.osc('demo', 'server', 'shelve', server['id'])
    _server_status(stack, server['id'], 'SHELVED_OFFLOADED')
    shown = stack.osc_json('admin', 'server', 'show', server['id'])
    assert shown['OS-EXT-SRV-ATTR:host'] is None
    assert stack.osc_json('admin', 'resource', 'provider', 'allocation',
                          'show', server['id']) == []

    volume = _new_volume(stack, 'vol-shelved')
    stack.osc('demo', '--os-compute-api-version', '2.20', 'server', 'add',
              'volume', server['id'], volume['id'])
    _volume_status(stack, volume['id'], 'in-use')
    ((_, device, attachment_id, _, _),) = _bdms(stack, server['id'])
    assert device is None

    stack.osc('demo', 'server', 'unshelve', server['id'])
    _server_status(stack, server['id'], 'ACTIVE')
    shown = stack.osc_json('admin', 'server', 'show', server['id'])
    assert shown['OS-EXT-SRV-ATTR:host'] == HOST
    ((_, device, attachment_id, _, _),) = _bdms(stack, server['id'])
    assert device == '/dev/vdb'
    (attachment,) = _attachments(stack, volume['id'])
    assert (attachment['ID'], attachment['Status']) == (attachment_id,
                                                        'attached')
    stack.osc('demo', 'server', 'delete', '--wait', server['id'])
    _volume_status(stack, volume['id'], 'available')
    stack.osc('demo', 'volume', 'delete', volume['id'])


def test_failing_attach_leaves_nothing(stack):
    server = _server(stack, 'vm-fail', '--image', 'tiny-raw')
    volume = _new_volume(stack, 'vol-fail')
    lay = _layout(stack)
    path = stack_nova.compute_conf_path(lay, HOST)
    with open(path) as f:
        saved = f.read()
    _stop_computes(stack, HOST)
    try:
        with open(path, 'a') as f:
            f.write('\n[fake_driver]\nfail_attach_volume = true\n')
        _start_computes(stack, HOST)
        stack.osc('demo', 'server', 'add', 'volume', server['id'],
                  volume['id'])
        _until('the failed attach undone', lambda: (
            _bdms(stack, server['id']) == [] and
            (_volume(stack, volume['id']) or {}).get('status') ==
            'available'))
    finally:
        _stop_computes(stack, HOST)
        with open(path, 'w') as f:
            f.write(saved)
        _start_computes(stack, HOST)
    assert _attachments(stack, volume['id']) == []
    assert stack.osc_json('demo', 'server', 'show', server['id'])[
        'status'] == 'ACTIVE'
    actions = stack.osc_json('demo', 'server', 'event', 'list',
                             server['id'])
    (attach,) = [a for a in actions if a['Action'] == 'attach_volume']
    events = _parsed(stack.osc_json(
        'admin', '--os-compute-api-version', '2.62', 'server', 'event',
        'show', server['id'], attach['Request ID'])['events'])
    assert [(e['event'], e['result']) for e in events] == [
        ('compute_attach_volume', 'Error')]
    stack.osc('demo', 'server', 'delete', '--wait', server['id'])
    stack.osc('demo', 'volume', 'delete', volume['id'])
