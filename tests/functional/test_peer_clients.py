"""Nova's Glance, Neutron and Cinder clients against the stand-ins.

The clients read the global CONF's [glance]/[neutron]/[cinder] groups, as
in nova-compute; overrides are cleared after the module.
"""

import os

import pytest
from keystoneauth1 import loading as ks_loading
from keystoneauth1 import session as ks_session
from keystoneauth1.identity import v3
from oslo_config import cfg

from nova_clone import context as nova_context
from nova_clone import exception
from nova_clone.conf import CONF
from nova_clone.peers import conf as peers_conf
from nova_clone.image import glance
from nova_clone.network import model
from nova_clone.network import neutron
from nova_clone import client_auth
from nova_clone.peers import local
from nova_clone.volume import cinder

PASSWORD = 'secret'


@pytest.fixture(scope='module')
def peers(tmp_path_factory):
    base = tmp_path_factory.mktemp('peerclients')
    conf = cfg.ConfigOpts()
    peers_conf.register_opts(conf)
    conf([], project='nova-clone-test', default_config_files=[],
         default_config_dirs=[])
    conf.set_override('connection', 'sqlite:///%s/peers.sqlite' % base,
                      'peers')
    conf.set_override('admin_password', PASSWORD, 'peers')
    conf.set_override('vif_event_delay', 0.0, 'peers')
    running = local.LocalPeers(conf).start()
    overridden = []
    for group in ('glance', 'neutron', 'cinder'):
        # The password plugin's options, as keystoneauth1 registers them.
        CONF.register_opts(
            ks_loading.get_auth_plugin_conf_options('password'), group=group)
        # Explicit endpoints: a cloud started earlier in this session may
        # have pointed these groups elsewhere.
        endpoint = running.url(group) + ('/v3/%(project_id)s'
                                         if group == 'cinder' else '')
        values = {'auth_type': 'password', 'auth_url': running.auth_url,
                  'username': 'nova', 'password': PASSWORD,
                  'project_name': 'service', 'user_domain_name': 'Default',
                  'project_domain_name': 'Default',
                  'endpoint_override': endpoint}
        for key, value in values.items():
            # Remember what the session's cloud (if any) set, to put back.
            previous = CONF._get_opt_info(key, group).get('override')
            overridden.append((key, group, previous))
            CONF.set_override(key, value, group=group)
    client_auth.reset()
    yield running
    for key, group, previous in overridden:
        if previous is None:
            CONF.clear_override(key, group=group)
        else:
            CONF.set_override(key, previous, group=group)
    client_auth.reset()
    running.stop()


def user_context(peers, user='demo', project='demo'):
    auth = v3.Password(auth_url=peers.auth_url, username=user,
                       password=PASSWORD, project_name=project,
                       user_domain_name='Default',
                       project_domain_name='Default')
    sess = ks_session.Session(auth=auth)
    access = auth.get_access(sess)
    return nova_context.RequestContext(
        user_id=access.user_id, project_id=access.project_id,
        auth_token=access.auth_token, roles=access.role_names,
        service_catalog=access.service_catalog.catalog)


class FakeCache:
    def __init__(self):
        self.network_info = model.NetworkInfo()
        self.saves = 0

    def save(self):
        self.saves += 1


class FakeInstance:
    def __init__(self, uuid, project_id):
        self.uuid = uuid
        self.project_id = project_id
        self.availability_zone = 'nova'
        self.info_cache = FakeCache()


def test_glance_client_get_and_download(peers, tmp_path):
    ctx = user_context(peers)
    api = glance.API()
    data = b'disk-bytes' * 1000
    image = api.create(ctx, {'name': 'img', 'disk_format': 'raw',
                             'container_format': 'bare', 'min_ram': 64,
                             'properties': {'hw_disk_bus': 'virtio'}},
                       data=data)
    got = api.get(ctx, image['id'])
    assert got['status'] == 'active'
    assert got['size'] == len(data)
    assert got['min_ram'] == 64 and got['min_disk'] == 0
    assert got['properties']['hw_disk_bus'] == 'virtio'
    assert 'self' not in got['properties']
    assert got['created_at'].year > 2000
    dest = tmp_path / 'img'
    api.download(ctx, image['id'], dest_path=str(dest))
    assert dest.read_bytes() == data
    assert api.download(ctx, image['id']) == data
    with pytest.raises(exception.ImageNotFound):
        api.get(ctx, '00000000-0000-0000-0000-000000000000')
    empty = api.create(ctx, {'name': 'empty'})
    with pytest.raises(exception.ImageUnacceptable):
        api.download(ctx, empty['id'], dest_path=str(tmp_path / 'e'))
    assert not os.path.exists(tmp_path / 'e')


