"""The stand-ins answer as Keystone, Glance, Neutron and Cinder do.

All four run in this process on free ports with SQLite, tokens checked by
keystonemiddleware against the identity stand-in; Neutron's events go to
a small receiver standing in for nova-api.
"""

import hashlib
import json
import os
import threading
import time

import pytest
import webob
import webob.dec
from keystoneauth1 import adapter as ks_adapter
from keystoneauth1 import loading as ks_loading
from keystoneauth1 import session as ks_session
from keystoneauth1.identity import v3
from oslo_config import cfg

from nova_clone import wsgi_server
from nova_clone.peers import conf as peers_conf
from nova_clone.peers import identity
from nova_clone.peers import local

PASSWORD = 'secret'


class EventReceiver:
    """A fake nova-api that records os-server-external-events."""

    def __init__(self):
        self.events = []
        self.tokens = []
        self.cond = threading.Condition()

    @webob.dec.wsgify
    def __call__(self, req):
        if req.method == 'POST' and req.path.endswith(
                '/os-server-external-events'):
            with self.cond:
                self.tokens.append(req.headers.get('X-Auth-Token'))
                self.events.extend(json.loads(req.body)['events'])
                self.cond.notify_all()
            return webob.Response(json_body={'events': []}, status=200)
        return webob.Response(status=404)

    def wait_for(self, name, tag, timeout=5):
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                for event in self.events:
                    if event['name'] == name and event['tag'] == tag:
                        return event
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self.cond.wait(left)


@pytest.fixture(scope='module')
def peers(tmp_path_factory):
    base = tmp_path_factory.mktemp('peers')
    receiver = EventReceiver()
    receiver_handle = wsgi_server.serve(receiver, '127.0.0.1', 0)
    conf = cfg.ConfigOpts()
    peers_conf.register_opts(conf)
    conf([], project='nova-clone-test', default_config_files=[],
         default_config_dirs=[])
    conf.set_override('connection', 'sqlite:///%s/peers.sqlite' % base,
                      'peers')
    conf.set_override('admin_password', PASSWORD, 'peers')
    conf.set_override('vif_event_delay', 0.05, 'peers')
    peers = local.LocalPeers(conf).start()
    conf.register_opts(ks_loading.get_auth_plugin_conf_options('password'),
                       group='nova')
    for key, value in {'auth_type': 'password', 'auth_url': peers.auth_url,
                       'username': 'neutron', 'password': PASSWORD,
                       'project_name': 'service',
                       'user_domain_name': 'Default',
                       'project_domain_name': 'Default',
                       'endpoint_override': receiver_handle.url + '/v2.1',
                       }.items():
        conf.set_override(key, value, group='nova')
    store = identity.make_store(conf.peers.connection)
    identity.add_user(store, 'alt', PASSWORD, 'alt')
    store.dispose()
    peers.receiver = receiver
    peers.conf = conf
    peers.base = base
    yield peers
    peers.stop()
    receiver_handle.stop()


def session(peers, user='demo', project='demo'):
    auth = v3.Password(auth_url=peers.auth_url, username=user,
                       password=PASSWORD, project_name=project,
                       user_domain_name='Default',
                       project_domain_name='Default')
    return ks_session.Session(auth=auth)


def client(peers, service, user='demo', project='demo'):
    sess = session(peers, user, project)
    return ks_adapter.Adapter(sess, endpoint_override=peers.url(service),
                              raise_exc=False)


@pytest.fixture(scope='module')
def demo_glance(peers):
    return client(peers, 'glance')


# -- identity ---------------------------------------------------------------

