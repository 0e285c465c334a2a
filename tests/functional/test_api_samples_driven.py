"""Nova's api_samples, driven: each row sends a sample's request (or a
plain GET) to the in-process cloud at the sample's microversion and
compares keys and value types of the answer with the sample's response.

Every directory of the reference tree is either driven here (or by the
api-bed comparisons of tests/functional/api/test_api_samples.py and the
route tests that name their samples) or listed in NOT_DRIVEN with why.
"""

import os
import pathlib

import pytest

from tests.functional.api import samples

REFERENCE = pathlib.Path('/work/shared/reference/api_samples')

# (response sample, method, path, microversion, request sample, user,
#  free paths).  Paths are formatted with the ``world`` fixture's ids.
ROWS = [
    ('os-simple-tenant-usage/simple-tenant-usage-get.json', 'GET',
     '/os-simple-tenant-usage', '2.1', None, 'admin', ()),
    ('os-simple-tenant-usage/simple-tenant-usage-get-detail.json', 'GET',
     '/os-simple-tenant-usage?detailed=1', '2.1', None, 'admin', ()),
    ('os-simple-tenant-usage/simple-tenant-usage-get-specific.json', 'GET',
     '/os-simple-tenant-usage/{project_id}', '2.1', None, 'demo', ()),
    ('os-simple-tenant-usage/v2.40/simple-tenant-usage-get-detail.json',
     'GET', '/os-simple-tenant-usage?detailed=1&limit=1', '2.40', None,
     'admin', ()),
    ('os-simple-tenant-usage/v2.40/simple-tenant-usage-get-specific.json',
     'GET', '/os-simple-tenant-usage/{project_id}?limit=1', '2.40', None,
     'demo', ()),
    ('os-hosts/hosts-list-resp.json', 'GET', '/os-hosts', '2.1', None,
     'admin', ()),
    ('os-hosts/host-get-resp.json', 'GET', '/os-hosts/{host}', '2.1', None,
     'admin', ()),
    ('os-hosts/host-put-maintenance-resp.json', 'PUT', '/os-hosts/{host}',
     '2.1', 'os-hosts/host-put-maintenance-req.json', 'admin', ()),
    ('os-hosts/host-get-startup.json', 'GET', '/os-hosts/{host}/startup',
     '2.1', None, 'admin', ()),
    ('os-hosts/host-get-shutdown.json', 'GET', '/os-hosts/{host}/shutdown',
     '2.1', None, 'admin', ()),
    ('os-hosts/host-get-reboot.json', 'GET', '/os-hosts/{host}/reboot',
     '2.1', None, 'admin', ()),
    ('os-instance-usage-audit-log/inst-usage-audit-log-index-get-resp.json',
     'GET', '/os-instance_usage_audit_log', '2.1', None, 'admin',
     ('instance_usage_audit_logs.log',
      'instance_usage_audit_logs.hosts_not_run')),
    ('images/images-list-get-resp.json', 'GET', '/images', '2.35', None,
     'demo', ()),
    ('images/image-get-resp.json', 'GET', '/images/{image_id}', '2.35',
     None, 'demo', ()),
    ('images/image-metadata-get-resp.json', 'GET',
     '/images/{image_id}/metadata', '2.38', None, 'demo', ()),
    ('images/image-meta-key-get.json', 'GET',
     '/images/{image_id}/metadata/kernel_id', '2.38', None, 'demo', ()),
    ('images/image-metadata-post-resp.json', 'POST',
     '/images/{image_id}/metadata', '2.38',
     'images/image-metadata-post-req.json', 'demo', ('metadata',)),
    ('images/image-meta-key-put-resp.json', 'PUT',
     '/images/{image_id}/metadata/auto_disk_config', '2.38',
     'images/image-meta-key-put-req.json', 'demo', ()),
    ('images/image-metadata-put-resp.json', 'PUT',
     '/images/{image_id}/metadata', '2.38',
     'images/image-metadata-put-req.json', 'demo', ()),
    ('os-networks/networks-list-resp.json', 'GET', '/os-networks', '2.35',
     None, 'admin', ()),
    ('os-networks/network-show-resp.json', 'GET',
     '/os-networks/{network_id}', '2.35', None, 'admin', ()),
    ('os-tenant-networks/networks-list-res.json', 'GET',
     '/os-tenant-networks', '2.35', None, 'demo', ()),
    ('os-security-groups/security-groups-list-get-resp.json', 'GET',
     '/os-security-groups', '2.35', None, 'demo',
     ('security_groups[].rules',)),
    ('os-security-groups/security-groups-get-resp.json', 'GET',
     '/os-security-groups/{security_group_id}', '2.35', None, 'demo',
     ('security_group.rules',)),
    ('os-security-groups/security-groups-create-resp.json', 'POST',
     '/os-security-groups', '2.35',
     'os-security-groups/security-group-post-req.json', 'demo', ()),
    ('os-security-groups/server-security-groups-list-resp.json', 'GET',
     '/servers/{server_id}/os-security-groups', '2.35', None, 'demo',
     ('security_groups[].rules',)),
    ('os-floating-ip-pools/floatingippools-list-resp.json', 'GET',
     '/os-floating-ip-pools', '2.35', None, 'demo', ()),
    ('os-floating-ips/floating-ips-create-resp.json', 'POST',
     '/os-floating-ips', '2.35', 'os-floating-ips/floating-ips-create-req'
     '.json', 'demo', ()),
    ('os-floating-ips/floating-ips-list-resp.json', 'GET',
     '/os-floating-ips', '2.35', None, 'demo', ()),
    ('os-volumes/os-volumes-index-resp.json', 'GET', '/os-volumes', '2.35',
     None, 'demo', ('volumes[].attachments',)),
    ('os-volumes/os-volumes-detail-resp.json', 'GET', '/os-volumes/detail',
     '2.35', None, 'demo', ('volumes[].attachments',)),
    ('os-volumes/os-volumes-get-resp.json', 'GET', '/os-volumes/{volume_id}',
     '2.35', None, 'demo', ('volume.attachments',)),
]

