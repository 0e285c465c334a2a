"""Identity stand-in: the part of the Keystone v3 API a cloud's clients use.

Only the embedded mode uses it (the multi-service stack runs real
Keystone).  It serves version discovery, password and token
authentication with project scope, token validation and revocation, the
catalog, and read-only listings of domains, projects, users, roles,
services and endpoints -- what keystonemiddleware, keystoneauth1,
openstacksdk and the ``openstack`` CLI call.  Tokens are opaque random
strings kept in the database with their expiry.
"""

import datetime
import hashlib
import hmac
import secrets
import uuid

from oslo_log import log as logging
from oslo_utils import timeutils

from nova_clone.peers import store as store_mod
from nova_clone.peers import web

LOG = logging.getLogger(__name__)

TABLES = ['identity_domains', 'identity_projects', 'identity_users',
          'identity_roles', 'identity_assignments', 'identity_services',
          'identity_endpoints', 'identity_tokens']

DEFAULT_DOMAIN = {'id': 'default', 'name': 'Default', 'enabled': True,
                  'description': 'The default domain', 'tags': [],
                  'options': {}}
REGION = 'RegionOne'
API_VERSION = 'v3.14'
# A role grants the roles it implies, as Keystone's default rules do.
IMPLIED_ROLES = {'admin': ['member', 'reader'], 'member': ['reader']}
SERVICE_NAMES = {'identity': 'keystone', 'compute': 'nova',
                 'image': 'glance', 'network': 'neutron',
                 'block-storage': 'cinder', 'volumev3': 'cinderv3',
                 'placement': 'placement'}

UNAUTHORIZED = 'The request you have made requires authentication.'


def make_store(url):
    return store_mod.Store(url, TABLES)


def _hash_password(password, salt=None):
    salt = salt or secrets.token_hex(8)
    digest = hashlib.pbkdf2_hmac('sha256', password.encode('utf-8'),
                                 salt.encode('ascii'), 20000).hex()
    return '%s$%s' % (salt, digest)


def _check_password(password, stored):
    salt, _sep, _digest = (stored or '').partition('$')
    return hmac.compare_digest(_hash_password(password, salt), stored)


def _find_by_name(store, table, name, domain_id='default'):
    for doc in store.all(table):
        if doc['name'] == name and doc.get('domain_id', domain_id) == \
                domain_id:
            return doc
    return None


def _ensure(store, table, doc):
    existing = _find_by_name(store, table, doc['name'],
                             doc.get('domain_id', 'default'))
    if existing:
        return existing
    doc.setdefault('id', uuid.uuid4().hex)
    return store.add(table, doc)


def _grant(store, user, project, role):
    ident = '%s:%s:%s' % (user['id'], project['id'], role['id'])
    if not store.get('identity_assignments', ident):
        store.add('identity_assignments',
                  {'id': ident, 'user_id': user['id'],
                   'project_id': project['id'], 'role_id': role['id']},
                  project_id=project['id'])


def set_endpoints(store, endpoints):
    """Make the catalog {service type: url}: one service, three interfaces."""
    with store.transaction():
        services = {s['type']: s for s in store.all('identity_services')}
        for stype, url in sorted(endpoints.items()):
            service = services.get(stype)
            if service is None:
                service = store.add('identity_services', {
                    'id': uuid.uuid4().hex, 'type': stype,
                    'name': SERVICE_NAMES.get(stype, stype),
                    'enabled': True, 'description': ''})
            for ep in store.all('identity_endpoints'):
                if ep['service_id'] == service['id']:
                    store.delete('identity_endpoints', ep['id'])
            for interface in ('public', 'internal', 'admin'):
                store.add('identity_endpoints', {
                    'id': uuid.uuid4().hex, 'service_id': service['id'],
                    'interface': interface, 'region_id': REGION,
                    'region': REGION, 'url': url, 'enabled': True})