def test_identity_version_discovery_and_password_token(peers):
    raw = ks_session.Session()
    resp = raw.get(peers.url('identity') + '/', raise_exc=False)
    assert resp.status_code == 300
    assert resp.json()['versions']['values'][0]['id'].startswith('v3')
    resp = raw.post(peers.auth_url + '/auth/tokens', json={'auth': {
        'identity': {'methods': ['password'], 'password': {'user': {
            'name': 'demo', 'domain': {'name': 'Default'},
            'password': PASSWORD}}},
        'scope': {'project': {'name': 'demo',
                              'domain': {'name': 'Default'}}}}})
    assert resp.status_code == 201
    token = resp.headers['X-Subject-Token']
    body = resp.json()['token']
    assert body['project']['name'] == 'demo'
    assert body['is_domain'] is False
    assert {r['name'] for r in body['roles']} == {'member', 'reader'}
    types = {s['type'] for s in body['catalog']}
    assert {'identity', 'image', 'network', 'block-storage',
            'volumev3'} <= types
    cinder = [s for s in body['catalog'] if s['type'] == 'volumev3'][0]
    assert cinder['endpoints'][0]['url'].endswith(body['project']['id'])
    # validate with itself, then revoke and see it gone
    headers = {'X-Auth-Token': token, 'X-Subject-Token': token}
    assert raw.get(peers.auth_url + '/auth/tokens', headers=headers,
                   raise_exc=False).status_code == 200
    head = raw.head(peers.auth_url + '/auth/tokens', headers=headers,
                    raise_exc=False)
    assert head.status_code == 200 and not head.content
    assert raw.delete(peers.auth_url + '/auth/tokens', headers=headers,
                      raise_exc=False).status_code == 204
    admin = session(peers, 'admin', 'admin')
    resp = admin.get(peers.auth_url + '/auth/tokens', raise_exc=False,
                     headers={'X-Subject-Token': token})
    assert resp.status_code == 404
    assert resp.json()['error']['code'] == 404


def test_identity_tokens_are_read_only_by_their_user_or_a_service(peers):
    demo = session(peers, 'demo', 'demo')
    admin = session(peers, 'admin', 'admin')
    service = session(peers, 'neutron', 'service')
    admin_token = admin.get_token()
    demo_token = demo.get_token()

    def read(sess, subject):
        return sess.get(peers.auth_url + '/auth/tokens', raise_exc=False,
                        headers={'X-Subject-Token': subject})

    resp = read(demo, admin_token)
    assert resp.status_code == 403
    assert 'identity:validate_token' in resp.json()['error']['message']
    assert 'token' not in resp.json()
    resp = demo.delete(peers.auth_url + '/auth/tokens', raise_exc=False,
                       headers={'X-Subject-Token': admin_token})
    assert resp.status_code == 403
    assert read(admin, admin_token).status_code == 200
    assert read(demo, demo_token).status_code == 200
    assert read(admin, demo_token).status_code == 200
    resp = read(service, admin_token)
    assert resp.status_code == 200
    assert resp.json()['token']['user']['name'] == 'admin'


def test_identity_rejects_bad_password_and_limits_listings(peers):
    raw = ks_session.Session()
    resp = raw.post(peers.auth_url + '/auth/tokens', raise_exc=False,
                    json={'auth': {'identity': {
                        'methods': ['password'], 'password': {'user': {
                            'name': 'demo', 'domain': {'id': 'default'},
                            'password': 'wrong'}}}}})
    assert resp.status_code == 401
    assert resp.json()['error']['title'] == 'Unauthorized'
    resp = raw.post(peers.auth_url + '/auth/tokens', raise_exc=False,
                    data=b'not json',
                    headers={'Content-Type': 'application/json'})
    assert resp.status_code == 400
    demo = session(peers)
    assert demo.get(peers.auth_url + '/projects',
                    raise_exc=False).status_code == 403
    mine = demo.get(peers.auth_url + '/auth/projects').json()['projects']
    assert [p['name'] for p in mine] == ['demo']
    admin = session(peers, 'admin', 'admin')
    users = admin.get(peers.auth_url + '/users').json()['users']
    assert {'admin', 'demo', 'reader', 'nova', 'neutron'} <= {
        u['name'] for u in users}
    assert all('password_hash' not in u for u in users)


def test_reader_user_has_only_reader_role(peers):
    sess = session(peers, 'reader', 'demo')
    access = sess.auth.get_access(sess)
    assert access.role_names == ['reader']


# -- glance -----------------------------------------------------------------

