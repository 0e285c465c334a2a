"""The real Keystone of a stack: configure, initialise, serve, seed.

keystone-manage does what only it can (schema, key repositories, the
bootstrap admin); everything else (projects, users, roles, catalog) goes
through Keystone's REST API, as an operator's tooling would.
"""

import os
import subprocess
import sys

from nova_clone.stack import ini as stack_ini

# (service type, service name, path appended to the service's base URL)
CATALOG = (
    ('compute', 'nova', 'nova-api', '/v2.1'),
    ('placement', 'placement', 'placement', ''),
    ('image', 'glance', 'glance', ''),
    ('network', 'neutron', 'neutron', ''),
    # DevStack's pair: clients (Tempest, the SDK) look for block-storage,
    # Nova's [cinder] catalog_info for volumev3.
    ('block-storage', 'cinder', 'cinder', '/v3/%(project_id)s'),
    ('volumev3', 'cinderv3', 'cinder', '/v3/%(project_id)s'),
)
SERVICE_USERS = ('nova', 'placement', 'glance', 'neutron', 'cinder')
INTERFACES = ('public', 'internal', 'admin')
REGION = 'RegionOne'


class KeystoneError(Exception):
    pass


def conf_dir(layout):
    return os.path.join(layout.etc_dir, 'keystone')


def write_conf(layout):
    kdir = conf_dir(layout)
    return stack_ini.write(os.path.join(kdir, 'keystone.conf'), {
        'DEFAULT': {'debug': layout.debug},
        'database': {'connection': layout.db_url('keystone'),
                     'max_pool_size': 20},
        'token': {'provider': 'fernet', 'expiration': 86400},
        'fernet_tokens': {'key_repository': os.path.join(kdir, 'fernet-keys')},
        'fernet_receipts': {
            'key_repository': os.path.join(kdir, 'fernet-keys')},
        'credential': {
            'key_repository': os.path.join(kdir, 'credential-keys')},
        'identity': {'password_hash_rounds': 4},
        # Token validations, role assignments and the catalog from an
        # in-process cache; one worker (see stack_services) keeps it
        # coherent: a revocation or role change seen by every request.
        'cache': {'enabled': True, 'backend': 'oslo_cache.dict'},
    })


def _manage(layout, *args):
    exe = os.path.join(os.path.dirname(sys.executable), 'keystone-manage')
    conf = os.path.join(conf_dir(layout), 'keystone.conf')
    log = layout.log_file('keystone-manage')
    os.makedirs(layout.log_dir, exist_ok=True)
    with open(log, 'ab') as out:
        proc = subprocess.run([exe, '--config-file', conf] + list(args),
                              stdout=out, stderr=subprocess.STDOUT,
                              stdin=subprocess.DEVNULL, timeout=300)
    if proc.returncode != 0:
        raise KeystoneError('keystone-manage %s failed (exit %d); see %s'
                            % (args[0], proc.returncode, log))


def initialise(layout):
    """Schema, key repositories and bootstrap admin; all idempotent."""
    from concurrent import futures
    kdir = conf_dir(layout)
    # Key repositories are plain files: make them while db_sync runs.
    jobs = [('db_sync',)]
    for repo, cmd in (('fernet-keys', 'fernet_setup'),
                      ('credential-keys', 'credential_setup')):
        path = os.path.join(kdir, repo)
        if not (os.path.isdir(path) and os.listdir(path)):
            jobs.append((cmd, '--keystone-user', 'root',
                         '--keystone-group', 'root'))
    with futures.ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        for done in [pool.submit(_manage, layout, *job) for job in jobs]:
            done.result()
    url = layout.url('keystone')
    _manage(layout, 'bootstrap',
            '--bootstrap-password', layout.admin_password,
            '--bootstrap-region-id', REGION,
            '--bootstrap-admin-url', url,
            '--bootstrap-internal-url', url,
            '--bootstrap-public-url', url)


def wsgi_env(layout):
    return {'OS_KEYSTONE_CONFIG_DIR': conf_dir(layout)}


# -- seeding through the REST API ------------------------------------------

def _wanted(layout):
    """What the seed makes, as a text the marker file can compare."""
    lines = ['users demo reader ' + ' '.join(SERVICE_USERS)]
    for stype, name, owner, suffix in CATALOG:
        lines.append('%s %s %s' % (stype, name, layout.url(owner) + suffix))
    return '\n'.join(lines) + '\n'


def _marker(layout):
    return os.path.join(layout.run_dir, 'keystone.seeded')