# Directories whose samples drive other tests (the api-bed comparisons in
# tests/functional/api and the route tests naming their samples).
DRIVEN_ELSEWHERE = {
    'extension-info', 'flavor-access', 'flavor-extra-specs',
    'flavor-manage', 'flavors', 'limits', 'os-availability-zone',
    'os-hypervisors', 'os-instance-actions', 'os-keypairs',
    'os-quota-class-sets', 'os-quota-sets', 'os-server-external-events',
    'os-services', 'servers', 'versions', 'os-multinic', 'os-snapshots',
    'os-assisted-volume-snapshots',
}

NOT_DRIVEN = {
    'consoles': 'removed API (410), no response body',
    'os-agents': 'removed API (410)',
    'os-cells': 'removed API (410)',
    'os-certificates': 'removed API (410)',
    'os-cloudpipe': 'removed API (410)',
    'os-fixed-ips': 'removed API (410)',
    'os-floating-ip-dns': 'removed API (410)',
    'os-floating-ips-bulk': 'removed API (410)',
    'os-fping': 'removed API (410)',
    'os-security-group-default-rules': 'removed API (410)',
    'os-virtual-interfaces': 'removed API (410)',
    'os-networks-associate': 'nova-network association actions: 410',
    'os-quota-sets-noop': 'needs the noop quota driver',
    'os-baremetal-nodes': 'Ironic proxy: no Ironic stand-in',
    'os-aggregates': 'server groups/aggregates branch (issue 30)',
    'os-server-groups': 'server groups/aggregates branch (issue 30)',
    'os-admin-actions': 'server action families of other branches',
    'os-admin-password': 'server action families of other branches',
    'os-attach-interfaces': 'server action families of other branches',
    'os-console-auth-tokens': 'consoles are not implemented',
    'os-console-output': 'server action families of other branches',
    'os-create-backup': 'server action families of other branches',
    'os-deferred-delete': 'server action families of other branches',
    'os-evacuate': 'server action families of other branches',
    'os-lock-server': 'server action families of other branches',
    'os-migrate-server': 'server action families of other branches',
    'os-migrations': 'migrations listing of other branches',
    'os-multiple-create': 'samples of /servers with min/max_count',
    'os-pause-server': 'server action families of other branches',
    'os-preserve-ephemeral-rebuild': 'rebuild of other branches',
    'os-remote-consoles': 'consoles are not implemented',
    'os-rescue': 'server action families of other branches',
    'os-server-diagnostics': 'diagnostics are not implemented',
    'os-server-password': 'server password is not implemented',
    'os-server-shares': 'shares are not implemented',
    'os-server-tags': 'tags samples carry server bodies of other versions',
    'os-server-topology': 'topology is not implemented',
    'os-shelve': 'server action families of other branches',
    'os-suspend-server': 'server action families of other branches',
    'os-volume_attachments': 'volume attach of other branches',
    'server-ips': 'compared by tests/functional/api/test_server_metadata',
    'server-metadata': 'compared by tests/functional/api/'
                       'test_server_metadata',
    'server-migrations': 'migrations of other branches',
    'servers-sort': 'sort samples are plain server lists',
}