def test_glance_image_upload_download_and_checksum(peers, demo_glance):
    data = os.urandom(70000)
    resp = demo_glance.post('/v2/images', json={
        'name': 'cirros', 'disk_format': 'qcow2',
        'container_format': 'bare', 'min_disk': 1, 'hw_disk_bus': 'virtio',
        'tags': ['a']})
    assert resp.status_code == 201
    image = resp.json()
    assert image['status'] == 'queued'
    assert image['hw_disk_bus'] == 'virtio'
    assert image['visibility'] == 'shared'
    assert demo_glance.get('/v2/images/%s/file' % image['id']).status_code \
        == 204
    resp = demo_glance.put('/v2/images/%s/file' % image['id'], data=data,
                           headers={'Content-Type':
                                    'application/octet-stream'})
    assert resp.status_code == 204
    shown = demo_glance.get('/v2/images/%s' % image['id']).json()
    assert shown['status'] == 'active'
    assert shown['size'] == len(data)
    assert shown['checksum'] == hashlib.md5(data).hexdigest()
    assert shown['os_hash_algo'] == 'sha512'
    assert shown['os_hash_value'] == hashlib.sha512(data).hexdigest()
    resp = demo_glance.get('/v2/images/%s/file' % image['id'])
    assert resp.status_code == 200 and resp.content == data
    # The upload finished in its request: no import task left pending.
    assert demo_glance.get('/v2/images/%s/tasks' % image['id']).json() == {
        'tasks': []}
    # a second upload is a conflict
    assert demo_glance.put('/v2/images/%s/file' % image['id'], data=b'x',
                           headers={'Content-Type':
                                    'application/octet-stream'}
                           ).status_code == 409


def test_glance_visibility_between_projects(peers, demo_glance):
    alt = client(peers, 'glance', 'alt', 'alt')
    admin = client(peers, 'glance', 'admin', 'admin')
    private = demo_glance.post('/v2/images', json={
        'name': 'mine', 'visibility': 'private'}).json()
    community = demo_glance.post('/v2/images', json={
        'name': 'comm', 'visibility': 'community'}).json()
    public = admin.post('/v2/images', json={
        'name': 'pub', 'visibility': 'public'}).json()
    assert demo_glance.post('/v2/images', json={
        'name': 'x', 'visibility': 'public'}).status_code == 403
    assert alt.get('/v2/images/%s' % private['id']).status_code == 404
    assert alt.get('/v2/images/%s' % community['id']).status_code == 200
    names = {i['name'] for i in alt.get('/v2/images').json()['images']}
    assert 'pub' in names and 'mine' not in names
    names = {i['name'] for i in alt.get(
        '/v2/images?visibility=community').json()['images']}
    assert names == {'comm'}
    assert private['id'] in {i['id'] for i in admin.get(
        '/v2/images?limit=1000').json()['images']}
    assert alt.delete('/v2/images/%s' % public['id']).status_code == 403


def test_glance_list_filters_and_paging(peers, demo_glance):
    ids = [demo_glance.post('/v2/images', json={'name': 'page-%d' % n}
                            ).json()['id'] for n in range(3)]
    page = demo_glance.get('/v2/images?name=page-1').json()['images']
    assert [i['id'] for i in page] == [ids[1]]
    first = demo_glance.get('/v2/images?limit=2&sort=name:asc'
                            '&status=queued').json()
    assert len(first['images']) == 2 and 'next' in first
    rest = demo_glance.get(first['next']).json()['images']
    assert not {i['id'] for i in rest} & {i['id'] for i in first['images']}
    assert demo_glance.get('/v2/images?marker=nope').status_code == 400
    assert demo_glance.get('/v2/images?sort_key=bogus').status_code == 400


def test_glance_patch_and_delete(peers, demo_glance):
    image = demo_glance.post('/v2/images', json={'name': 'p'}).json()
    patch = 'application/openstack-images-v2.1-json-patch'
    resp = demo_glance.patch('/v2/images/%s' % image['id'], json=[
        {'op': 'replace', 'path': '/name', 'value': 'renamed'},
        {'op': 'add', 'path': '/os_distro', 'value': 'cirros'},
        {'op': 'replace', 'path': '/protected', 'value': True}],
        headers={'Content-Type': patch})
    assert resp.status_code == 200
    assert resp.json()['name'] == 'renamed'
    assert resp.json()['os_distro'] == 'cirros'
    assert demo_glance.patch('/v2/images/%s' % image['id'], json=[
        {'op': 'replace', 'path': '/status', 'value': 'active'}],
        headers={'Content-Type': patch}).status_code == 403
    # The v2.0 patch names the operation by its key (Tempest sends it).
    resp = demo_glance.patch('/v2/images/%s' % image['id'], json=[
        {'add': '/hw_rescue_bus', 'value': 'virtio'}],
        headers={'Content-Type':
                 'application/openstack-images-v2.0-json-patch'})
    assert resp.status_code == 200 and resp.json()['hw_rescue_bus'] == \
        'virtio'
    assert demo_glance.patch('/v2/images/%s' % image['id'], json=[],
                             headers={'Content-Type': 'application/json'}
                             ).status_code == 415
    resp = demo_glance.delete('/v2/images/%s' % image['id'])
    assert resp.status_code == 403
    demo_glance.patch('/v2/images/%s' % image['id'], json=[
        {'op': 'replace', 'path': '/protected', 'value': False},
        {'op': 'remove', 'path': '/os_distro'}],
        headers={'Content-Type': patch})
    assert demo_glance.delete('/v2/images/%s' % image['id']).status_code \
        == 204
    assert demo_glance.get('/v2/images/%s' % image['id']).status_code == 404


