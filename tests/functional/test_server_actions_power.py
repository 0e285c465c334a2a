"""Power and state actions through the REST API of the in-process cloud:
os-stop, os-start, reboot, pause/unpause, suspend/resume, lock/unlock,
os-resetState, trigger_crash_dump, os-getConsoleOutput, diagnostics and
the power state sync."""

from nova_clone.compute import power_state
from nova_clone import context as nova_context
from nova_clone.virt import fake


def _action(api, server_id, body, expected=202, **kw):
    return api.post('/servers/%s/action' % server_id, body,
                    expected=expected, **kw)


def _events(api, server_id, action_name):
    for action in api.get_instance_actions(server_id, microversion='2.84'):
        if action['action'] == action_name:
            details = api.get_instance_action_details(
                server_id, action['request_id'], microversion='2.84')
            return [(e['event'], e['result']) for e in details['events']]
    raise AssertionError('no %s action on %s' % (action_name, server_id))


def _act_and_wait(api, server, body, status, action_name, event):
    _action(api, server['id'], body)
    found = api.wait_for_state(server['id'], status, task_state=None)
    api.wait_for_instance_action_event(server['id'], action_name, event,
                                       'Success')
    return found


def _in_cell(server_id, fn):
    from nova_clone import objects
    ctxt = nova_context.get_admin_context()
    mapping = objects.InstanceMapping.get_by_instance_uuid(ctxt, server_id)
    with nova_context.target_cell(ctxt, mapping.cell_mapping) as cctxt:
        return fn(objects, cctxt)


def _host(server_id):
    return _in_cell(server_id, lambda objects, cctxt: objects.Instance.
                    get_by_uuid(cctxt, server_id).host)


def _guest(server_id):
    return fake.get_hypervisor(_host(server_id)).guests[server_id]


def test_stop_start_reboot_pause_suspend_cycle(cloud, demo_api):
    server = demo_api.create_server()
    sid = server['id']

    stopped = _act_and_wait(demo_api, server, {'os-stop': None}, 'SHUTOFF',
                            'stop', 'compute_stop_instance')
    assert stopped['OS-EXT-STS:vm_state'] == 'stopped'
    assert stopped['OS-EXT-STS:power_state'] == power_state.SHUTDOWN

    # A stopped server can only be started (or hard rebooted).
    resp = _action(demo_api, sid, {'os-stop': None}, expected=409)
    assert resp.json()['conflictingRequest']['message'] == (
        "Cannot 'stop' instance %s while it is in vm_state stopped"
        % sid)
    resp = _action(demo_api, sid, {'reboot': {'type': 'SOFT'}},
                   expected=409)
    assert "Cannot 'reboot' instance" in resp.json()[
        'conflictingRequest']['message']

    started = _act_and_wait(demo_api, server, {'os-start': None}, 'ACTIVE',
                            'start', 'compute_start_instance')
    assert started['OS-EXT-STS:power_state'] == power_state.RUNNING

    _act_and_wait(demo_api, server, {'reboot': {'type': 'soft'}}, 'ACTIVE',
                  'reboot', 'compute_reboot_instance')
    _act_and_wait(demo_api, server, {'reboot': {'type': 'HARD'}}, 'ACTIVE',
                  'reboot', 'compute_reboot_instance')

    paused = _act_and_wait(demo_api, server, {'pause': None}, 'PAUSED',
                           'pause', 'compute_pause_instance')
    assert paused['OS-EXT-STS:power_state'] == power_state.PAUSED
    assert _guest(sid).state == power_state.PAUSED
    resp = _action(demo_api, sid, {'suspend': None}, expected=409)
    assert resp.json()['conflictingRequest']['message'] == (
        "Cannot 'suspend' instance %s while it is in vm_state paused" % sid)
    _act_and_wait(demo_api, server, {'unpause': {}}, 'ACTIVE', 'unpause',
                  'compute_unpause_instance')

    suspended = _act_and_wait(demo_api, server, {'suspend': None},
                              'SUSPENDED', 'suspend',
                              'compute_suspend_instance')
    assert suspended['OS-EXT-STS:power_state'] == power_state.SUSPENDED
    # A hard reboot brings back a suspended server.
    _act_and_wait(demo_api, server, {'reboot': {'type': 'HARD'}}, 'ACTIVE',
                  'reboot', 'compute_reboot_instance')
    _act_and_wait(demo_api, server, {'suspend': None}, 'SUSPENDED',
                  'suspend', 'compute_suspend_instance')
    resumed = _act_and_wait(demo_api, server, {'resume': None}, 'ACTIVE',
                            'resume', 'compute_resume_instance')
    assert resumed['OS-EXT-STS:power_state'] == power_state.RUNNING

    actions = [a['action'] for a in demo_api.get_instance_actions(sid)]
    for name in ('create', 'stop', 'start', 'reboot', 'pause', 'unpause',
                 'suspend', 'resume'):
        assert name in actions