def bootstrap(store, admin_password, endpoints=None):
    """Create the users, projects, roles and catalog of a small cloud.

    admin (admin on project admin), demo (member and reader on project
    demo), reader (reader on demo), and the service users nova, placement,
    glance, neutron and cinder (admin and service on project service).
    Every user's password is ``admin_password``.  Safe to run again.
    """
    store.create_all()
    with store.transaction():
        if not store.get('identity_domains', 'default'):
            store.add('identity_domains', dict(DEFAULT_DOMAIN))
        roles = {name: _ensure(store, 'identity_roles',
                               {'name': name, 'domain_id': None,
                                'description': None, 'options': {}})
                 for name in ('admin', 'member', 'reader', 'service')}
        projects = {name: _ensure(store, 'identity_projects', {
            'name': name, 'domain_id': 'default', 'parent_id': 'default',
            'enabled': True, 'is_domain': False, 'description': '',
            'tags': [], 'options': {}})
            for name in ('admin', 'demo', 'service')}
        hashed = _hash_password(admin_password)

        def user(name, project):
            doc = _ensure(store, 'identity_users', {
                'name': name, 'domain_id': 'default', 'enabled': True,
                'default_project_id': projects[project]['id'],
                'password_expires_at': None, 'options': {},
                'password_hash': hashed})
            if doc['password_hash'] != hashed:
                doc['password_hash'] = hashed
                store.put('identity_users', doc)
            return doc

        _grant(store, user('admin', 'admin'), projects['admin'],
               roles['admin'])
        demo = user('demo', 'demo')
        _grant(store, demo, projects['demo'], roles['member'])
        _grant(store, demo, projects['demo'], roles['reader'])
        _grant(store, user('reader', 'demo'), projects['demo'],
               roles['reader'])
        for name in ('nova', 'placement', 'glance', 'neutron', 'cinder'):
            svc = user(name, 'service')
            _grant(store, svc, projects['service'], roles['admin'])
            _grant(store, svc, projects['service'], roles['service'])
    if endpoints:
        set_endpoints(store, endpoints)
    return {'projects': projects, 'roles': roles}


def add_user(store, name, password, project_name, roles=('member',
                                                           'reader')):
    """Create (or update) a user with ``roles`` on a project of that name."""
    with store.transaction():
        project = _ensure(store, 'identity_projects', {
            'name': project_name, 'domain_id': 'default',
            'parent_id': 'default', 'enabled': True, 'is_domain': False,
            'description': '', 'tags': [], 'options': {}})
        user = _ensure(store, 'identity_users', {
            'name': name, 'domain_id': 'default', 'enabled': True,
            'default_project_id': project['id'], 'password_expires_at': None,
            'options': {}, 'password_hash': ''})
        user['password_hash'] = _hash_password(password)
        store.put('identity_users', user)
        for role_name in roles:
            role = _ensure(store, 'identity_roles',
                           {'name': role_name, 'domain_id': None,
                            'description': None, 'options': {}})
            _grant(store, user, project, role)
    return user, project


