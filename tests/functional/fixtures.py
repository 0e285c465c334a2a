"""An in-process cloud for functional tests, and helpers to drive it.

``get_cloud(computes=2)`` returns the process's running test cloud -- the
same assembly as ``nova-clone up`` (nova_clone.embedded.cloud) on a
temporary state directory and free ports -- starting it (or replacing one
built with other start-up knobs) when needed.  Knobs that can change while
the cloud runs are context managers on it:

    with cloud.flags(fail_spawn={'compute1': 'fatal'}, group='fake_driver'):
    with cloud.flags(vif_plugging_timeout=1):
    with cloud.neutron_events(send_vif_plugged=False):

``cloud.admin_api`` / ``cloud.demo_api`` are REST clients (requests, tokens
from the identity stand-in) with helpers shaped like Nova's functional
test helpers: ``create_server``, ``wait_for_state``,
``wait_for_instance_action_event``, ``delete_server`` ...
"""

import atexit
import contextlib
import os
import shutil
import tempfile
import time
import uuid

import requests

from nova_clone.conf import CONF
from nova_clone.embedded import cloud as embedded_cloud

DEFAULT_TIMEOUT = 20
POLL = 0.05


class ApiError(AssertionError):
    """An unexpected HTTP status from the API."""

    def __init__(self, response, expected):
        self.response = response
        self.status = response.status_code
        super().__init__('%s %s -> %s (expected %s): %s' % (
            response.request.method, response.request.url,
            response.status_code, expected, response.text[:500]))