def test_glance_schema_versions_and_auth(peers, demo_glance):
    raw = ks_session.Session()
    resp = raw.get(peers.url('glance') + '/', raise_exc=False)
    assert resp.status_code == 300
    assert resp.json()['versions'][0]['status'] == 'CURRENT'
    resp = raw.get(peers.url('glance') + '/v2/images', raise_exc=False)
    assert resp.status_code == 401
    schema = demo_glance.get('/v2/schemas/image').json()
    assert schema['name'] == 'image'
    assert 'disk_format' in schema['properties']
    assert demo_glance.get('/v2/schemas/members').json()['name'] == \
        'members'
    assert demo_glance.post('/v2/images', json={'disk_format': 'bogus'}
                            ).status_code == 400


# -- neutron ----------------------------------------------------------------

@pytest.fixture(scope='module')
def net(peers):
    neutron = client(peers, 'neutron')
    network = neutron.post('/v2.0/networks', json={'network': {
        'name': 'private'}}).json()['network']
    subnet = neutron.post('/v2.0/subnets', json={'subnet': {
        'network_id': network['id'], 'cidr': '10.1.0.0/29',
        'ip_version': 4, 'name': 'tiny'}}).json()['subnet']
    return network, subnet


def test_neutron_network_subnet_and_ip_allocation(peers, net):
    neutron = client(peers, 'neutron')
    network, subnet = net
    assert subnet['gateway_ip'] == '10.1.0.1'
    assert subnet['allocation_pools'] == [{'start': '10.1.0.2',
                                           'end': '10.1.0.6'}]
    shown = neutron.get('/v2.0/networks/%s' % network['id']).json()
    assert shown['network']['subnets'] == [subnet['id']]
    assert shown['network']['mtu'] == 1450
    assert shown['network']['router:external'] is False
    ports = []
    for _ in range(5):
        resp = neutron.post('/v2.0/ports', json={'port': {
            'network_id': network['id']}})
        assert resp.status_code == 201
        ports.append(resp.json()['port'])
    assert [p['fixed_ips'][0]['ip_address'] for p in ports] == [
        '10.1.0.%d' % n for n in range(2, 7)]
    assert len({p['mac_address'] for p in ports}) == 5
    assert all(p['mac_address'].startswith('fa:16:3e:') for p in ports)
    assert all(p['status'] == 'DOWN' for p in ports)
    assert all(len(p['security_groups']) == 1 for p in ports)
    resp = neutron.post('/v2.0/ports', json={'port': {
        'network_id': network['id']}})
    assert resp.status_code == 409
    assert resp.json()['NeutronError']['type'] == \
        'IpAddressGenerationFailure'
    neutron.delete('/v2.0/ports/%s' % ports[1]['id'])
    resp = neutron.post('/v2.0/ports', json={'port': {
        'network_id': network['id'],
        'fixed_ips': [{'ip_address': '10.1.0.4'}]}})
    assert resp.status_code == 409
    assert resp.json()['NeutronError']['type'] == \
        'IpAddressAlreadyAllocated'
    found = neutron.get('/v2.0/ports?fixed_ips=ip_address%3D10.1.0.4'
                        ).json()['ports']
    assert [p['id'] for p in found] == [ports[2]['id']]
    resp = neutron.delete('/v2.0/networks/%s' % network['id'])
    assert resp.status_code == 409
    for port in ports[:1] + ports[2:]:
        assert neutron.delete('/v2.0/ports/%s' % port['id']).status_code \
            == 204


