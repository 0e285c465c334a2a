"""The same_host and different_host scheduler hints through the REST API
of the in-process cloud, with SameHostFilter and DifferentHostFilter on
(as DevStack and `nova-clone stack` enable them)."""

import uuid

from nova_clone.scheduler.filters import host_hint_filters
from tests.functional.test_aggregates import _extra_filter


def _boot_with_hints(cloud, api, hints, wait_for='ACTIVE'):
    body = api.post('/servers', {'server': {
        'name': 'h-%s' % uuid.uuid4().hex[:6], 'flavorRef': cloud.flavor_id,
        'imageRef': cloud.image_id,
        'networks': [{'uuid': cloud.network_id}]},
        'os:scheduler_hints': hints}, expected=202).json()['server']
    cloud.track_server(body['id'])
    return api.wait_for_state(body['id'], wait_for)


def test_same_and_different_host_hints(cloud, admin_api):
    host = 'OS-EXT-SRV-ATTR:host'
    try:
        with _extra_filter(cloud, host_hint_filters.SameHostFilter()), \
                _extra_filter(cloud, host_hint_filters.DifferentHostFilter()):
            first = admin_api.create_server()
            apart = _boot_with_hints(cloud, admin_api,
                                     {'different_host': [first['id']]})
            # A single server may be named without a list.
            together = [_boot_with_hints(cloud, admin_api,
                                         {'same_host': first['id']})
                        for _ in range(2)]
            # Both hints at once: no host satisfies them.
            failed = _boot_with_hints(cloud, admin_api, {
                'same_host': [first['id']],
                'different_host': [first['id']]}, wait_for='ERROR')
    finally:
        cloud.cleanup_servers()
    assert apart[host] != first[host]
    assert {s[host] for s in together} == {first[host]}
    assert 'No valid host' in failed['fault']['message']