@pytest.fixture(scope='module')
def networks(peers):
    ctx = user_context(peers)
    client = client_auth.get_adapter('neutron', ctx)
    net = client.post('/v2.0/networks', json={'network': {
        'name': 'private'}}).json()['network']
    sub = client.post('/v2.0/subnets', json={'subnet': {
        'network_id': net['id'], 'cidr': '10.9.0.0/24',
        'ip_version': 4}}).json()['subnet']
    bare = client.post('/v2.0/networks', json={'network': {
        'name': 'bare'}}).json()['network']
    return net, sub, bare


def test_neutron_client_validate_networks(peers, networks):
    ctx = user_context(peers)
    api = neutron.API()
    net, _sub, bare = networks
    assert api.validate_networks(ctx, [(net['id'], None, None)], 3) == 3
    with pytest.raises(exception.NetworkAmbiguous):
        api.validate_networks(ctx, None, 1)
    with pytest.raises(exception.NetworkNotFound):
        api.validate_networks(
            ctx, [('11111111-2222-3333-4444-555555555555', None, None)], 1)
    with pytest.raises(exception.NetworkRequiresSubnet):
        api.validate_networks(ctx, [(bare['id'], None, None)], 1)
    with pytest.raises(exception.PortNotFound):
        api.validate_networks(
            ctx, [(None, None, '11111111-2222-3333-4444-555555555555')], 1)
    assert api.validate_networks(ctx, [('none', None, None)], 2) == 2


def test_neutron_client_allocate_and_deallocate(peers, networks):
    ctx = user_context(peers)
    api = neutron.API()
    net, sub, _bare = networks
    client = client_auth.get_adapter('neutron', ctx)
    own_port = client.post('/v2.0/ports', json={'port': {
        'network_id': net['id']}}).json()['port']
    instance = FakeInstance('9d7a0b51-4d7e-4c3b-a0bb-b7d2d5a4c301',
                            ctx.project_id)
    info = api.allocate_for_instance(
        ctx, instance, [(net['id'], '10.9.0.50', None),
                        (None, None, own_port['id'])],
        security_groups=['default'], bind_host_id='compute1')
    assert isinstance(info, model.NetworkInfo)
    assert len(info) == 2
    by_id = {vif['id']: vif for vif in info}
    assert by_id[own_port['id']]['preserve_on_delete'] is True
    made = [v for v in info if v['id'] != own_port['id']][0]
    assert made['preserve_on_delete'] is False
    assert made['network']['subnets'][0]['ips'][0]['address'] == '10.9.0.50'
    assert made['network']['subnets'][0]['cidr'] == sub['cidr']
    assert made['network']['subnets'][0]['gateway']['address'] == \
        '10.9.0.1'
    assert made['network']['label'] == 'private'
    assert made['type'] == 'ovs' and made['devname'].startswith('tap')
    assert instance.info_cache.saves >= 1
    round_trip = model.NetworkInfo.hydrate(info.json())
    assert round_trip == info
    assert round_trip.fixed_ips()[0]['address'] in ('10.9.0.50',
                                                    own_port['fixed_ips'][0][
                                                        'ip_address'])
    with pytest.raises(exception.PortInUse):
        api.validate_networks(ctx, [(None, None, own_port['id'])], 1)
    with pytest.raises(exception.FixedIpAlreadyInUse):
        api.validate_networks(ctx, [(net['id'], '10.9.0.50', None)], 1)
    groups = api.get_instances_security_groups_bindings(
        ctx, [{'id': instance.uuid}])
    assert groups == {instance.uuid: [{'name': 'default'}]}
    fresh = api.get_instance_nw_info(ctx, instance)
    assert {v['id'] for v in fresh} == set(by_id)

    api.deallocate_for_instance(ctx, instance)
    remaining = client.get('/v2.0/ports?network_id=%s' % net['id']).json()[
        'ports']
    assert [p['id'] for p in remaining] == [own_port['id']]
    assert remaining[0]['device_id'] == ''
    assert list(instance.info_cache.network_info) == []


def test_neutron_client_allocation_rolls_back(peers, networks):
    ctx = user_context(peers)
    api = neutron.API()
    net, _sub, _bare = networks
    client = client_auth.get_adapter('neutron', ctx)
    before = len(client.get('/v2.0/ports').json()['ports'])
    instance = FakeInstance('1e0b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
                            ctx.project_id)
    with pytest.raises(exception.SecurityGroupNotFound):
        api.allocate_for_instance(ctx, instance, [(net['id'], None, None)],
                                  security_groups=['nope'])
    taken = client.post('/v2.0/ports', json={'port': {
        'network_id': net['id'], 'fixed_ips': [{'ip_address': '10.9.0.77'}]
    }}).json()['port']
    with pytest.raises(exception.FixedIpAlreadyInUse):
        api.allocate_for_instance(ctx, instance, [
            (net['id'], None, None), (net['id'], '10.9.0.77', None)])
    after = client.get('/v2.0/ports').json()['ports']
    assert len(after) == before + 1
    client.delete('/v2.0/ports/%s' % taken['id'])