def test_neutron_visibility_and_errors(peers, net):
    alt = client(peers, 'neutron', 'alt', 'alt')
    admin = client(peers, 'neutron', 'admin', 'admin')
    network, _subnet = net
    resp = alt.get('/v2.0/networks/%s' % network['id'])
    assert resp.status_code == 404
    assert resp.json()['NeutronError']['type'] == 'NetworkNotFound'
    shared = admin.post('/v2.0/networks', json={'network': {
        'name': 'public-shared', 'shared': True}}).json()['network']
    names = {n['name'] for n in alt.get('/v2.0/networks').json()['networks']}
    assert 'public-shared' in names and 'private' not in names
    assert alt.post('/v2.0/networks', json={'network': {
        'name': 'x', 'provider:network_type': 'flat'}}).status_code == 403
    assert alt.post('/v2.0/networks', json={'nope': {}}).status_code == 400
    assert alt.post('/v2.0/subnets', json={'subnet': {
        'network_id': shared['id'], 'cidr': 'bogus'}}).status_code in (
            400, 403)
    sgs = alt.get('/v2.0/security-groups').json()['security_groups']
    assert [g['name'] for g in sgs] == ['default']
    exts = {e['alias'] for e in alt.get('/v2.0/extensions').json()[
        'extensions']}
    assert {'binding', 'binding-extended', 'security-group'} <= exts


def test_neutron_only_the_network_owner_picks_addresses_on_it(peers):
    alt = client(peers, 'neutron', 'alt', 'alt')
    admin = client(peers, 'neutron', 'admin', 'admin')
    network = admin.post('/v2.0/networks', json={'network': {
        'name': 'shared-pick', 'shared': True}}).json()['network']
    subnet = admin.post('/v2.0/subnets', json={'subnet': {
        'network_id': network['id'], 'cidr': '10.77.0.0/24',
        'ip_version': 4}}).json()['subnet']
    resp = alt.post('/v2.0/ports', json={'port': {
        'network_id': network['id'],
        'fixed_ips': [{'ip_address': '10.77.0.50'}]}})
    assert resp.status_code == 403
    assert 'create_port:fixed_ips:ip_address' in \
        resp.json()['NeutronError']['message']
    # A subnet without an address is the project's to ask for.
    port = alt.post('/v2.0/ports', json={'port': {
        'network_id': network['id'],
        'fixed_ips': [{'subnet_id': subnet['id']}]}}).json()['port']
    resp = alt.put('/v2.0/ports/%s' % port['id'], json={'port': {
        'fixed_ips': [{'ip_address': '10.77.0.60'}]}})
    assert resp.status_code == 403
    taken = [ip['ip_address'] for p in admin.get(
        '/v2.0/ports?network_id=%s' % network['id']).json()['ports']
        for ip in p['fixed_ips']]
    assert '10.77.0.50' not in taken and '10.77.0.60' not in taken
    resp = admin.post('/v2.0/ports', json={'port': {
        'network_id': network['id'],
        'fixed_ips': [{'ip_address': '10.77.0.50'}]}})
    assert resp.status_code == 201


def test_neutron_forged_identity_headers_never_count(peers, net):
    """Repeated tokens are answered from a memo: still no forging."""
    alt = client(peers, 'neutron', 'alt', 'alt')
    forged = {'X-Roles': 'admin', 'X-Project-Id': 'someone',
              'X-Identity-Status': 'Confirmed', 'X-User-Id': 'root'}
    for _ in range(3):
        resp = alt.get('/v2.0/quotas/someone/details', headers=forged)
        assert resp.status_code == 403
        resp = alt.get('/v2.0/networks/%s' % net[0]['id'], headers=forged)
        assert resp.status_code == 404
        resp = alt.get('/v2.0/security-groups', headers=forged)
        assert {g['project_id'] for g in resp.json()['security_groups']} \
            != {'someone'}
    raw = ks_session.Session()
    resp = raw.get(peers.url('neutron') + '/v2.0/networks', headers=forged,
                   raise_exc=False)
    assert resp.status_code == 401


def _server_port(peers, network_id):
    neutron = client(peers, 'neutron')
    return neutron.post('/v2.0/ports', json={'port': {
        'network_id': network_id}}).json()['port']


