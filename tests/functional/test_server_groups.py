"""Server groups through the REST API of the in-process cloud (2 computes):
the API's answers against Nova's samples, quotas, and where the group's
servers land (scheduler filters and weighers, the compute's late check).
"""

import uuid

import pytest

from tests.functional.api import samples


def _create_group(api, policy, version='2.64', rules=None, expected=200):
    body = {'name': 'g-%s' % uuid.uuid4().hex[:6], 'policy': policy}
    if rules:
        body['rules'] = rules
    return api.post('/os-server-groups', {'server_group': body},
                    expected=expected, microversion=version)


def _boot_in_group(cloud, api, group_id, wait_for='ACTIVE', **extra):
    server = {'name': 's-%s' % uuid.uuid4().hex[:6],
              'flavorRef': cloud.flavor_id, 'imageRef': cloud.image_id,
              'networks': [{'uuid': cloud.network_id}]}
    server.update(extra)
    body = api.post('/servers', {'server': server,
                                 'os:scheduler_hints': {'group': group_id}},
                    expected=202).json()['server']
    cloud.track_server(body['id'])
    if wait_for is None:
        return body
    return api.wait_for_state(body['id'], wait_for)


@pytest.fixture
def groups(admin_api, demo_api):
    made = []
    yield made
    for api, group_id in made:
        api.request('DELETE', '/os-server-groups/%s' % group_id)


@pytest.mark.parametrize('version,folder', [
    ('2.1', ''), ('2.13', 'v2.13/'), ('2.64', 'v2.64/')])
def test_crud_matches_samples(demo_api, groups, version, folder):
    if version == '2.64':
        body = {'name': 'test', 'policy': 'anti-affinity',
                'rules': {'max_server_per_host': 3}}
    else:
        body = {'name': 'test', 'policies': ['anti-affinity']}
    created = demo_api.post('/os-server-groups', {'server_group': body},
                            expected=200, microversion=version).json()
    group_id = created['server_group']['id']
    groups.append((demo_api, group_id))
    samples.assert_matches(
        'os-server-groups/%sserver-groups-post-resp.json' % folder, created)
    shown = demo_api.get('/os-server-groups/%s' % group_id,
                         microversion=version).json()
    samples.assert_matches(
        'os-server-groups/%sserver-groups-get-resp.json' % folder, shown)
    listed = demo_api.get('/os-server-groups', microversion=version).json()
    assert group_id in [g['id'] for g in listed['server_groups']]
    samples.assert_matches(
        'os-server-groups/%sserver-groups-list-resp.json' % folder, listed)
    if version == '2.64':
        assert shown['server_group']['policy'] == 'anti-affinity'
        assert shown['server_group']['rules'] == {'max_server_per_host': 3}
    else:
        assert shown['server_group']['policies'] == ['anti-affinity']
    demo_api.delete('/os-server-groups/%s' % group_id, expected=204)
    demo_api.get('/os-server-groups/%s' % group_id, expected=404)


def test_bad_requests(demo_api, groups):
    # Soft policies arrive with 2.15; rules with 2.64, for anti-affinity only.
    demo_api.post('/os-server-groups', {'server_group': {
        'name': 'x', 'policies': ['soft-affinity']}}, expected=400,
        microversion='2.14')
    demo_api.post('/os-server-groups', {'server_group': {
        'name': 'x', 'policies': ['affinity', 'anti-affinity']}},
        expected=400, microversion='2.63')
    resp = _create_group(demo_api, 'affinity',
                         rules={'max_server_per_host': 2}, expected=400)
    assert 'Only anti-affinity policy supports rules' in resp.text
    _create_group(demo_api, 'anti-affinity',
                  rules={'max_server_per_host': 0}, expected=400)
    demo_api.post('/os-server-groups', {'server_group': {
        'name': 'x', 'policy': 'spread'}}, expected=400)
    demo_api.get('/os-server-groups/%s' % uuid.uuid4(), expected=404)
    demo_api.delete('/os-server-groups/%s' % uuid.uuid4(), expected=404)


def test_all_projects_only_for_admins(admin_api, demo_api, groups):
    mine = _create_group(demo_api, 'affinity').json()['server_group']
    groups.append((demo_api, mine['id']))
    theirs = _create_group(admin_api, 'affinity').json()['server_group']
    groups.append((admin_api, theirs['id']))
    demo_seen = {g['id'] for g in demo_api.get(
        '/os-server-groups?all_projects=True').json()['server_groups']}
    assert mine['id'] in demo_seen and theirs['id'] not in demo_seen
    admin_own = {g['id'] for g in admin_api.get(
        '/os-server-groups').json()['server_groups']}
    assert theirs['id'] in admin_own and mine['id'] not in admin_own
    admin_all = {g['id'] for g in admin_api.get(
        '/os-server-groups?all_projects=True').json()['server_groups']}
    assert {mine['id'], theirs['id']} <= admin_all
    # Another project's group is not the demo user's to see or delete.
    demo_api.get('/os-server-groups/%s' % theirs['id'], expected=403)


def test_server_groups_quota(cloud, admin_api, demo_api, groups):
    project = demo_api.project_id
    admin_api.put('/os-quota-sets/%s' % project, {'quota_set': {
        'server_groups': 1, 'server_group_members': 1}}, expected=200)
    try:
        group = _create_group(demo_api, 'anti-affinity').json()[
            'server_group']
        groups.append((demo_api, group['id']))
        resp = _create_group(demo_api, 'affinity', expected=403)
        assert 'Quota exceeded, too many server groups' in resp.text
        _boot_in_group(cloud, demo_api, group['id'])
        resp = demo_api.post('/servers', {
            'server': {'name': 'over', 'flavorRef': cloud.flavor_id,
                       'imageRef': cloud.image_id,
                       'networks': [{'uuid': cloud.network_id}]},
            'os:scheduler_hints': {'group': group['id']}}, expected=403)
        assert 'too many servers in group' in resp.text
    finally:
        admin_api.delete('/os-quota-sets/%s' % project, expected=202)