def test_bad_action_bodies_are_400(cloud, demo_api):
    server = demo_api.create_server()
    _action(demo_api, server['id'], {'reboot': {'type': 'WARM'}},
            expected=400)
    _action(demo_api, server['id'], {'reboot': {}}, expected=400)
    _action(demo_api, server['id'], {'pause': {'now': True}}, expected=400)
    # trigger_crash_dump exists from 2.17.
    resp = _action(demo_api, server['id'], {'trigger_crash_dump': None},
                   expected=400, microversion='2.16')
    assert 'There is no such action' in resp.text


def test_lock_refuses_the_owner_not_the_admin(cloud, demo_api, admin_api):
    server = demo_api.create_server()
    sid = server['id']
    _action(demo_api, sid, {'lock': {'locked_reason': 'maintenance'}},
            microversion='2.73')
    shown = demo_api.get_server(sid, microversion='2.73')
    assert (shown['locked'], shown['locked_reason']) == (True,
                                                         'maintenance')

    resp = _action(demo_api, sid, {'os-stop': None}, expected=409)
    assert resp.json()['conflictingRequest']['message'] == (
        'Instance %s is locked' % sid)
    # An admin acts on a locked server.
    _act_and_wait(admin_api, server, {'pause': None}, 'PAUSED', 'pause',
                  'compute_pause_instance')
    _act_and_wait(admin_api, server, {'unpause': None}, 'ACTIVE',
                  'unpause', 'compute_unpause_instance')

    _action(demo_api, sid, {'unlock': None})
    shown = demo_api.get_server(sid, microversion='2.73')
    assert (shown['locked'], shown['locked_reason']) == (False, None)
    actions = [a['action'] for a in demo_api.get_instance_actions(sid)]
    assert 'lock' in actions and 'unlock' in actions

    # A lock an admin set is the admin's to lift.
    _action(admin_api, sid, {'lock': None})
    _action(demo_api, sid, {'unlock': None}, expected=403)
    _action(admin_api, sid, {'unlock': None})


def test_reset_state_is_admin_only(cloud, demo_api, admin_api):
    server = demo_api.create_server()
    sid = server['id']
    _action(demo_api, sid, {'os-resetState': {'state': 'error'}},
            expected=403)
    _action(admin_api, sid, {'os-resetState': {'state': 'stopped'}},
            expected=400)
    _action(admin_api, sid, {'os-resetState': {'state': 'error'}})
    shown = admin_api.get_server(sid)
    assert (shown['status'], shown['OS-EXT-STS:task_state']) == ('ERROR',
                                                                 None)
    # ERROR still allows a stop, as in Nova.
    _action(admin_api, sid, {'os-resetState': {'state': 'active'}})
    assert admin_api.get_server(sid)['status'] == 'ACTIVE'
    assert 'resetState' in [a['action'] for a in
                            admin_api.get_instance_actions(sid)]


