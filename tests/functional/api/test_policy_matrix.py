"""Every route of the compute API x {admin, member of the owning project,
reader of the owning project, member of another project} with Nova 34's
default policies (new defaults, scope enforced): each answer is what
Nova's policy gives, and nothing of one project shows in another.
Without a token, or with a bad one, every route is 401
(test_unauthenticated_is_401, through keystonemiddleware).

The expectations are written here from Nova's defaults, not read from
nova_clone/policies/, so a changed default fails this test.  Every route
and every server action is checked: test_every_route_and_action_is_in_
the_matrix fails when one lands without its row in DEFAULTS/ACTIONS.
"""

import inspect
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
VOLUME_ID = '0f0e0000-0000-4000-8000-00000000a7ac'  # attached to nothing

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
    # Nova 31 lets a project 'manager' see and drive migrations too; none
    # of the personas here is one, so these read as admin-only.
    ('GET', '/servers/{server_id}/migrations'): 'admin',
    ('GET', '/servers/{server_id}/migrations/{migration_id}'): 'admin',
    ('DELETE', '/servers/{server_id}/migrations/{migration_id}'): 'admin',
    ('POST', '/servers/{server_id}/migrations/{migration_id}/action'):
        'admin',
    ('GET', '/servers/{server_id}/os-volume_attachments'): 'reader',
    ('POST', '/servers/{server_id}/os-volume_attachments'): 'member',
    ('GET', '/servers/{server_id}/os-volume_attachments/{volume_id}'):
        'reader',
    # Same volumeId: an update, not a swap (the swap is a service's).
    ('PUT', '/servers/{server_id}/os-volume_attachments/{volume_id}'):
        'member',
    ('DELETE', '/servers/{server_id}/os-volume_attachments/{volume_id}'):
        'member',
    ('GET', '/servers/{server_id}/os-interface'): 'reader',
    ('POST', '/servers/{server_id}/os-interface'): 'member',
    ('GET', '/servers/{server_id}/os-interface/{port_id}'): 'reader',
    ('DELETE', '/servers/{server_id}/os-interface/{port_id}'): 'member',
    ('POST', '/servers/{server_id}/remote-consoles'): 'member',
    ('GET', '/os-console-auth-tokens/{console_token}'): 'admin',
    ('GET', '/servers/{server_id}/os-server-password'): 'reader',
    ('DELETE', '/servers/{server_id}/os-server-password'): 'member',
    ('GET', '/servers/{server_id}/topology'): 'reader',
    ('GET', '/os-simple-tenant-usage'): 'admin',
    ('GET', '/os-simple-tenant-usage/{tenant_id}'): 'reader',
    ('GET', '/os-instance_usage_audit_log'): 'admin',
    ('GET', '/os-instance_usage_audit_log/{before_timestamp}'): 'admin',
    ('GET', '/os-hosts'): 'admin',
    ('GET', '/os-hosts/{host_name}'): 'admin',
    ('PUT', '/os-hosts/{host_name}'): 'admin',
    ('GET', '/os-hosts/{host_name}/startup'): 'admin',
    ('GET', '/os-hosts/{host_name}/shutdown'): 'admin',
    ('GET', '/os-hosts/{host_name}/reboot'): 'admin',
    # The image proxy has no rule of its own: Glance decides.
    ('GET', '/images'): 'any',
    ('GET', '/images/detail'): 'any',
    ('GET', '/images/{image_id}'): 'any',
    ('DELETE', '/images/{image_id}'): 'any',
    ('GET', '/images/{image_id}/metadata'): 'any',
    ('POST', '/images/{image_id}/metadata'): 'any',
    ('PUT', '/images/{image_id}/metadata'): 'any',
    ('GET', '/images/{image_id}/metadata/{key}'): 'any',
    ('PUT', '/images/{image_id}/metadata/{key}'): 'any',
    ('DELETE', '/images/{image_id}/metadata/{key}'): 'any',
    # nova-network's writes are gone; its reads proxy Neutron.
    ('GET', '/os-networks'): 'reader',
    ('POST', '/os-networks'): 'gone',
    ('POST', '/os-networks/add'): 'gone',
    ('GET', '/os-networks/{network_id}'): 'reader',
    ('DELETE', '/os-networks/{network_id}'): 'gone',
    ('POST', '/os-networks/{network_id}/action'): 'gone',
    ('GET', '/os-tenant-networks'): 'reader',
    ('POST', '/os-tenant-networks'): 'gone',
    ('GET', '/os-tenant-networks/{network_id}'): 'reader',
    ('DELETE', '/os-tenant-networks/{network_id}'): 'gone',
    ('GET', '/os-security-groups'): 'reader',
    ('POST', '/os-security-groups'): 'member',
    ('GET', '/os-security-groups/{security_group_id}'): 'reader',
    ('PUT', '/os-security-groups/{security_group_id}'): 'member',
    ('DELETE', '/os-security-groups/{security_group_id}'): 'member',
    ('POST', '/os-security-group-rules'): 'member',
    ('DELETE', '/os-security-group-rules/{rule_id}'): 'member',
    ('GET', '/servers/{server_id}/os-security-groups'): 'reader',
    ('GET', '/os-floating-ips'): 'reader',
    ('POST', '/os-floating-ips'): 'member',
    ('GET', '/os-floating-ips/{floating_ip_id}'): 'reader',
    ('DELETE', '/os-floating-ips/{floating_ip_id}'): 'member',
    ('GET', '/os-floating-ip-pools'): 'any',
    ('GET', '/os-volumes'): 'reader',
    ('POST', '/os-volumes'): 'member',
    ('GET', '/os-volumes/detail'): 'reader',
    ('GET', '/os-volumes/{volume_id}'): 'reader',
    ('DELETE', '/os-volumes/{volume_id}'): 'member',
    ('GET', '/os-snapshots'): 'reader',
    ('POST', '/os-snapshots'): 'member',
    ('GET', '/os-snapshots/detail'): 'reader',
    ('GET', '/os-snapshots/{snapshot_id}'): 'reader',
    ('DELETE', '/os-snapshots/{snapshot_id}'): 'member',
    ('POST', '/os-assisted-volume-snapshots'): 'service',
    ('DELETE', '/os-assisted-volume-snapshots/{snapshot_id}'): 'service',
    ('GET', '/os-aggregates'): 'admin',
    ('POST', '/os-aggregates'): 'admin',
    ('GET', '/os-aggregates/{aggregate_id}'): 'admin',
    ('PUT', '/os-aggregates/{aggregate_id}'): 'admin',
    ('DELETE', '/os-aggregates/{aggregate_id}'): 'admin',
    ('POST', '/os-aggregates/{aggregate_id}/action'): 'admin',
    ('POST', '/os-aggregates/{aggregate_id}/images'): 'admin',
    ('GET', '/os-server-groups'): 'reader',
    ('POST', '/os-server-groups'): 'member',
    ('GET', '/os-server-groups/{group_id}'): 'reader',
    ('DELETE', '/os-server-groups/{group_id}'): 'member',
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
    'os-migrateLive': ('admin', {'host': None, 'block_migration': 'auto'}),
    'evacuate': ('admin', {}),
    'injectNetworkInfo': ('admin', None),
    # Gone with the XenAPI driver, for everyone.
    'resetNetwork': ('gone', None),
    'rebuild': ('member', {'imageRef': af.IMAGE_ID}),
    'createImage': ('member', {'name': 'snap'}),
    'createBackup': ('member', {'name': 'bk', 'backup_type': 'daily',
                                'rotation': 1}),
    'rescue': ('member', None), 'unrescue': ('member', None),
    'changePassword': ('member', {'adminPass': 'n3w-Pass'}),
    'addSecurityGroup': ('member', {'name': 'default'}),
    'removeSecurityGroup': ('member', {'name': 'default'}),
    'restore': ('member', None), 'forceDelete': ('member', None),
    'shelve': ('member', None), 'unshelve': ('member', None),
    'shelveOffload': ('admin', None),
    'addFloatingIp': ('member', {'address': '172.24.4.9'}),
    'removeFloatingIp': ('member', {'address': '172.24.4.9'}),
    'addFixedIp': ('member', {'networkId': 'private'}),
    'removeFixedIp': ('member', {'address': '10.0.0.9'}),
    'os-getVNCConsole': ('member', {'type': 'novnc'}),
    'os-getSPICEConsole': ('member', {'type': 'spice-html5'}),
    'os-getSerialConsole': ('member', {'type': 'serial'}),
    # Gone with the Hyper-V driver, for everyone.
    'os-getRDPConsole': ('gone', {'type': 'rdp-html5'}),
}
# Actions Nova retired at a microversion below VERSION: checked at the
# last one that has them, or the policy would never be reached.
_ACTION_VERSIONS = {
    'addFloatingIp': '2.43', 'removeFloatingIp': '2.43',
    'addFixedIp': '2.43', 'removeFixedIp': '2.43',
    'os-getVNCConsole': '2.5', 'os-getSPICEConsole': '2.5',
    'os-getSerialConsole': '2.5',
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
    ('POST', '/servers/{server_id}/migrations/{migration_id}/action'): {
        'force_complete': None},
    ('POST', '/servers/{server_id}/os-volume_attachments'): {
        'volumeAttachment': {'volumeId': VOLUME_ID}},
    ('PUT', '/servers/{server_id}/os-volume_attachments/{volume_id}'): {
        'volumeAttachment': {'volumeId': VOLUME_ID,
                             'delete_on_termination': True}},
    ('POST', '/servers/{server_id}/os-interface'): {
        'interfaceAttachment': {}},
    ('POST', '/servers/{server_id}/remote-consoles'): {
        'remote_console': {'protocol': 'vnc', 'type': 'novnc'}},
    ('POST', '/os-aggregates'): {'aggregate': {'name': 'agg'}},
    ('PUT', '/os-aggregates/{aggregate_id}'): {'aggregate': {
        'name': 'agg2'}},
    ('POST', '/os-aggregates/{aggregate_id}/action'): {
        'add_host': {'host': 'host1'}},
    ('POST', '/os-aggregates/{aggregate_id}/images'): {
        'cache': [{'id': af.IMAGE_ID}]},
    ('POST', '/os-server-groups'): {'server_group': {
        'name': 'g', 'policy': 'affinity'}},
    ('POST', '/os-assisted-volume-snapshots'): {'snapshot': {
        'volume_id': VOLUME_ID, 'create_info': {
            'snapshot_id': 'snap', 'type': 'qcow2', 'new_file': 'new'}}},
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
        # The target is the owner's project, not the caller's.
        if (template.startswith('/os-quota-sets/{project_id}') or
                template == '/os-simple-tenant-usage/{tenant_id}') and \
                category == 'reader':
            return 403
        # A group is found by id alone, then its project is the target.
        if template == '/os-server-groups/{group_id}':
            return 403
    allowed = {'member': ('any', 'user', 'reader', 'member'),
               'reader': ('any', 'user', 'reader'),
               'other': ('any', 'user', 'reader', 'member')}[persona]
    return 'ok' if category in allowed else 403


def _body(method, template, action, persona, server):
    if action is not None:
        return {action: ACTIONS[action][1]}
    if (method, template) == ('PUT', '/os-aggregates/{aggregate_id}'):
        # A name of each persona's own: only the admin's can be taken.
        return {'aggregate': {'name': 'agg-%s' % persona}}
    if (method, template) == ('POST', '/os-keypairs'):
        return {'keypair': {'name': 'kp-%s' % persona}}
    if (method, template) == ('POST', '/os-server-external-events'):
        return {'events': [{'name': 'network-changed',
                            'server_uuid': server}]}
    return _BODIES.get((method, template))


def _path(template, server, request_id, group):
    values = {'server_id': server, 'flavor_id': 'fz1', 'name': 'fz',
              'project_id': OWNER, 'id': 'default', 'key': 'hw:numa_nodes',
              'tag': 't', 'request_id': request_id, 'network': 'private',
              'hypervisor_id': '1', 'pattern': 'host', 'tenant_id': OWNER,
              'volume_id': VOLUME_ID, 'image_id': af.IMAGE_ID,
              'group_id': group, 'migration_id': '1',
              'before_timestamp': '2020-01-01%2000:00:00'}
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
        # Only what the route names is made (and unmade) for each call.
        needs_server = '{server_id}' in template or \
            template == '/os-server-external-events'
        needs_keypair = template == '/os-keypairs/{name}'
        for persona, client in people.items():
            server = request_id = None
            if needs_server:
                server, request_id = _fresh_server(people)
            if needs_keypair:
                # The owner's keypair, for the routes of its name.
                people['member'].post('/os-keypairs',
                                      {'keypair': {'name': 'fz'}})
            group = None
            if template == '/os-server-groups/{group_id}':
                # A group of the owner's, made again for each persona.
                group = people['member'].post(
                    '/os-server-groups',
                    _BODIES[('POST', '/os-server-groups')],
                    version=VERSION).body['server_group']['id']
            path = _path(template, server, request_id, group)
            if (method, template) == ('DELETE', '/flavors/{flavor_id}'):
                # A flavor of its own, made again for each persona.
                people['admin'].post('/flavors', {'flavor': {
                    'name': 'fzd', 'ram': 64, 'vcpus': 1, 'disk': 1,
                    'id': 'fzd'}})
                path = '/flavors/fzd'
            reply = client.request(
                method, path,
                body=_body(method, template, action, persona, server),
                version=_ACTION_VERSIONS.get(action, VERSION))
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
            if needs_keypair:
                people['member'].delete('/os-keypairs/fz')
            if server:
                people['admin'].delete('/servers/%s' % server)
            if group:
                people['admin'].delete('/os-server-groups/%s' % group)
    assert count >= 4 * (len(DEFAULTS) + len(ACTIONS))
    assert not failures, '%d of %d:\n%s' % (len(failures), count,
                                            '\n'.join(failures))


def _server_action_keys():
    keys = set()
    for family in routes.SERVER_ACTION_FAMILIES:
        for _name, func in inspect.getmembers(family, inspect.isfunction):
            if getattr(func, 'wsgi_action', None):
                keys.add(func.wsgi_action)
    return keys


def test_every_route_and_action_is_in_the_matrix():
    """A route or server action without its row here would go unchecked
    by test_policy_matrix."""
    missing = ['%s %s' % (method, template)
               for template, methods in routes.ROUTES
               for method in sorted(methods)
               if (method, template) not in DEFAULTS
               and template not in removed.REMOVED
               and template != '/servers/{server_id}/action']
    missing += ['action %s' % key
                for key in sorted(_server_action_keys() - set(ACTIONS))]
    assert not missing, 'not in DEFAULTS/ACTIONS:\n' + '\n'.join(missing)
    # Rows for what no longer exists would be checked against nothing.
    assert set(ACTIONS) <= _server_action_keys()
    assert set(DEFAULTS) <= {(method, template)
                             for template, methods in routes.ROUTES
                             for method in methods}


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
    # Server groups: another project's is neither listed nor shown (403,
    # Nova's policy checks the group's project), and only admins list
    # every project's.
    group = people['member'].post(
        '/os-server-groups', _BODIES[('POST', '/os-server-groups')],
        version=VERSION).body['server_group']['id']
    listed = other.get('/os-server-groups', version=VERSION).body
    assert group not in [g['id'] for g in listed['server_groups']]
    assert other.get('/os-server-groups/%s' % group).status == 403
    # all_projects from anyone but an admin is ignored, as in Nova.
    assert group not in [g['id'] for g in other.get(
        '/os-server-groups?all_projects=True').body['server_groups']]
    assert group in [g['id'] for g in people['admin'].get(
        '/os-server-groups?all_projects=True').body['server_groups']]
    # Usage: only of one's own project; every project's is for admins.
    assert other.get('/os-simple-tenant-usage/%s' % OWNER).status == 403
    assert other.get('/os-simple-tenant-usage').status == 403
    people['admin'].delete('/os-server-groups/%s' % group)


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