class ApiClient:
    """The compute API as one user of the cloud sees it."""

    def __init__(self, cloud, user, project, microversion='latest'):
        self.cloud = cloud
        self.user = user
        self.project = project
        self.microversion = microversion
        self._token = None
        self._project_id = None
        self.http = requests.Session()

    # -- authentication ---------------------------------------------------

    def _authenticate(self):
        body = {'auth': {
            'identity': {'methods': ['password'], 'password': {'user': {
                'name': self.user, 'domain': {'name': 'Default'},
                'password': self.cloud.password}}},
            'scope': {'project': {'name': self.project,
                                  'domain': {'name': 'Default'}}}}}
        resp = self.http.post(self.cloud.urls['identity'] + '/v3/auth/tokens',
                              json=body, timeout=10)
        if resp.status_code != 201:
            raise ApiError(resp, 201)
        self._token = resp.headers['X-Subject-Token']
        self._project_id = resp.json()['token']['project']['id']

    @property
    def token(self):
        if self._token is None:
            self._authenticate()
        return self._token

    @property
    def project_id(self):
        if self._project_id is None:
            self._authenticate()
        return self._project_id

    # -- raw requests -----------------------------------------------------

    def request(self, method, path, body=None, expected=None,
                microversion=None, headers=None, base=None, **kw):
        """``path`` is relative to /v2.1 (or ``base``); returns Response."""
        url = (base or self.cloud.urls['compute']) + path
        hdrs = {'X-Auth-Token': self.token,
                'OpenStack-API-Version': 'compute %s' % (
                    microversion or self.microversion)}
        hdrs.update(headers or {})
        resp = self.http.request(method, url, json=body, headers=hdrs,
                                 timeout=30, **kw)
        if resp.status_code == 401:
            self._token = None
            hdrs['X-Auth-Token'] = self.token
            resp = self.http.request(method, url, json=body, headers=hdrs,
                                     timeout=30, **kw)
        if expected is not None:
            codes = expected if isinstance(expected, (list, tuple, set)) \
                else (expected,)
            if resp.status_code not in codes:
                raise ApiError(resp, expected)
        return resp

    def get(self, path, expected=200, **kw):
        return self.request('GET', path, expected=expected, **kw)

    def post(self, path, body, expected=None, **kw):
        return self.request('POST', path, body=body, expected=expected, **kw)

    def put(self, path, body, expected=None, **kw):
        return self.request('PUT', path, body=body, expected=expected, **kw)

    def delete(self, path, expected=None, **kw):
        return self.request('DELETE', path, expected=expected, **kw)

    # -- resources --------------------------------------------------------

    def get_server(self, server_id, **kw):
        return self.get('/servers/%s' % server_id, **kw).json()['server']

    def get_servers(self, detail=True, search_opts=None, **kw):
        path = '/servers/detail' if detail else '/servers'
        return self.get(path, params=search_opts or {}, **kw).json()[
            'servers']

    def post_server(self, server, **kw):
        """POST /servers with {"server": server}; returns the body."""
        resp = self.post('/servers', {'server': server}, expected=202, **kw)
        body = resp.json()
        if 'server' not in body:  # return_reservation_id
            return body
        self.cloud.track_server(body['server']['id'])
        return body['server']

    def delete_server(self, server_id, **kw):
        self.delete('/servers/%s' % server_id, expected=204, **kw)

    def get_flavors(self, detail=True):
        path = '/flavors/detail' if detail else '/flavors'
        return self.get(path).json()['flavors']

    def get_instance_actions(self, server_id, **kw):
        return self.get('/servers/%s/os-instance-actions' % server_id,
                        **kw).json()['instanceActions']

    def get_instance_action_details(self, server_id, request_id, **kw):
        return self.get('/servers/%s/os-instance-actions/%s' % (
            server_id, request_id), **kw).json()['instanceAction']

    def get_images(self):
        resp = self.request('GET', '/v2/images', base=self.cloud.urls['image'],
                            expected=200)
        return resp.json()['images']

    def get_networks(self):
        resp = self.request('GET', '/v2.0/networks',
                            base=self.cloud.urls['network'], expected=200)
        return resp.json()['networks']

    def get_ports(self, **filters):
        resp = self.request('GET', '/v2.0/ports', params=filters,
                            base=self.cloud.urls['network'], expected=200)
        return resp.json()['ports']

    # -- Nova functional-test style helpers -------------------------------

    def create_server(self, name=None, flavor_id=None, image_id=None,
                      networks=None, wait_for='ACTIVE', timeout=None,
                      **extra):
        """Boot a server from the seeded image/flavor/network.

        ``wait_for``: a status to wait for (None = return the POST body).
        """
        server = {
            'name': name or 'server-%s' % uuid.uuid4().hex[:8],
            'flavorRef': flavor_id or self.cloud.flavor_id,
            'imageRef': image_id or self.cloud.image_id,
            'networks': (networks if networks is not None
                         else [{'uuid': self.cloud.network_id}]),
        }
        server.update(extra)
        created = self.post_server(server)
        if wait_for is None:
            return created
        return self.wait_for_state(created['id'], wait_for, timeout=timeout)

    def wait_for_state(self, server_id, status, timeout=None,
                       fail_on=('ERROR',), task_state=Ellipsis):
        """Poll the server until its status is ``status``; return it.

        Fails early on a status in ``fail_on`` (unless that is what we wait
        for).  ``task_state`` (if given) must match too.
        """
        deadline = time.monotonic() + (timeout or DEFAULT_TIMEOUT)
        server = None
        while time.monotonic() < deadline:
            server = self.get_server(server_id)
            state_ok = (task_state is Ellipsis or
                        server.get('OS-EXT-STS:task_state') == task_state)
            if server['status'] == status and state_ok:
                return server
            if server['status'] in fail_on and server['status'] != status:
                raise AssertionError(
                    'server %s went %s while waiting for %s: %s' % (
                        server_id, server['status'], status,
                        server.get('fault')))
            time.sleep(POLL)
        raise AssertionError('server %s did not reach %s within %ss; last: '
                             'status=%s task_state=%s' % (
                                 server_id, status, timeout or DEFAULT_TIMEOUT,
                                 server and server.get('status'),
                                 server and server.get(
                                     'OS-EXT-STS:task_state')))

    def wait_until_deleted(self, server_id, timeout=None):
        deadline = time.monotonic() + (timeout or DEFAULT_TIMEOUT)
        while time.monotonic() < deadline:
            resp = self.request('GET', '/servers/%s' % server_id)
            if resp.status_code == 404:
                return
            time.sleep(POLL)
        raise AssertionError('server %s still exists after %ss' % (
            server_id, timeout or DEFAULT_TIMEOUT))

    def delete_server_and_wait(self, server_id, timeout=None):
        self.delete_server(server_id)
        self.wait_until_deleted(server_id, timeout=timeout)

    def wait_for_instance_action_event(self, server_id, action_name,
                                       event_name, event_result,
                                       timeout=None):
        """Wait for an action's event to finish with ``event_result``.

        ``event_result`` is 'Success' or 'Error' (case-insensitive, as
        Nova's helper compares).  Returns the event.
        """
        deadline = time.monotonic() + (timeout or DEFAULT_TIMEOUT)
        seen = None
        while time.monotonic() < deadline:
            actions = self.get_instance_actions(server_id,
                                                microversion='2.84')
            for action in actions:
                if action['action'] != action_name:
                    continue
                details = self.get_instance_action_details(
                    server_id, action['request_id'], microversion='2.84')
                for event in details.get('events', []):
                    if event['event'] != event_name:
                        continue
                    seen = event
                    if (event.get('result') or '').lower() == \
                            event_result.lower():
                        return event
            time.sleep(POLL)
        raise AssertionError(
            'no %s event %s with result %s on server %s within %ss; last '
            'seen: %s' % (action_name, event_name, event_result, server_id,
                          timeout or DEFAULT_TIMEOUT, seen))

    def wait_for_migration_status(self, server_id, statuses, timeout=None):
        deadline = time.monotonic() + (timeout or DEFAULT_TIMEOUT)
        while time.monotonic() < deadline:
            migrations = self.get('/os-migrations',
                                  params={'instance_uuid': server_id}
                                  ).json()['migrations']
            for migration in migrations:
                if migration['status'] in statuses:
                    return migration
            time.sleep(POLL)
        raise AssertionError('no migration of %s in %s' % (server_id,
                                                            statuses))