def test_neutron_binding_sends_vif_events(peers, net):
    network, _subnet = net
    admin = client(peers, 'neutron', 'admin', 'admin')
    demo = client(peers, 'neutron')
    port = _server_port(peers, network['id'])
    server = '6f2a0c9e-1d3b-4a55-9bb2-0d1f6b6a1e01'
    resp = admin.put('/v2.0/ports/%s' % port['id'], json={'port': {
        'device_id': server, 'device_owner': 'compute:nova',
        'binding:host_id': 'host1'}})
    assert resp.status_code == 200
    bound = resp.json()['port']
    assert bound['binding:vif_type'] == 'ovs'
    event = peers.receiver.wait_for('network-vif-plugged', port['id'])
    assert event == {'name': 'network-vif-plugged', 'server_uuid': server,
                     'tag': port['id'], 'status': 'completed'}
    assert peers.receiver.tokens[-1]
    shown = admin.get('/v2.0/ports/%s' % port['id']).json()['port']
    assert shown['status'] == 'ACTIVE'
    assert shown['binding:host_id'] == 'host1'
    assert 'binding:host_id' not in demo.get(
        '/v2.0/ports/%s' % port['id']).json()['port']
    assert demo.put('/v2.0/ports/%s' % port['id'], json={'port': {
        'binding:host_id': 'evil'}}).status_code == 403
    resp = admin.put('/v2.0/ports/%s' % port['id'], json={'port': {
        'fixed_ips': [{'ip_address': '10.1.0.6'}]}})
    assert resp.json()['port']['fixed_ips'][0]['ip_address'] == '10.1.0.6'
    assert peers.receiver.wait_for('network-changed', port['id'])
    listed = admin.get('/v2.0/ports?device_id=%s' % server).json()['ports']
    assert [p['id'] for p in listed] == [port['id']]
    admin.put('/v2.0/ports/%s' % port['id'], json={'port': {
        'binding:host_id': None}})
    assert peers.receiver.wait_for('network-vif-unplugged', port['id'])
    assert admin.get('/v2.0/ports/%s' % port['id']).json()['port'][
        'binding:vif_type'] == 'unbound'
    admin.delete('/v2.0/ports/%s' % port['id'])
    assert peers.receiver.wait_for('network-vif-deleted', port['id'])


def test_neutron_without_vif_plugged_events(peers, net):
    network, _subnet = net
    app = cloud_app(peers, 'neutron')
    app.send_vif_plugged = False
    try:
        admin = client(peers, 'neutron', 'admin', 'admin')
        port = _server_port(peers, network['id'])
        admin.put('/v2.0/ports/%s' % port['id'], json={'port': {
            'device_id': 'a0e7b4a2-7d7e-4a8c-9a61-5a1d8f3f0b11',
            'device_owner': 'compute:nova', 'binding:host_id': 'host1'}})
        assert peers.receiver.wait_for('network-vif-plugged', port['id'],
                                       timeout=0.5) is None
        assert admin.get('/v2.0/ports/%s' % port['id']).json()['port'][
            'status'] == 'DOWN'
        admin.delete('/v2.0/ports/%s' % port['id'])
    finally:
        app.send_vif_plugged = True


def cloud_app(peers, name):
    from nova_clone.peers import neutron
    app = peers.handles[name]._server.get_app()
    seen = [app]
    while seen:
        obj = seen.pop()
        if isinstance(obj, neutron.NeutronApp):
            return obj
        for attr in ('application', 'app', '_app'):
            inner = getattr(obj, attr, None)
            if inner is not None:
                seen.append(inner)
    raise AssertionError('no NeutronApp')


