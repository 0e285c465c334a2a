"""The OpenAPI description: every route and method, bodies per
microversion, and the ``nova-clone openapi`` command that writes it."""

import json

from nova_clone.api import openapi
from nova_clone.api import routes
from nova_clone.cmd import clone


def _schema(doc, path, method):
    return doc['paths']['/v2.1' + path][method]['requestBody'][
        'content']['application/json']['schema']


def test_every_route_and_method_is_described():
    doc = openapi.build()
    for template, methods in routes.ROUTES:
        described = doc['paths']['/v2.1' + template]
        assert set(described) == {m.lower() for m in methods}, template
        for op in described.values():
            names = {p['name'] for p in op['parameters'] if p['in'] == 'path'}
            assert names == set(openapi._PARAM_RE.findall(template))


def test_bodies_of_several_microversions_are_one_of():
    doc = openapi.build()
    body = _schema(doc, '/servers', 'post')
    ranges = [b['x-openstack-microversion'] for b in body['oneOf']]
    assert {'min': '2.1', 'max': '2.18'} in ranges or len(ranges) > 3
    actions = _schema(doc, '/servers/{server_id}/action', 'post')
    keys = {k for b in actions['oneOf'] for k in b.get('required', [])}
    assert {'pause', 'reboot', 'os-getConsoleOutput'} <= keys


def test_one_microversion_holds_only_what_it_accepts():
    old = openapi.build('2.1')
    new = openapi.build('2.104')
    # Tags arrived in 2.26; a body of one version is a single schema.
    assert '/v2.1/servers/{server_id}/tags' not in old['paths']
    assert '/v2.1/servers/{server_id}/tags' in new['paths']
    assert 'oneOf' not in _schema(new, '/servers', 'post')
    queries = {p['name'] for p in new['paths']['/v2.1/servers']['get'][
        'parameters']}
    assert {'limit', 'marker', 'name'} <= queries


def test_command_writes_the_document(tmp_path):
    out = tmp_path / 'openapi.json'
    assert clone.main(['openapi', '--microversion', '2.47',
                       '--output', str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc['openapi'].startswith('3.')
    assert doc['info']['version'] == '2.47'
