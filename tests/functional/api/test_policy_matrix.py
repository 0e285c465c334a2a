"""Every route of the compute API x {admin, member of the owning project,
reader of the owning project, member of another project} with Nova 34's
default policies (new defaults, scope enforced): each answer is what
Nova's policy gives, and nothing of one project shows in another.
Without a token, or with a bad one, every route is 401
(test_unauthenticated_is_401, through keystonemiddleware).

The expectations are written here from Nova's defaults, not read from
nova_clone/policies/, so a changed default fails this test.  Routes and
actions landed after this table (volumes, interfaces, server groups,
aggregates, usage, hosts, the proxies, shelve/rebuild/... actions) are
not in it yet: a route missing from DEFAULTS/ACTIONS is not checked.
"""

import re

import pytest
import requests

from nova_clone.api.controllers import removed
from nova_clone.api import openapi
from nova_clone.api import routes
from tests.functional.api import apifixture as af
from tests.functional.api.test_keystone_auth import keystone_api  # noqa

OWNER = '6f70656e737461636b20342065766572'
OTHER = '0be70000000000000000000000000b0e'
VERSION = '2.90'

# Nova 34's default of each route: 'admin' (context_is_admin), 'member'
# and 'reader' (of the owning project, or admin), 'user' (the owning
# user, or admin), 'service' (a service user, or admin), 'any'.
DEFAULTS = {
    ('GET', '/extensions'): 'reader',
    ('GET', '/extensions/{id}'): 'reader',
    ('GET', '/flavors'): 'any',
    ('POST', '/flavors'): 'admin',
    ('GET', '/flavors/detail'): 'any',
    ('GET', '/flavors/{flavor_id}'): 'any',
    ('PUT', '/flavors/{flavor_id}'): 'admin',
    ('DELETE', '/flavors/{flavor_id}'): 'admin',
    ('POST', '/flavors/{flavor_id}/action'): 'admin',
    ('GET', '/flavors/{flavor_id}/os-flavor-access'): 'admin',
    ('GET', '/flavors/{flavor_id}/os-extra_specs'): 'reader',
    ('POST', '/flavors/{flavor_id}/os-extra_specs'): 'admin',
    ('GET', '/flavors/{flavor_id}/os-extra_specs/{key}'): 'reader',
    ('PUT', '/flavors/{flavor_id}/os-extra_specs/{key}'): 'admin',
    ('DELETE', '/flavors/{flavor_id}/os-extra_specs/{key}'): 'admin',
    ('GET', '/os-keypairs'): 'user',
    ('POST', '/os-keypairs'): 'user',
    ('GET', '/os-keypairs/{name}'): 'user',
    ('DELETE', '/os-keypairs/{name}'): 'user',
    ('GET', '/limits'): 'reader',
    ('GET', '/os-quota-sets/{project_id}'): 'reader',
    ('PUT', '/os-quota-sets/{project_id}'): 'admin',
    ('DELETE', '/os-quota-sets/{project_id}'): 'admin',
    ('GET', '/os-quota-sets/{project_id}/defaults'): 'any',
    ('GET', '/os-quota-sets/{project_id}/detail'): 'reader',
    ('GET', '/os-quota-class-sets/{id}'): 'admin',
    ('PUT', '/os-quota-class-sets/{id}'): 'admin',
    ('GET', '/servers'): 'reader',
    ('POST', '/servers'): 'member',
    ('GET', '/servers/detail'): 'reader',
    ('GET', '/servers/{server_id}'): 'reader',
    ('PUT', '/servers/{server_id}'): 'member',
    ('DELETE', '/servers/{server_id}'): 'member',
    ('GET', '/servers/{server_id}/metadata'): 'reader',
    ('POST', '/servers/{server_id}/metadata'): 'member',
    ('PUT', '/servers/{server_id}/metadata'): 'member',
    ('GET', '/servers/{server_id}/metadata/{key}'): 'reader',
    ('PUT', '/servers/{server_id}/metadata/{key}'): 'member',
    ('DELETE', '/servers/{server_id}/metadata/{key}'): 'member',
    ('GET', '/servers/{server_id}/ips'): 'reader',
    ('GET', '/servers/{server_id}/ips/{network}'): 'reader',
    ('GET', '/servers/{server_id}/tags'): 'reader',
    ('PUT', '/servers/{server_id}/tags'): 'member',
    ('DELETE', '/servers/{server_id}/tags'): 'member',
    ('GET', '/servers/{server_id}/tags/{tag}'): 'reader',
    ('PUT', '/servers/{server_id}/tags/{tag}'): 'member',
    ('DELETE', '/servers/{server_id}/tags/{tag}'): 'member',
    ('GET', '/servers/{server_id}/os-instance-actions'): 'reader',
    ('GET', '/servers/{server_id}/os-instance-actions/{request_id}'):
        'reader',
    ('GET', '/servers/{server_id}/diagnostics'): 'admin',
    ('POST', '/os-server-external-events'): 'service',
    ('GET', '/os-services'): 'admin',
    ('PUT', '/os-services/{id}'): 'admin',
    ('DELETE', '/os-services/{id}'): 'admin',
    ('GET', '/os-hypervisors'): 'admin',
    ('GET', '/os-hypervisors/detail'): 'admin',
    ('GET', '/os-hypervisors/statistics'): 'admin',
    ('GET', '/os-hypervisors/{hypervisor_id}'): 'admin',
    ('GET', '/os-hypervisors/{hypervisor_id}/uptime'): 'admin',
    ('GET', '/os-hypervisors/{pattern}/search'): 'admin',
    ('GET', '/os-hypervisors/{pattern}/servers'): 'admin',
    ('GET', '/os-migrations'): 'admin',
    ('GET', '/os-availability-zone'): 'reader',
    ('GET', '/os-availability-zone/detail'): 'admin',
}
# POST /servers/{server_id}/action, by the body's key.
ACTIONS = {
    'confirmResize': ('member', None), 'revertResize': ('member', None),
    'resize': ('member', {'flavorRef': 'fz2'}),
    'migrate': ('admin', None),
    'os-start': ('member', None), 'os-stop': ('member', None),
    'reboot': ('member', {'type': 'SOFT'}),
    'trigger_crash_dump': ('member', None),
    'pause': ('member', None), 'unpause': ('member', None),
    'suspend': ('member', None), 'resume': ('member', None),
    'lock': ('member', None), 'unlock': ('member', None),
    'os-resetState': ('admin', {'state': 'error'}),
    'os-getConsoleOutput': ('member', {'length': 5}),
}
_BODIES = {
    ('POST', '/flavors'): {'flavor': {'name': 'new', 'ram': 64, 'vcpus': 1,
                                      'disk': 0}},
    ('PUT', '/flavors/{flavor_id}'): {'flavor': {'description': 'd'}},
    ('POST', '/flavors/{flavor_id}/action'): {
        'addTenantAccess': {'tenant': OTHER}},
    ('POST', '/flavors/{flavor_id}/os-extra_specs'): {
        'extra_specs': {'hw:numa_nodes': '1'}},
    ('PUT', '/flavors/{flavor_id}/os-extra_specs/{key}'): {
        'hw:numa_nodes': '1'},
    ('POST', '/os-keypairs'): None,  # made per persona, see _body
    ('PUT', '/os-quota-sets/{project_id}'): {'quota_set': {'cores': 30}},
    ('PUT', '/os-quota-class-sets/{id}'): {'quota_class_set': {
        'cores': 30}},
    ('POST', '/servers'): {'server': {
        'name': 'm', 'imageRef': af.IMAGE_ID, 'flavorRef': 'fz1',
        'networks': 'none'}},
    ('PUT', '/servers/{server_id}'): {'server': {'name': 'renamed'}},
    ('POST', '/servers/{server_id}/metadata'): {'metadata': {'a': 'b'}},
    ('PUT', '/servers/{server_id}/metadata'): {'metadata': {'k': 'v'}},
    ('PUT', '/servers/{server_id}/metadata/{key}'): {'meta': {'k': 'w'}},
    ('PUT', '/servers/{server_id}/tags'): {'tags': ['t']},
    ('PUT', '/servers/{server_id}/tags/{tag}'): None,
    ('POST', '/os-server-external-events'): None,  # needs the server id
    ('PUT', '/os-services/{id}'): {'status': 'enabled'},
}