class TestCloud:
    """One embedded cloud for tests, on a temp dir and free ports."""

    def __init__(self, computes=2, auth_strategy='keystone',
                 conf_overrides=None, neutron_overrides=None,
                 state_dir=None):
        self.knobs = dict(computes=computes, auth_strategy=auth_strategy,
                          conf_overrides=conf_overrides or {},
                          neutron_overrides=neutron_overrides or {})
        # A given state_dir is the caller's (kept on stop, for restarts).
        self.keep_state = state_dir is not None
        self.state_dir = state_dir or tempfile.mkdtemp(
            prefix='nc_func_cloud_')
        self.cloud = embedded_cloud.EmbeddedCloud(
            self.state_dir, ports={}, computes=computes,
            auth_strategy=auth_strategy, conf_overrides=conf_overrides,
            neutron_overrides=neutron_overrides,
            log_file=os.path.join(self.state_dir, 'nova-clone.log'),
            debug=False)
        self.admin_api = None
        self.demo_api = None
        self._tracked = []

    # -- life cycle -------------------------------------------------------

    def start(self):
        try:
            self.cloud.start()
        except Exception:
            self.stop()
            raise
        self.admin_api = ApiClient(self, 'admin', 'admin')
        self.demo_api = ApiClient(self, 'demo', 'demo')
        self._lookup_seed()
        return self

    def stop(self):
        self.cloud.stop()
        _drop_log_handlers(self.state_dir)
        if not self.keep_state:
            shutil.rmtree(self.state_dir, ignore_errors=True)

    def _lookup_seed(self):
        """Ids of the seeded flavor, image and network."""
        names = self.cloud.seed_names
        flavors = {f['name']: f['id'] for f in self.admin_api.get_flavors()}
        self.flavor_id = flavors[names['flavor']]
        self.flavor_ids = flavors
        images = {i['name']: i['id'] for i in self.admin_api.get_images()}
        self.image_id = images[names['image']]
        nets = {n['name']: n['id'] for n in self.admin_api.get_networks()}
        self.network_id = nets[names['network']]

    @property
    def urls(self):
        return self.cloud.urls

    @property
    def password(self):
        return self.cloud.creds['admin_password']

    @property
    def log_file(self):
        return self.cloud.log_file

    @property
    def compute_hosts(self):
        return self.cloud.compute_hosts

    def start_compute(self, host):
        return self.cloud.start_compute(host)

    def compute_service(self, host):
        """The running nova-compute Service of ``host`` (.manager ...)."""
        return self.cloud.computes[host]

    def stop_compute(self, host):
        self.cloud.stop_compute(host)

    # -- runtime knobs ----------------------------------------------------

    @contextlib.contextmanager
    def flags(self, group=None, **values):
        """Override nova CONF options for the duration of the block."""
        for key, value in values.items():
            CONF.set_override(key, value, group=group)
        try:
            yield
        finally:
            for key in values:
                CONF.clear_override(key, group=group)
                base = self.knobs['conf_overrides'].get(group or 'DEFAULT',
                                                        {})
                if key in base:
                    CONF.set_override(key, base[key], group=group)

    @contextlib.contextmanager
    def neutron_events(self, send_vif_plugged=True):
        """Make the Neutron stand-in send (or not) network-vif-plugged."""
        default = self.knobs['neutron_overrides'].get('send_vif_plugged',
                                                      True)
        self.cloud.set_send_vif_plugged(send_vif_plugged)
        try:
            yield
        finally:
            self.cloud.set_send_vif_plugged(default)

    # -- cleanup between tests -------------------------------------------

    def track_server(self, server_id):
        self._tracked.append(server_id)

    def cleanup_servers(self):
        """Delete what a test left behind and wait until it is gone."""
        tracked, self._tracked = self._tracked, []
        try:
            listed = [srv['id'] for srv in self.admin_api.get_servers(
                detail=False, search_opts={'all_tenants': '1'})]
        except AssertionError:
            listed = []
        left = []
        for server_id in dict.fromkeys(tracked + listed):
            resp = self.admin_api.request('DELETE', '/servers/%s' % server_id)
            if resp.status_code == 204:
                left.append(server_id)
        for server_id in left:
            try:
                self.admin_api.wait_until_deleted(server_id)
            except AssertionError:
                pass
        self.forget_build_failures()

    def forget_build_failures(self):
        """Every compute's failed-build count back to 0 and the scheduler
        seeing it now: a test that fails builds on purpose must not steer
        the next tests' servers away from that host."""
        for svc in list(self.cloud.computes.values()):
            rt = svc.manager.rt
            for nodename in list(rt.compute_nodes):
                rt.build_succeeded(nodename)
        for svc in self.cloud.services:
            host_manager = getattr(svc.manager, 'host_manager', None)
            if host_manager is not None:
                # Stale: the next request reloads.  (A forced refresh here
                # would use up the one a new compute's first boot needs.)
                host_manager._refreshed_at = 0.0

    def log_tail(self, lines=60):
        try:
            with open(self.log_file, errors='replace') as f:
                return ''.join(f.readlines()[-lines:])
        except OSError:
            return ''


def _drop_log_handlers(directory):
    """Close log handlers writing into ``directory`` (about to vanish)."""
    import logging
    root = logging.getLogger()
    for handler in list(root.handlers):
        filename = getattr(handler, 'baseFilename', '')
        if filename.startswith(directory):
            root.removeHandler(handler)
            handler.close()


_CURRENT = {'cloud': None}


def get_cloud(computes=2, auth_strategy='keystone', conf_overrides=None,
              neutron_overrides=None):
    """The running test cloud with these start-up knobs (one per process)."""
    knobs = dict(computes=computes, auth_strategy=auth_strategy,
                 conf_overrides=conf_overrides or {},
                 neutron_overrides=neutron_overrides or {})
    current = _CURRENT['cloud']
    if current is not None:
        if current.knobs == knobs:
            return current
        stop_cloud()
    cloud = TestCloud(**knobs).start()
    _CURRENT['cloud'] = cloud
    return cloud


def stop_cloud():
    current, _CURRENT['cloud'] = _CURRENT['cloud'], None
    if current is not None:
        current.stop()


atexit.register(stop_cloud)
