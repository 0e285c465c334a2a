"""One request id finds a request in every service's log: the id a client
sends with a boot travels to Placement, Neutron and Glance, and the
stand-ins log it with each request they serve."""

import re

from oslo_utils import uuidutils


def _lines_with(path, text):
    with open(path, encoding='utf-8', errors='replace') as f:
        return [line for line in f if text in line]


def test_boot_request_id_reaches_the_peers(cloud, demo_api):
    global_id = 'req-%s' % uuidutils.generate_uuid()
    server = demo_api.post_server({
        'name': 'traced', 'flavorRef': cloud.flavor_id,
        'imageRef': cloud.image_id,
        'networks': [{'uuid': cloud.network_id}]},
        headers={'X-OpenStack-Request-ID': global_id})
    demo_api.wait_for_state(server['id'], 'ACTIVE')

    lines = _lines_with(cloud.log_file, global_id)
    # The API's own line for the POST, and the compute's work.
    assert any('"POST /v2.1/servers"' in line for line in lines), lines
    peer_lines = [line for line in lines if 'nova_clone.peers' in line]
    calls = {m.group(1) for m in (
        re.search(r'INFO \S+ \[.*?\] (\w+ /v2\S*) status', line)
        for line in peer_lines) if m}
    # Glance's image read at the API, Neutron's ports at the compute.
    assert any(c.startswith('GET /v2/images/') for c in calls), calls
    assert any(c.startswith('POST /v2.0/ports') for c in calls), calls