def _personas(bed):
    return {
        'admin': bed.client(user='admin', project=af.ADMIN_PROJECT),
        'member': bed.client(user='demo', project=OWNER),
        'reader': bed.client(user='rd', project=OWNER, roles=['reader']),
        'other': bed.client(user='other', project=OTHER),
    }


@pytest.fixture(scope='module')
def cloud(bed):
    af.install_compute_api(bed)
    people = _personas(bed)
    admin = people['admin']
    for fid in ('fz1', 'fz2'):
        reply = admin.post('/flavors', {'flavor': {
            'name': fid, 'ram': 64, 'vcpus': 1, 'disk': 1, 'id': fid}})
        assert reply.status == 200, reply
    admin.post('/flavors/fz1/os-extra_specs',
               {'extra_specs': {'hw:numa_nodes': '1'}})
    yield people
    from nova_clone.api.controllers import servers
    servers.set_compute_api(None)


def _fresh_server(people):
    """A server of the owner's project, with metadata and a tag."""
    member = people['member']
    reply = member.post('/servers', _BODIES[('POST', '/servers')],
                        version=VERSION)
    assert reply.status == 202, reply
    server = reply.body['server']['id']
    member.put('/servers/%s/metadata' % server, {'metadata': {'k': 'v'}})
    member.put('/servers/%s/tags/t' % server, version=VERSION)
    # Its create action is recorded in the cell once scheduled, which
    # never happens in this bed: the action's request id names nothing.
    return server, 'req-00000000-0000-0000-0000-000000000000'



