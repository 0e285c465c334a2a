"""Parallel boots never end over the instance quota: each boot counts
again after recording its servers and backs out when others took the
room meanwhile (Nova's [quota] recheck_quota)."""

import threading


def _parallel_boots(cloud, api, count):
    barrier = threading.Barrier(count)
    codes = []

    def boot(index):
        barrier.wait()
        resp = api.post('/servers', {'server': {
            'name': 'race-%d' % index, 'flavorRef': cloud.flavor_id,
            'imageRef': cloud.image_id,
            'networks': [{'uuid': cloud.network_id}]}})
        codes.append(resp.status_code)

    threads = [threading.Thread(target=boot, args=(i,))
               for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return codes


def test_parallel_boots_stay_within_the_instance_quota(cloud, demo_api,
                                                       admin_api):
    quotas = '/os-quota-sets/%s' % demo_api.project_id
    limit = 3
    admin_api.put(quotas, {'quota_set': {'instances': limit}}, expected=200)
    try:
        for _round in range(3):
            codes = _parallel_boots(cloud, demo_api, 8)
            assert sorted(set(codes)) <= [202, 403], codes
            servers = demo_api.get_servers(detail=False)
            # Every accepted boot is listed, and no refused one is.
            assert len(servers) == codes.count(202) <= limit, codes
            for server in servers:
                demo_api.delete_server_and_wait(server['id'])
    finally:
        admin_api.delete(quotas, expected=202)