def _neutron(api, method, path, body=None):
    return api.request(method, path, body, base=api.cloud.urls['network'],
                       expected=(200, 201, 204))


@pytest.fixture(scope='module')
def world(_session_cloud):
    """Ids the rows name: a server, an image with properties, a volume, a
    floating IP pool named 'public'."""
    cloud = _session_cloud()
    cloud.cloud.reassert_config()
    demo, admin = cloud.demo_api, cloud.admin_api
    server = demo.create_server()
    image = demo.http.post(cloud.urls['image'] + '/v2/images', json={
        'name': 'sample-img', 'disk_format': 'raw',
        'container_format': 'bare', 'architecture': 'x86_64',
        'auto_disk_config': 'True', 'kernel_id': 'nokernel',
        'ramdisk_id': 'nokernel'},
        headers={'X-Auth-Token': demo.token}).json()
    public = _neutron(admin, 'POST', '/v2.0/networks', {'network': {
        'name': 'public', 'router:external': True}}).json()['network']
    _neutron(admin, 'POST', '/v2.0/subnets', {'subnet': {
        'network_id': public['id'], 'cidr': '172.31.4.0/24',
        'ip_version': 4}})
    volume = demo.post('/os-volumes', {'volume': {
        'size': 1, 'display_name': 'sample-vol'}}, microversion='2.35',
        expected=200).json()['volume']
    groups = demo.get('/os-security-groups', microversion='2.35').json()
    ids = {
        'server_id': server['id'], 'image_id': image['id'],
        'volume_id': volume['id'],
        'security_group_id': groups['security_groups'][0]['id'],
        'network_id': demo.get_networks()[0]['id'],
        'project_id': demo.project_id, 'host': cloud.compute_hosts[0],
    }
    yield {'ids': ids, 'demo': demo, 'admin': admin}
    for fip in demo.get('/os-floating-ips', microversion='2.35').json()[
            'floating_ips']:
        demo.request('DELETE', '/os-floating-ips/%s' % fip['id'],
                      microversion='2.35')
    _neutron(admin, 'DELETE', '/v2.0/networks/%s' % public['id'])
    demo.request('DELETE', '/os-volumes/%s' % volume['id'],
                 microversion='2.35')
    demo.http.delete(cloud.urls['image'] + '/v2/images/%s' % image['id'],
                     headers={'X-Auth-Token': demo.token})
    demo.delete_server_and_wait(server['id'])


@pytest.mark.parametrize('row', ROWS, ids=[r[0] for r in ROWS])
def test_sample(world, row):
    response, method, path, version, request, user, free = row
    api = world[user]
    body = samples.load(request) if request else None
    reply = api.request(method, path.format(**world['ids']), body,
                        microversion=version)
    assert reply.status_code == 200, reply.text
    samples.assert_matches(response, reply.json(), free=free)


def test_every_sample_directory_is_accounted_for():
    assert REFERENCE.is_dir() or os.path.isdir(samples.SAMPLES_DIR)
    tree = REFERENCE if REFERENCE.is_dir() else pathlib.Path(
        samples.SAMPLES_DIR)
    driven = {r[0].split('/')[0] for r in ROWS} | DRIVEN_ELSEWHERE
    unaccounted = sorted(d.name for d in tree.iterdir() if d.is_dir() and
                         d.name not in driven and d.name not in NOT_DRIVEN)
    assert unaccounted == []
    assert not driven & set(NOT_DRIVEN)