def test_neutron_multiple_port_bindings(peers, net):
    network, _subnet = net
    admin = client(peers, 'neutron', 'admin', 'admin')
    port = _server_port(peers, network['id'])
    server = 'c3d1e2f4-5a6b-4c7d-8e9f-0a1b2c3d4e5f'
    admin.put('/v2.0/ports/%s' % port['id'], json={'port': {
        'device_id': server, 'device_owner': 'compute:nova',
        'binding:host_id': 'src'}})
    url = '/v2.0/ports/%s/bindings' % port['id']
    resp = admin.post(url, json={'binding': {'host': 'dst'}})
    assert resp.status_code == 201
    assert resp.json()['binding']['status'] == 'INACTIVE'
    assert admin.post(url, json={'binding': {'host': 'dst'}}).json()[
        'NeutronError']['type'] == 'PortBindingAlreadyExists'
    bindings = {b['host']: b['status']
                for b in admin.get(url).json()['bindings']}
    assert bindings == {'src': 'ACTIVE', 'dst': 'INACTIVE'}
    resp = admin.put(url + '/dst/activate')
    assert resp.status_code == 200
    assert resp.json()['binding']['status'] == 'ACTIVE'
    assert admin.put(url + '/dst/activate').status_code == 409
    assert admin.get('/v2.0/ports/%s' % port['id']).json()['port'][
        'binding:host_id'] == 'dst'
    bindings = {b['host']: b['status']
                for b in admin.get(url).json()['bindings']}
    assert bindings == {'src': 'INACTIVE', 'dst': 'ACTIVE'}
    assert admin.delete(url + '/src').status_code == 204
    assert admin.delete(url + '/src').status_code == 404
    assert client(peers, 'neutron').post(url, json={'binding': {
        'host': 'x'}}).status_code == 403
    admin.delete('/v2.0/ports/%s' % port['id'])


# -- cinder -----------------------------------------------------------------

def cinder(peers, version=None, user='demo', project='demo'):
    sess = session(peers, user, project)
    project_id = sess.get_project_id()
    headers = {'OpenStack-API-Version': 'volume %s' % version} \
        if version else {}
    return ks_adapter.Adapter(
        sess, endpoint_override='%s/v3/%s' % (peers.url('cinder'),
                                              project_id),
        raise_exc=False, additional_headers=headers)


def wait_status(api, volume_id, status, timeout=5):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        vol = api.get('/volumes/%s' % volume_id).json()['volume']
        if vol['status'] == status:
            return vol
        time.sleep(0.05)
    raise AssertionError('volume %s not %s: %s' % (volume_id, status, vol))


def test_cinder_volume_and_attachment_life_cycle(peers):
    api = cinder(peers, '3.44')
    resp = api.post('/volumes', json={'volume': {'size': 1, 'name': 'v'}})
    assert resp.status_code == 202
    assert resp.headers['OpenStack-API-Version'] == 'volume 3.44'
    vol = resp.json()['volume']
    assert vol['status'] == 'creating'
    vol = wait_status(api, vol['id'], 'available')
    assert vol['availability_zone'] == 'nova'
    assert vol['multiattach'] is False
    path = os.path.join(peers.conf.peers.data_dir or os.path.join(
        str(peers.base), 'peers-data'), 'volumes', 'volume-%s' % vol['id'])
    assert os.path.getsize(path) == 1024 ** 3
    server = '0b6e3c58-31f4-4b8e-9a8b-c0d8f1c1a9aa'
    old = cinder(peers)
    assert old.post('/attachments', json={'attachment': {
        'volume_uuid': vol['id'], 'instance_uuid': server}}
    ).status_code == 404
    att = api.post('/attachments', json={'attachment': {
        'volume_uuid': vol['id'], 'instance_uuid': server}}).json()[
        'attachment']
    assert att['status'] == 'reserved'
    assert wait_status(api, vol['id'], 'reserved')
    other = api.post('/attachments', json={'attachment': {
        'volume_uuid': vol['id'],
        'instance_uuid': 'ffffffff-31f4-4b8e-9a8b-c0d8f1c1a9aa'}})
    assert other.status_code == 400 and 'badRequest' in other.json()
    resp = api.put('/attachments/%s' % att['id'], json={'attachment': {
        'connector': {'host': 'host1', 'initiator': 'iqn.x'}}})
    assert resp.status_code == 200
    info = resp.json()['attachment']['connection_info']
    assert info['driver_volume_type'] == 'file'
    assert info['data']['device_path'] == path
    assert api.get('/volumes/%s' % vol['id']).json()['volume'][
        'status'] == 'attaching'
    resp = api.post('/attachments/%s/action' % att['id'],
                    json={'os-complete': None})
    assert resp.status_code == 204
    vol = api.get('/volumes/%s' % vol['id']).json()['volume']
    assert vol['status'] == 'in-use'
    assert vol['attachments'][0]['server_id'] == server
    assert vol['attachments'][0]['attachment_id'] == att['id']
    resp = api.delete('/volumes/%s' % vol['id'])
    assert resp.status_code == 400
    assert resp.json()['badRequest']['message'].startswith('Invalid volume')
    assert api.delete('/attachments/%s' % att['id']).status_code == 200
    assert api.get('/volumes/%s' % vol['id']).json()['volume'][
        'status'] == 'available'
    # shelved-offloaded servers: reserve and complete with no connector
    att = api.post('/attachments', json={'attachment': {
        'volume_uuid': vol['id'], 'instance_uuid': server}}).json()[
        'attachment']
    assert api.post('/attachments/%s/action' % att['id'],
                    json={'os-complete': None}).status_code == 204
    assert api.get('/volumes/%s' % vol['id']).json()['volume'][
        'status'] == 'in-use'
    assert api.post('/attachments/%s/action' % att['id'],
                    json={'os-complete': None}).status_code == 400
    api.delete('/attachments/%s' % att['id'])
    assert api.delete('/volumes/%s' % vol['id']).status_code == 202
    resp = api.get('/volumes/%s' % vol['id'])
    assert resp.status_code == 404 and 'itemNotFound' in resp.json()
    assert not os.path.exists(path)