def test_neutron_client_port_bindings(peers, networks):
    ctx = user_context(peers)
    api = neutron.API()
    net, _sub, _bare = networks
    instance = FakeInstance('5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d',
                            ctx.project_id)
    info = api.allocate_for_instance(ctx, instance,
                                     [(net['id'], None, None)],
                                     bind_host_id='src')
    port_id = info[0]['id']
    assert api.has_port_binding_extension(ctx)
    bindings = api.bind_ports_to_host(ctx, instance, 'dst')
    assert bindings[port_id]['status'] == 'INACTIVE'
    with pytest.raises(exception.PortBindingFailed):
        api.bind_ports_to_host(ctx, instance, 'dst')
    api.activate_port_binding(ctx, port_id, 'dst')
    api.activate_port_binding(ctx, port_id, 'dst')  # already active: fine
    api.delete_port_binding(ctx, port_id, 'src')
    api.delete_port_binding(ctx, port_id, 'src')  # gone already: fine
    with pytest.raises(exception.PortBindingActivationFailed):
        api.activate_port_binding(ctx, port_id, 'elsewhere')
    fresh = api.get_instance_nw_info(ctx, instance)
    admin = client_auth.get_adapter('neutron', ctx, admin=True)
    port = admin.get('/v2.0/ports/%s' % port_id).json()['port']
    assert port['binding:host_id'] == 'dst'
    assert fresh[0]['type'] == 'ovs'
    api.deallocate_for_instance(ctx, instance)


def test_cinder_client_attachment_life_cycle(peers):
    ctx = user_context(peers)
    api = cinder.API()
    vol = api.create(ctx, 1, 'data', 'a volume')
    assert vol['status'] == 'creating'
    import time
    for _ in range(100):
        vol = api.get(ctx, vol['id'])
        if vol['status'] == 'available':
            break
        time.sleep(0.05)
    assert vol['status'] == 'available'
    assert vol['attach_status'] == 'detached'
    server = 'ab12cd34-ef56-4a78-9b01-23cd45ef6789'
    att = api.attachment_create(ctx, vol['id'], server)
    assert att['status'] == 'reserved'
    att = api.attachment_update(ctx, att['id'], {'host': 'compute1'},
                                '/dev/vdb')
    info = att['connection_info']
    assert info['driver_volume_type'] == 'file'
    assert os.path.exists(info['data']['device_path'])
    api.attachment_complete(ctx, att['id'])
    vol = api.get(ctx, vol['id'])
    assert vol['status'] == 'in-use'
    assert vol['attachments'][server]['attachment_id'] == att['id']
    assert vol['attachments'][server]['mountpoint'] == '/dev/vdb'
    with pytest.raises(exception.InvalidVolume):
        api.delete(ctx, vol['id'])
    with pytest.raises(exception.InvalidVolume):
        api.attachment_create(ctx, vol['id'],
                              'ffffffff-ef56-4a78-9b01-23cd45ef6789')
    api.attachment_delete(ctx, att['id'])
    with pytest.raises(exception.VolumeAttachmentNotFound):
        api.attachment_delete(ctx, att['id'])
    assert api.get(ctx, vol['id'])['status'] == 'available'
    api.delete(ctx, vol['id'])
    with pytest.raises(exception.VolumeNotFound):
        api.get(ctx, vol['id'])
    with pytest.raises(exception.VolumeNotFound):
        api.attachment_create(ctx, vol['id'], server)


def test_clients_use_service_user_without_a_user_token(peers):
    ctx = nova_context.get_admin_context()
    api = cinder.API()
    with pytest.raises(exception.VolumeNotFound):
        api.get(ctx, '00000000-0000-0000-0000-000000000000')
    with pytest.raises(exception.ImageNotFound):
        glance.API().get(ctx, '00000000-0000-0000-0000-000000000000')


def test_user_calls_find_endpoints_in_the_request_catalog(peers):
    ctx = user_context(peers)
    plugin = client_auth.ContextAuthPlugin(ctx.auth_token,
                                           ctx.service_catalog)
    assert plugin.get_token(None) == ctx.auth_token
    assert plugin.get_endpoint(None, service_type='image',
                               interface='public') == peers.url('glance')
    assert plugin.get_endpoint(
        None, service_type='volumev3', interface=['internal', 'public']
    ) == '%s/v3/%s' % (peers.url('cinder'), ctx.project_id)
    assert plugin.get_endpoint(None, service_type='nothing') is None
    # keystonemiddleware's v2-shaped X-Service-Catalog works too
    v2 = [{'type': 'network', 'endpoints': [
        {'publicURL': 'http://n:9696', 'region': 'RegionOne'}]}]
    assert client_auth.ContextAuthPlugin('t', v2).get_endpoint(
        None, service_type='network', interface='public') == 'http://n:9696'