def _cases():
    for template, methods in routes.ROUTES:
        for method, func in sorted(methods.items()):
            if (method, template) in DEFAULTS or \
                    template in removed.REMOVED:
                yield method, template, None
            elif template == '/servers/{server_id}/action':
                for key in ACTIONS:
                    yield method, template, key


def _expected(persona, category, template):
    """'ok', 403, 404 or 410 (an API Nova removed)."""
    if category == 'gone':
        return 410
    if persona == 'admin':
        return 'ok'
    own_server = template.startswith('/servers/{server_id}')
    if template == '/os-keypairs/{name}' and persona in ('reader', 'other'):
        return 404  # keypairs are per user: theirs has no such name
    if persona == 'other':
        if own_server:
            return 404
        if template.startswith('/os-quota-sets/{project_id}') and \
                category == 'reader':
            return 403
    allowed = {'member': ('any', 'user', 'reader', 'member'),
               'reader': ('any', 'user', 'reader'),
               'other': ('any', 'user', 'reader', 'member')}[persona]
    return 'ok' if category in allowed else 403


def _body(method, template, action, persona, server):
    if action is not None:
        return {action: ACTIONS[action][1]}
    if (method, template) == ('POST', '/os-keypairs'):
        return {'keypair': {'name': 'kp-%s' % persona}}
    if (method, template) == ('POST', '/os-server-external-events'):
        return {'events': [{'name': 'network-changed',
                            'server_uuid': server}]}
    return _BODIES.get((method, template))


def _path(template, server, request_id):
    values = {'server_id': server, 'flavor_id': 'fz1', 'name': 'fz',
              'project_id': OWNER, 'id': 'default', 'key': 'hw:numa_nodes',
              'tag': 't', 'request_id': request_id, 'network': 'private',
              'hypervisor_id': '1', 'pattern': 'host'}
    if template.startswith('/servers/{server_id}/metadata/'):
        values['key'] = 'k'
    if template.startswith('/os-services/'):
        values['id'] = '00000000-0000-0000-0000-000000000000'
    if template == '/extensions/{id}':
        values['id'] = 'os-keypairs'
    return re.sub(r'{(\w+)}', lambda m: values.get(m.group(1), '1'),
                  template)


