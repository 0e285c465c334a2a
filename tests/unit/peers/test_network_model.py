"""The network model and the normalisation of requested networks."""

from nova_clone.network import model
from nova_clone.network import requests as net_requests


def _vif():
    return {'id': 'p1', 'address': 'fa:16:3e:00:00:01', 'type': 'ovs',
            'network': {'id': 'n1', 'label': 'private', 'subnets': [{
                'cidr': '10.0.0.0/24', 'version': 4,
                'gateway': {'address': '10.0.0.1', 'type': 'gateway',
                            'version': 4},
                'ips': [{'address': '10.0.0.5', 'type': 'fixed',
                         'version': 4}]}]},
            'active': True, 'preserve_on_delete': True}


def test_network_info_json_round_trip():
    info = model.NetworkInfo([_vif()])
    again = model.NetworkInfo.hydrate(info.json())
    assert again == info
    assert isinstance(again[0], model.VIF)
    assert again[0].network.label == 'private'
    assert [ip['address'] for ip in again.fixed_ips()] == ['10.0.0.5']
    assert again[0]['preserve_on_delete'] is True
    assert again[0]['vnic_type'] == 'normal'


def test_hydrate_empty_values():
    assert model.NetworkInfo.hydrate(None) == []
    assert model.NetworkInfo.hydrate('') == []
    assert model.NetworkInfo.hydrate('[]') == []


def test_vif_without_network_has_no_ips():
    assert model.VIF(id='x').fixed_ips() == []


class _Req:
    def __init__(self, network_id=None, address=None, port_id=None):
        self.network_id, self.address, self.port_id = (network_id, address,
                                                       port_id)
        self.tag = None


class _ReqList:
    def __init__(self, objects):
        self.objects = objects


def test_normalize_every_shape():
    reqs = net_requests.normalize([('n1', '10.0.0.9', None),
                                   {'uuid': 'n2'}, {'port': 'p3'}])
    assert [(r.network_id, r.address, r.port_id) for r in reqs] == [
        ('n1', '10.0.0.9', None), ('n2', None, None), (None, None, 'p3')]
    assert reqs.port_ids() == ['p3']
    objs = net_requests.normalize(_ReqList([_Req(network_id='auto')]))
    assert objs.auto_allocate and not objs.no_allocate
    assert net_requests.normalize([_Req(network_id='none')]).no_allocate
    assert list(net_requests.normalize(None)) == []


def test_populate_security_groups_defaults_and_dedups():
    from nova_clone.network import security_group_api
    assert security_group_api.populate_security_groups(None) == ['default']
    assert security_group_api.populate_security_groups(
        [{'name': 'web'}, 'web', {'name': 'db'}]) == ['web', 'db']