def test_cinder_versions_and_bad_input(peers):
    raw = ks_session.Session()
    resp = raw.get(peers.url('cinder') + '/', raise_exc=False)
    assert resp.status_code == 300
    version = resp.json()['versions'][0]
    assert version['version'] == '3.70' and version['min_version'] == '3.0'
    api = cinder(peers, '3.99')
    assert api.get('/volumes').status_code == 406
    api = cinder(peers, '3.0')
    resp = api.post('/volumes', json={'volume': {'size': 0}})
    assert resp.status_code == 400 and 'badRequest' in resp.json()
    resp = api.post('/volumes', json={'volume': {
        'size': 1, 'availability_zone': 'mars'}})
    assert resp.status_code == 400
    assert api.post('/volumes', data=b'{', headers={
        'Content-Type': 'application/json'}).status_code == 400
    alt = cinder(peers, user='alt', project='alt')
    demo_project = session(peers).get_project_id()
    resp = alt.get('%s/v3/%s/volumes' % (peers.url('cinder'), demo_project))
    assert resp.status_code == 400
    zones = api.get('/os-availability-zone').json()['availabilityZoneInfo']
    assert zones[0]['zoneName'] == 'nova'
    limits = api.get('/limits').json()['limits']['absolute']
    assert limits['maxTotalVolumes'] == 10


def test_bad_input_gets_clean_errors_not_500s(peers, net):
    network, _subnet = net
    neutron = client(peers, 'neutron', 'admin', 'admin')
    glance = client(peers, 'glance')
    volumes = cinder(peers, '3.44')
    patch = {'Content-Type': 'application/openstack-images-v2.1-json-patch'}
    garbage = [None, 1, 'x', [], [1], {'a': 1}, True]
    image = glance.post('/v2/images', json={'name': 'g'}).json()
    seen = set()
    for value in garbage:
        answers = [
            neutron.post('/v2.0/networks', json={'network': {
                'name': value, 'mtu': value}}),
            neutron.post('/v2.0/subnets', json={'subnet': {
                'network_id': network['id'], 'cidr': '10.77.0.0/24',
                'allocation_pools': value, 'gateway_ip': value}}),
            neutron.post('/v2.0/ports', json={'port': {
                'network_id': network['id'], 'fixed_ips': value,
                'binding:profile': value}}),
            glance.post('/v2/images', json={'owner': value,
                                            'min_ram': value}),
            glance.patch('/v2/images/%s' % image['id'], headers=patch,
                         json=[{'op': 'add', 'path': value, 'value': 1}]),
            volumes.post('/volumes', json={'volume': {
                'size': value, 'metadata': value}}),
            volumes.post('/attachments', json={'attachment': {
                'volume_uuid': value, 'connector': value}}),
            volumes.post('/volumes/x/action', json={'os-extend': value}),
        ]
        for resp in answers:
            seen.add(resp.status_code)
            assert resp.status_code < 500, resp.text
            if resp.status_code >= 400:
                assert resp.json()
    assert seen & {400, 403, 404}