def test_failed_pause_leaves_a_fault_and_no_task(cloud, demo_api,
                                                 admin_api, monkeypatch):
    server = demo_api.create_server()

    def broken(self, instance):
        raise RuntimeError('hypervisor says no')

    monkeypatch.setattr(fake.FakeDriver, 'pause', broken)
    _action(demo_api, server['id'], {'pause': None})
    demo_api.wait_for_instance_action_event(
        server['id'], 'pause', 'compute_pause_instance', 'Error')
    shown = admin_api.wait_for_state(server['id'], 'ACTIVE', task_state=None)
    assert shown['OS-EXT-STS:vm_state'] == 'active'
    # The fault is recorded (the API shows it only for ERROR servers).
    fault = _in_cell(server['id'], lambda objects, cctxt: objects.
                     InstanceFault.get_latest_for_instance(cctxt,
                                                           server['id']))
    assert (fault.code, fault.message) == (500, 'RuntimeError')
    assert 'hypervisor says no' in fault.details


def test_console_output_and_crash_dump(cloud, demo_api):
    server = demo_api.create_server()
    sid = server['id']
    resp = _action(demo_api, sid, {'os-getConsoleOutput': {}}, expected=200)
    assert resp.json() == {'output': fake.FAKE_CONSOLE_OUTPUT}
    assert len(fake.FAKE_CONSOLE_OUTPUT.splitlines()) > 3
    resp = _action(demo_api, sid, {'os-getConsoleOutput': {'length': 1}},
                   expected=200)
    assert resp.json() == {'output': 'LAST LINE'}
    resp = _action(demo_api, sid, {'os-getConsoleOutput': {'length': '-1'}},
                   expected=200)
    assert resp.json()['output'].startswith('FAKE CONSOLE OUTPUT')
    _action(demo_api, sid, {'os-getConsoleOutput': {'length': 'x'}},
            expected=400)

    _action(demo_api, sid, {'trigger_crash_dump': None},
            microversion='2.17')
    demo_api.wait_for_instance_action_event(
        sid, 'trigger_crash_dump', 'compute_trigger_crash_dump', 'Success')


def test_diagnostics_formats_and_refusals(cloud, demo_api, admin_api):
    server = demo_api.create_server()
    sid = server['id']
    admin_api.get('/servers/%s/diagnostics' % sid, microversion='2.48')
    demo_api.get('/servers/%s/diagnostics' % sid, expected=403)
    structured = admin_api.get('/servers/%s/diagnostics' % sid,
                               microversion='2.48').json()
    assert structured['state'] == 'running'
    # One of the drivers Nova's schema (and Tempest's) allows.
    assert structured['driver'] == 'libvirt'
    assert structured['hypervisor'] == 'fake'
    assert structured['num_cpus'] >= 1
    assert set(structured) == {
        'state', 'driver', 'hypervisor', 'hypervisor_os', 'uptime',
        'config_drive', 'num_cpus', 'num_nics', 'num_disks', 'cpu_details',
        'nic_details', 'disk_details', 'memory_details'}
    free_form = admin_api.get('/servers/%s/diagnostics' % sid,
                              microversion='2.47').json()
    assert free_form['driver'] == 'fake'

    _act_and_wait(demo_api, server, {'os-stop': None}, 'SHUTOFF', 'stop',
                  'compute_stop_instance')
    resp = admin_api.get('/servers/%s/diagnostics' % sid, expected=409,
                         microversion='2.48')
    assert 'power state shutdown' in resp.json()[
        'conflictingRequest']['message']


def test_power_sync_stops_a_guest_that_stopped_by_itself(cloud, demo_api):
    server = demo_api.create_server()
    sid = server['id']
    _guest(sid).state = power_state.SHUTDOWN
    manager = cloud.compute_service(_host(sid)).manager
    manager._sync_power_states(nova_context.get_admin_context())
    shown = demo_api.wait_for_state(sid, 'SHUTOFF', task_state=None)
    assert shown['OS-EXT-STS:power_state'] == power_state.SHUTDOWN
    demo_api.wait_for_instance_action_event(
        sid, 'stop', 'compute_stop_instance', 'Success')

    # Started outside the API while stopped: Nova stops it again.
    _guest(sid).state = power_state.RUNNING
    manager._sync_power_states(nova_context.get_admin_context())
    demo_api.wait_for_state(sid, 'SHUTOFF', task_state=None)
    assert _guest(sid).state == power_state.SHUTDOWN