def seeded(layout):
    """True when a previous run seeded this very catalog and users."""
    try:
        with open(_marker(layout)) as f:
            return f.read() == _wanted(layout)
    except OSError:
        return False


class _Seeder(object):
    """Idempotent writes, after one listing of each collection."""

    def __init__(self, layout):
        from keystoneauth1 import session
        from keystoneauth1.identity import v3
        auth = v3.Password(auth_url=layout.auth_url, username='admin',
                           password=layout.admin_password,
                           project_name='admin',
                           user_domain_id='default',
                           project_domain_id='default')
        self.sess = session.Session(auth=auth)
        self.base = layout.auth_url

    def list(self, collection, **params):
        return self.sess.get('%s/%s' % (self.base, collection),
                             params=params).json()[collection]

    def post(self, collection, key, body):
        return self.sess.post('%s/%s' % (self.base, collection),
                              json={key: body}).json()[key]

    def by_name(self, collection, **params):
        return {item['name']: item for item in self.list(collection,
                                                         **params)}

    def grant(self, project_id, user_id, role_id):
        self.sess.put('%s/projects/%s/users/%s/roles/%s' % (
            self.base, project_id, user_id, role_id))


def _each(fn, items):
    """fn over items on a few threads: Keystone serves them in parallel."""
    from concurrent import futures
    items = list(items)
    if not items:
        return []
    with futures.ThreadPoolExecutor(max_workers=6) as pool:
        return list(pool.map(lambda args: fn(*args), items))


def seed(layout):
    """Projects, users, role assignments and the catalog of the stack."""
    s = _Seeder(layout)
    roles = s.by_name('roles')
    for name in ('admin', 'member', 'reader', 'service'):
        if name not in roles:
            roles[name] = s.post('roles', 'role', {'name': name})

    projects = s.by_name('projects', domain_id='default')
    wanted = {'demo': 'Demo project', 'service': 'Service users'}
    made = _each(lambda name, desc: s.post('projects', 'project', {
        'name': name, 'domain_id': 'default', 'description': desc}),
        [(n, d) for n, d in wanted.items() if n not in projects])
    projects.update({p['name']: p for p in made})
    demo, service = projects['demo']['id'], projects['service']['id']

    # user -> (password, project, roles)
    users = {'demo': (layout.admin_password, demo, ['member']),
             'reader': (layout.admin_password, demo, ['reader'])}
    for name in SERVICE_USERS:
        users[name] = (layout.service_password, service,
                       ['admin', 'service'])
    existing = s.by_name('users', domain_id='default')
    made = _each(lambda name, pw, project: s.post('users', 'user', {
        'name': name, 'domain_id': 'default', 'password': pw,
        'default_project_id': project}),
        [(n, pw, p) for n, (pw, p, _r) in users.items()
         if n not in existing])
    existing.update({u['name']: u for u in made})
    # PUT of a grant is idempotent: no need to read assignments first.
    _each(s.grant, [(project, existing[name]['id'], roles[role]['id'])
                    for name, (_pw, project, rs) in users.items()
                    for role in rs])

    services = {(svc['type'], svc.get('name')): svc
                for svc in s.list('services')}
    made = _each(lambda stype, name: s.post('services', 'service', {
        'type': stype, 'name': name, 'enabled': True}),
        [(t, n) for t, n, _o, _x in CATALOG if (t, n) not in services])
    services.update({(svc['type'], svc['name']): svc for svc in made})
    endpoints = {(ep['service_id'], ep['interface']): ep
                 for ep in s.list('endpoints')}
    creates, fixes = [], []
    for stype, name, owner, suffix in CATALOG:
        sid = services[(stype, name)]['id']
        url = layout.url(owner) + suffix
        for interface in INTERFACES:
            ep = endpoints.get((sid, interface))
            if ep is None:
                creates.append((sid, interface, url))
            elif ep['url'] != url:
                # The stack moved (another port or IP): fix the URL.
                fixes.append((ep['id'], url))
    _each(lambda sid, interface, url: s.post('endpoints', 'endpoint', {
        'service_id': sid, 'interface': interface, 'url': url,
        'region_id': REGION, 'enabled': True}), creates)
    _each(lambda eid, url: s.sess.patch(
        '%s/endpoints/%s' % (s.base, eid), json={'endpoint': {'url': url}}),
        fixes)

    os.makedirs(layout.run_dir, exist_ok=True)
    with open(_marker(layout), 'w') as f:
        f.write(_wanted(layout))