class IdentityApp(web.PeerApp):
    name = 'identity'

    def __init__(self, store, token_expiration=3600):
        super().__init__()
        self.store = store
        self.token_expiration = token_expiration
        r = self.route
        r('GET', '/', self.versions)
        r('GET', '/v3', self.version)
        r('POST', '/v3/auth/tokens', self.issue_token)
        r('GET', '/v3/auth/tokens', self.validate_token)
        r('DELETE', '/v3/auth/tokens', self.revoke_token)
        r('GET', '/v3/auth/catalog', self.auth_catalog)
        r('GET', '/v3/auth/projects', self.auth_projects)
        r('GET', '/v3/auth/domains', self.auth_domains)
        r('GET', '/v3/users/{user_id}/projects', self.user_projects)
        r('GET', '/v3/role_assignments', self.role_assignments)
        for kind in ('domains', 'projects', 'users', 'roles', 'services',
                     'endpoints'):
            r('GET', '/v3/%s' % kind, self._lister(kind))
            r('GET', '/v3/%s/{ident}' % kind, self._shower(kind))
        r('GET', '/v3/regions', self.regions)

    # -- errors and documents ----------------------------------------------

    def format_error(self, err):
        titles = {400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden',
                  404: 'Not Found', 405: 'Method Not Allowed',
                  409: 'Conflict', 500: 'Internal Server Error'}
        return {'error': {'code': err.status, 'message': err.message,
                          'title': titles.get(err.status, 'Error')}}

    def _version_doc(self, req):
        return {'id': API_VERSION, 'status': 'stable',
                'updated': '2020-04-07T00:00:00Z',
                'links': [{'rel': 'self',
                           'href': req.application_url + '/v3/'}],
                'media-types': [{
                    'base': 'application/json',
                    'type': 'application/vnd.openstack.identity-v3+json'}]}

    def versions(self, req):
        return web.json_response(
            {'versions': {'values': [self._version_doc(req)]}}, status=300)

    def version(self, req):
        return web.json_response({'version': self._version_doc(req)})

    # -- tokens ------------------------------------------------------------

    def _authenticate_password(self, body):
        password_ref = body.get('password')
        user_ref = password_ref.get('user') if isinstance(
            password_ref, dict) else None
        if not isinstance(user_ref, dict):
            raise web.bad_request('Invalid input for field '
                                  '"identity/password/user".',
                                  'ValidationError')
        password = user_ref.get('password')
        if not isinstance(password, str):
            raise web.PeerError(400, 'Invalid input for field '
                                '"identity/password/user/password".',
                                'ValidationError')
        user = None
        if user_ref.get('id'):
            user = self.store.get('identity_users', user_ref['id'])
        elif user_ref.get('name'):
            domain = self._domain_ref(user_ref.get('domain'))
            user = _find_by_name(self.store, 'identity_users',
                                 user_ref['name'], domain)
        else:
            raise web.bad_request('Expecting to find id or name in user.',
                                  'ValidationError')
        if (not user or not user.get('enabled', True) or
                not _check_password(password, user['password_hash'])):
            raise web.PeerError(401, UNAUTHORIZED, 'Unauthorized')
        return user

    def _domain_ref(self, ref):
        ref = ref or {}
        if not isinstance(ref, dict):
            raise web.bad_request('Invalid input for field "domain".',
                                  'ValidationError')
        if ref.get('id'):
            return ref['id']
        if ref.get('name'):
            domain = _find_by_name(self.store, 'identity_domains',
                                   ref['name'])
            if not domain:
                raise web.PeerError(401, UNAUTHORIZED, 'Unauthorized')
            return domain['id']
        return 'default'

    def _token_record(self, token_id):
        if not token_id:
            return None
        record = self.store.get('identity_tokens', token_id)
        if record is None:
            return None
        expires = timeutils.parse_isotime(record['expires_at'])
        if timeutils.utcnow(with_timezone=True) >= expires:
            self.store.delete('identity_tokens', token_id)
            return None
        return record

    def _roles_of(self, user_id, project_id):
        names = set()
        for assignment in self.store.all('identity_assignments',
                                         project_id=project_id):
            if assignment['user_id'] != user_id:
                continue
            role = self.store.get('identity_roles', assignment['role_id'])
            if role:
                names.add(role['name'])
        for name in list(names):
            names.update(IMPLIED_ROLES.get(name, []))
        roles = {r['name']: r for r in self.store.all('identity_roles')}
        return [{'id': roles[n]['id'], 'name': n}
                for n in sorted(names) if n in roles]

    def _catalog(self, project_id):
        catalog = []
        endpoints = self.store.all('identity_endpoints')
        for service in self.store.all('identity_services'):
            eps = []
            for ep in endpoints:
                if ep['service_id'] != service['id']:
                    continue
                url = ep['url']
                for marker in ('$(project_id)s', '%(project_id)s',
                               '$(tenant_id)s', '%(tenant_id)s'):
                    url = url.replace(marker, project_id or '')
                eps.append({'id': ep['id'], 'interface': ep['interface'],
                            'region_id': ep['region_id'],
                            'region': ep['region'], 'url': url})
            catalog.append({'id': service['id'], 'type': service['type'],
                            'name': service['name'], 'endpoints': eps})
        return catalog

    def _token_body(self, record):
        user = self.store.get('identity_users', record['user_id'])
        if user is None:
            raise web.not_found('Could not find token.', 'TokenNotFound')
        domain = {'id': 'default', 'name': 'Default'}
        token = {
            'methods': record['methods'],
            'user': {'id': user['id'], 'name': user['name'],
                     'domain': domain, 'password_expires_at': None},
            'audit_ids': record['audit_ids'],
            'expires_at': record['expires_at'],
            'issued_at': record['issued_at'],
        }
        if record.get('project_id'):
            project = self.store.get('identity_projects',
                                     record['project_id'])
            token['project'] = {'id': project['id'], 'name': project['name'],
                                'domain': domain}
            token['is_domain'] = False
            token['roles'] = self._roles_of(user['id'], project['id'])
            token['catalog'] = self._catalog(project['id'])
        return {'token': token}

    def _scope_project(self, scope, user):
        if not scope:
            return None
        if not isinstance(scope, dict):
            raise web.bad_request('Invalid input for field "scope".',
                                  'ValidationError')
        ref = scope.get('project')
        if ref is not None and not isinstance(ref, dict):
            raise web.bad_request('Invalid input for field "scope/project".',
                                  'ValidationError')
        if not ref:
            raise web.PeerError(401, 'Only project scope is supported.',
                                'Unauthorized')
        project = None
        if ref.get('id'):
            project = self.store.get('identity_projects', ref['id'])
        elif ref.get('name'):
            project = _find_by_name(self.store, 'identity_projects',
                                    ref['name'],
                                    self._domain_ref(ref.get('domain')))
        if not project or not self._roles_of(user['id'], project['id']):
            raise web.PeerError(
                401, 'User %s has no access to project %s'
                % (user['id'], ref.get('id') or ref.get('name')),
                'Unauthorized')
        return project['id']

    def issue_token(self, req):
        body = req.json_body_or_400()
        auth = body.get('auth') if isinstance(body, dict) else None
        if not isinstance(auth, dict) or not isinstance(
                auth.get('identity'), dict):
            raise web.bad_request("'auth' and 'identity' are required.",
                                  'ValidationError')
        identity = auth['identity']
        methods = identity.get('methods') or []
        if not isinstance(methods, list):
            raise web.bad_request('Invalid input for field '
                                  '"identity/methods".', 'ValidationError')
        audit_ids = [secrets.token_urlsafe(16)[:22]]
        if 'password' in methods:
            user = self._authenticate_password(identity)
            expires = None
        elif 'token' in methods:
            token_ref = identity.get('token')
            if not isinstance(token_ref, dict) or not isinstance(
                    token_ref.get('id'), str):
                raise web.bad_request('Invalid input for field '
                                      '"identity/token/id".',
                                      'ValidationError')
            old = self._token_record(token_ref['id'])
            if old is None:
                raise web.PeerError(401, UNAUTHORIZED, 'Unauthorized')
            user = self.store.get('identity_users', old['user_id'])
            expires = old['expires_at']
            audit_ids.append(old['audit_ids'][0])
        else:
            raise web.PeerError(401, 'Unsupported authentication method.',
                                'Unauthorized')
        project_id = self._scope_project(auth.get('scope'), user)
        now = timeutils.utcnow()
        if expires is None:
            expires = (now + datetime.timedelta(
                seconds=self.token_expiration)).strftime(
                    '%Y-%m-%dT%H:%M:%S.000000Z')
        token_id = 'gAAAA' + secrets.token_urlsafe(48)
        record = self.store.add('identity_tokens', {
            'id': token_id, 'user_id': user['id'], 'project_id': project_id,
            'methods': methods, 'audit_ids': audit_ids,
            'expires_at': expires,
            'issued_at': now.strftime('%Y-%m-%dT%H:%M:%S.000000Z')},
            project_id=project_id)
        return web.json_response(self._token_body(record), status=201,
                                 headers={'X-Subject-Token': token_id})

    def _require_token(self, req):
        record = self._token_record(req.headers.get('X-Auth-Token'))
        if record is None:
            raise web.PeerError(401, UNAUTHORIZED, 'Unauthorized')
        return record

    def _is_admin(self, record):
        if not record.get('project_id'):
            return False
        return any(r['name'] == 'admin' for r in
                   self._roles_of(record['user_id'], record['project_id']))

    def _may_see_any_token(self, record):
        # Keystone's identity:validate_token: services (keystonemiddleware
        # of every API) and admins read any token; a user only their own.
        if not record.get('project_id'):
            return False
        return any(r['name'] in ('admin', 'service') for r in
                   self._roles_of(record['user_id'], record['project_id']))

    def _subject(self, req, action):
        caller = self._require_token(req)
        subject = req.headers.get('X-Subject-Token')
        record = self._token_record(subject)
        if record is None:
            raise web.not_found('Could not find token: %s' % subject,
                                'TokenNotFound')
        if (record['user_id'] != caller['user_id'] and
                not self._may_see_any_token(caller)):
            raise web.forbidden('You are not authorized to perform the '
                                'requested action: identity:%s.' % action)
        return subject, record

    def validate_token(self, req):
        subject, record = self._subject(req, 'validate_token')
        body = self._token_body(record)
        if 'nocatalog' in req.GET and 'catalog' in body['token']:
            del body['token']['catalog']
        return web.json_response(body, headers={'X-Subject-Token': subject})

    def revoke_token(self, req):
        subject, _record = self._subject(req, 'revoke_token')
        self.store.delete('identity_tokens', subject)
        return web.empty_response(204)

    def auth_catalog(self, req):
        record = self._require_token(req)
        if not record.get('project_id'):
            raise web.forbidden('A scoped token is required.')
        return web.json_response(
            {'catalog': self._catalog(record['project_id']),
             'links': self._links(req)})

    def _user_projects(self, user_id):
        ids = {a['project_id'] for a in self.store.all('identity_assignments')
               if a['user_id'] == user_id}
        return [self._public(p) for p in self.store.all('identity_projects')
                if p['id'] in ids]

    def auth_projects(self, req):
        record = self._require_token(req)
        return web.json_response(
            {'projects': self._user_projects(record['user_id']),
             'links': self._links(req)})

    def auth_domains(self, req):
        self._require_token(req)
        return web.json_response({'domains': [DEFAULT_DOMAIN],
                                  'links': self._links(req)})

    def user_projects(self, req, user_id):
        record = self._require_token(req)
        if record['user_id'] != user_id and not self._is_admin(record):
            raise web.forbidden('You are not authorized to perform the '
                                'requested action.')
        return web.json_response({'projects': self._user_projects(user_id),
                                  'links': self._links(req)})

    def role_assignments(self, req):
        record = self._require_token(req)
        if not self._is_admin(record):
            raise web.forbidden('You are not authorized to perform the '
                                'requested action.')
        out = []
        for a in self.store.all('identity_assignments'):
            if req.GET.get('user.id') and a['user_id'] != req.GET['user.id']:
                continue
            if (req.GET.get('scope.project.id') and
                    a['project_id'] != req.GET['scope.project.id']):
                continue
            out.append({'user': {'id': a['user_id']},
                        'role': {'id': a['role_id']},
                        'scope': {'project': {'id': a['project_id']}}})
        return web.json_response({'role_assignments': out,
                                  'links': self._links(req)})

    # -- read-only listings -----------------------------------------------

    def _links(self, req):
        return {'self': req.path_url, 'previous': None, 'next': None}

    @staticmethod
    def _public(doc):
        return {k: v for k, v in doc.items() if k != 'password_hash'}

    def _visible(self, kind, record):
        docs = self.store.all('identity_' + kind)
        if self._is_admin(record) or kind in ('roles', 'domains',
                                              'services', 'endpoints'):
            return docs
        if kind == 'projects':
            mine = {p['id'] for p in self._user_projects(record['user_id'])}
            return [d for d in docs if d['id'] in mine]
        if kind == 'users':
            return [d for d in docs if d['id'] == record['user_id']]
        return []

    def _lister(self, kind):
        filters = {'name', 'domain_id', 'type', 'service_id', 'interface',
                   'enabled', 'region_id'}

        def handler(req):
            record = self._require_token(req)
            if kind in ('projects', 'users') and not self._is_admin(record):
                raise web.forbidden('You are not authorized to perform the '
                                    'requested action: identity:list_%s.'
                                    % kind)
            docs = self._visible(kind, record)
            for key, value in req.GET.items():
                if key in filters:
                    docs = [d for d in docs
                            if str(d.get(key)).lower() == value.lower()]
            return web.json_response({kind: [self._public(d) for d in docs],
                                      'links': self._links(req)})
        return handler

    def _shower(self, kind):
        singular = kind[:-1]

        def handler(req, ident):
            record = self._require_token(req)
            for doc in self._visible(kind, record):
                if doc['id'] == ident:
                    return web.json_response({singular: self._public(doc)})
            raise web.not_found('Could not find %s: %s.' % (singular, ident),
                                '%sNotFound' % singular.capitalize())
        return handler

    def regions(self, req):
        self._require_token(req)
        return web.json_response({'regions': [{
            'id': REGION, 'description': '', 'parent_region_id': None}],
            'links': self._links(req)})


def make_app(conf, store=None):
    """The identity stand-in's WSGI app (it authenticates for itself)."""
    from oslo_middleware import request_id
    if store is None:
        store = make_store(conf.peers.connection)
        store.create_all()
    return request_id.RequestId(
        IdentityApp(store, token_expiration=conf.peers.token_expiration))