def test_unknown_group_hint_is_bad_request(cloud, demo_api):
    resp = demo_api.post('/servers', {
        'server': {'name': 'x', 'flavorRef': cloud.flavor_id,
                   'imageRef': cloud.image_id,
                   'networks': [{'uuid': cloud.network_id}]},
        'os:scheduler_hints': {'group': str(uuid.uuid4())}}, expected=400)
    assert 'could not be found' in resp.text


def test_anti_affinity_spreads_then_no_valid_host(cloud, admin_api, groups):
    group = _create_group(admin_api, 'anti-affinity').json()['server_group']
    groups.append((admin_api, group['id']))
    hosts = [_boot_in_group(cloud, admin_api, group['id'])[
        'OS-EXT-SRV-ATTR:host'] for _ in cloud.compute_hosts]
    assert sorted(hosts) == sorted(cloud.compute_hosts)
    extra = _boot_in_group(cloud, admin_api, group['id'], wait_for='ERROR')
    assert 'No valid host' in extra['fault']['message']
    shown = admin_api.get('/os-server-groups/%s' % group['id']).json()
    assert len(shown['server_group']['members']) == len(hosts) + 1
    # 2.71 shows the group on the server.
    server = admin_api.get_server(extra['id'], microversion='2.71')
    assert server['server_groups'] == [group['id']]
    # A deleted server leaves the group.
    admin_api.delete_server_and_wait(extra['id'])
    shown = admin_api.get('/os-server-groups/%s' % group['id']).json()
    assert extra['id'] not in shown['server_group']['members']


def test_max_server_per_host_rule(cloud, admin_api, groups):
    group = _create_group(admin_api, 'anti-affinity',
                          rules={'max_server_per_host': 2}).json()[
        'server_group']
    groups.append((admin_api, group['id']))
    servers = admin_api.post('/servers', {
        'server': {'name': 'multi', 'flavorRef': cloud.flavor_id,
                   'imageRef': cloud.image_id, 'min_count': 4,
                   'networks': [{'uuid': cloud.network_id}]},
        'os:scheduler_hints': {'group': group['id']}}, expected=202)
    assert servers
    members = admin_api.get('/os-server-groups/%s' % group['id']).json()[
        'server_group']['members']
    assert len(members) == 4
    hosts = []
    for member in members:
        cloud.track_server(member)
        hosts.append(admin_api.wait_for_state(member, 'ACTIVE')[
            'OS-EXT-SRV-ATTR:host'])
    assert sorted(hosts.count(h) for h in set(hosts)) == [2, 2]


@pytest.mark.parametrize('policy', ['affinity', 'soft-affinity'])
def test_affinity_stays_on_one_host(cloud, admin_api, groups, policy):
    group = _create_group(admin_api, policy).json()['server_group']
    groups.append((admin_api, group['id']))
    # The soft weigher must outweigh the spreading RAM, CPU and disk ones.
    with cloud.flags(group='filter_scheduler',
                     soft_affinity_weight_multiplier=10.0):
        hosts = {_boot_in_group(cloud, admin_api, group['id'])[
            'OS-EXT-SRV-ATTR:host'] for _ in range(3)}
    assert len(hosts) == 1


def test_soft_anti_affinity_spreads_past_the_hosts(cloud, admin_api,
                                                   groups):
    group = _create_group(admin_api, 'soft-anti-affinity').json()[
        'server_group']
    groups.append((admin_api, group['id']))
    n = len(cloud.compute_hosts)
    hosts = [_boot_in_group(cloud, admin_api, group['id'])[
        'OS-EXT-SRV-ATTR:host'] for _ in range(n + 1)]
    # Every host got one before any got a second; none failed.
    assert set(hosts[:n]) == set(cloud.compute_hosts)


def test_late_check_reschedules_the_loser(cloud, admin_api, groups):
    """The scheduler may not know of a member just placed (a parallel
    boot): the compute's check catches it and the build moves on."""
    scheduler = [svc.manager for svc in cloud.cloud.services
                 if hasattr(svc.manager, 'host_manager')][0]
    group = _create_group(admin_api, 'anti-affinity').json()['server_group']
    groups.append((admin_api, group['id']))
    first = _boot_in_group(cloud, admin_api, group['id'])
    kept = scheduler.filters
    # Blind the scheduler to the group and make it stack: it sends the
    # second server where the first one runs.
    scheduler.filters = [f for f in kept
                         if not type(f).__name__.startswith('ServerGroup')]
    try:
        with cloud.flags(group='filter_scheduler',
                         ram_weight_multiplier=-1.0,
                         cpu_weight_multiplier=-1.0,
                         disk_weight_multiplier=-1.0):
            second = _boot_in_group(cloud, admin_api, group['id'])
    finally:
        scheduler.filters = kept
    assert second['OS-EXT-SRV-ATTR:host'] != first['OS-EXT-SRV-ATTR:host']
    actions = admin_api.get_instance_actions(second['id'])
    create = [a for a in actions if a['action'] == 'create'][0]
    events = admin_api.get_instance_action_details(
        second['id'], create['request_id'], microversion='2.84')['events']
    builds = [e for e in events
              if e['event'] == 'compute__do_build_and_run_instance']
    # A build step on the first server's host (refused), then the other.
    assert {e.get('host') for e in builds} == {
        first['OS-EXT-SRV-ATTR:host'], second['OS-EXT-SRV-ATTR:host']}
