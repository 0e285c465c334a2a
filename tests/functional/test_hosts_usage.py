"""/os-hosts and /os-simple-tenant-usage against the in-process cloud:
the hosts are the running services, enable/maintenance/power actions are
answered by the fake driver over RPC, usage shows the booted server."""

from tests.functional.api import samples


def test_host_list_and_show(cloud, admin_api, demo_api):
    server = demo_api.create_server()
    hosts = admin_api.get('/os-hosts', microversion='2.42').json()['hosts']
    computes = [h for h in hosts if h['service'] == 'compute']
    assert {h['host_name'] for h in computes} == set(cloud.compute_hosts)
    assert all(h['zone'] == 'nova' for h in computes)
    assert {'scheduler', 'conductor'} <= {h['service'] for h in hosts}
    assert all(h['zone'] == 'internal' for h in hosts
               if h['service'] != 'compute')
    samples.assert_matches('os-hosts/hosts-list-resp.json',
                           {'hosts': hosts})
    zoned = admin_api.get('/os-hosts?zone=nova', microversion='2.1').json()
    assert zoned['hosts'] == computes

    host = admin_api.get_server(server['id'])['OS-EXT-SRV-ATTR:host']
    shown = admin_api.get('/os-hosts/%s' % host, microversion='2.1').json()
    projects = [r['resource']['project'] for r in shown['host']]
    assert projects[:3] == ['(total)', '(used_now)', '(used_max)']
    assert demo_api.project_id in projects
    samples.assert_matches('os-hosts/host-get-resp.json', shown)
    assert admin_api.request('GET', '/os-hosts/nowhere',
                             microversion='2.1').status_code == 404
    assert admin_api.request('GET', '/os-hosts',
                             microversion='2.43').status_code == 404
    assert demo_api.request('GET', '/os-hosts',
                            microversion='2.1').status_code == 403


def test_host_update_and_power_actions(cloud, admin_api):
    host = cloud.compute_hosts[0]
    reply = admin_api.put('/os-hosts/%s' % host, samples.load(
        'os-hosts/host-put-maintenance-req.json'), microversion='2.1',
        expected=200).json()
    assert reply == {'host': host, 'status': 'enabled',
                     'maintenance_mode': 'off_maintenance'}
    samples.assert_matches('os-hosts/host-put-maintenance-resp.json', reply)
    reply = admin_api.put('/os-hosts/%s' % host, {
        'maintenance_mode': 'enable'}, microversion='2.1',
        expected=200).json()
    assert reply['maintenance_mode'] == 'on_maintenance'
    for action, sample in (('startup', 'host-get-startup.json'),
                           ('shutdown', 'host-get-shutdown.json'),
                           ('reboot', 'host-get-reboot.json')):
        reply = admin_api.get('/os-hosts/%s/%s' % (host, action),
                              microversion='2.1').json()
        assert reply == {'host': host, 'power_action': action}
        samples.assert_matches('os-hosts/' + sample, reply)
    bad = admin_api.request('PUT', '/os-hosts/%s' % host,
                            {'status': 'sideways'}, microversion='2.1')
    assert bad.status_code == 400
    assert admin_api.request('PUT', '/os-hosts/nowhere', {
        'status': 'enable'}, microversion='2.1').status_code == 404
    assert admin_api.request('GET', '/os-hosts/%s/reboot' % host,
                             microversion='2.43').status_code == 404


def test_usage_shows_the_booted_server(cloud, admin_api, demo_api):
    server = demo_api.create_server()
    usage = demo_api.get('/os-simple-tenant-usage/%s' % demo_api.project_id,
                         microversion='2.40').json()['tenant_usage']
    ids = [s['instance_id'] for s in usage['server_usages']]
    assert server['id'] in ids
    listed = admin_api.get('/os-simple-tenant-usage?detailed=1',
                           microversion='2.1').json()['tenant_usages']
    assert demo_api.project_id in [u['tenant_id'] for u in listed]


def test_usage_audit_periodic_fills_the_audit_log(cloud, admin_api):
    from nova_clone import context as nova_context
    with cloud.flags(instance_usage_audit=True):
        for host in cloud.compute_hosts:
            manager = cloud.compute_service(host).manager
            # Twice: a period is audited once.
            manager._instance_usage_audit(nova_context.get_admin_context())
            manager._instance_usage_audit(nova_context.get_admin_context())
    log = admin_api.get('/os-instance_usage_audit_log',
                        microversion='2.1').json()[
        'instance_usage_audit_logs']
    assert set(cloud.compute_hosts) <= set(log['log'])
    assert log['num_hosts_not_run'] == 0, log
    assert log['overall_status'] == 'ALL hosts done. 0 errors.', log
    for host in cloud.compute_hosts:
        assert log['log'][host]['state'] == 'DONE'
        assert log['log'][host]['message'].startswith(
            'Instance usage audit ran for host %s' % host)