def test_policy_matrix(cloud):
    people = cloud
    in_force = openapi.build(VERSION)['paths']
    failures = []
    count = 0
    for method, template, action in _cases():
        category = ACTIONS[action][0] if action else \
            DEFAULTS.get((method, template), 'gone')
        for persona, client in people.items():
            server, request_id = _fresh_server(people)
            # The owner's keypair, for the keypair routes of its name.
            people['member'].post('/os-keypairs',
                                  {'keypair': {'name': 'fz'}})
            path = _path(template, server, request_id)
            if (method, template) == ('DELETE', '/flavors/{flavor_id}'):
                # A flavor of its own, made again for each persona.
                people['admin'].post('/flavors', {'flavor': {
                    'name': 'fzd', 'ram': 64, 'vcpus': 1, 'disk': 1,
                    'id': 'fzd'}})
                path = '/flavors/fzd'
            reply = client.request(
                method, path,
                body=_body(method, template, action, persona, server),
                version=VERSION)
            count += 1
            want = _expected(persona, category, template)
            got = reply.status
            if (method.lower() not in in_force.get('/v2.1' + template, {})
                    and category != 'gone'):
                want = 404  # not in this microversion, for anyone
            if want == 'ok':
                # Let through by the policy; what follows (a state, a
                # missing sub-resource) may still refuse it.
                bad = got in (401, 403)
            else:
                bad = got != want
            if bad:
                failures.append('%s %s %s as %s: want %s, got %s %s' % (
                    method, template, action or '', persona, want, got,
                    reply.text[:150]))
            people['member'].delete('/os-keypairs/fz')
            people['admin'].delete('/servers/%s' % server)
    assert count >= 4 * (len(DEFAULTS) + len(ACTIONS))
    assert not failures, '%d of %d:\n%s' % (len(failures), count,
                                            '\n'.join(failures))


def test_nothing_of_one_project_shows_in_another(cloud):
    people = cloud
    server, _request_id = _fresh_server(people)
    people['member'].post('/os-keypairs', {'keypair': {'name': 'mine'}})
    other = people['other']
    for path in ('/servers', '/servers/detail'):
        listed = other.get(path, version=VERSION).body['servers']
        assert server not in [s['id'] for s in listed]
        # all_tenants is an admin's filter: refused to anyone else.
        assert other.get(path + '?all_tenants=1',
                         version=VERSION).status == 403
    assert other.get('/servers/%s/os-instance-actions' % server).status \
        == 404
    # Keypairs are per user, even within a project.
    for name in ('other', 'reader'):
        listed = people[name].get('/os-keypairs').body['keypairs']
        assert 'mine' not in [k['keypair']['name'] for k in listed]
    assert other.get('/os-keypairs/mine').status == 404
    assert other.get('/os-quota-sets/%s' % OWNER).status == 403
    assert other.get('/os-quota-sets/%s/detail' % OWNER).status == 403
    assert other.get('/os-migrations').status == 403
    assert other.get('/limits?tenant_id=%s' % OWNER).status == 403


@pytest.mark.parametrize('token', [None, 'not-a-token'])
def test_unauthenticated_is_401(keystone_api, token):  # noqa: F811
    headers = {} if token is None else {'X-Auth-Token': token}
    seen = 0
    for template, methods in routes.ROUTES:
        path = re.sub(r'{\w+}', '1', template)
        for method in methods:
            reply = requests.request(
                method, keystone_api['api'] + '/v2.1' + path,
                headers=headers, json={} if method in ('POST', 'PUT')
                else None, timeout=30)
            assert reply.status_code == 401, (method, path, reply.text)
            seen += 1
    assert seen > 150
