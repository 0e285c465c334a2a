"""An API-only test bed: nova-api's app in-process (noauth2) over SQLite
API and cell databases migrated with db_sync; no other service runs."""

import os
import shutil
import tempfile
import threading

from oslo_serialization import jsonutils
import webob

from nova_clone.conf import CONF
from nova_clone import context as nova_context
from nova_clone.db.api import api as api_db_api
from nova_clone.db.main import api as main_db_api
from nova_clone.db import migration
from nova_clone import objects

ADMIN_PROJECT = 'ad0000000000000000000000000000ad'
_TEMPLATE_LOCK = threading.Lock()
_TEMPLATES = {}


def _template(database):
    """A migrated SQLite file, built once per process and copied after."""
    with _TEMPLATE_LOCK:
        path = _TEMPLATES.get(database)
        if path is None:
            tmp = tempfile.mkdtemp(prefix='nc_api_tpl_')
            path = os.path.join(tmp, '%s.sqlite' % database)
            migration.db_sync(database, url='sqlite:///%s' % path)
            _TEMPLATES[database] = path
        return path


class ApiBed(object):
    """Databases, configuration and the app of one test module."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix='nc_api_')
        self.api_url = self._copy('api', 'api')
        self.cell0_url = self._copy('main', 'cell0')
        self.cell1_url = self._copy('main', 'cell1')
        self._saved = {}
        self._override('connection', self.api_url, 'api_database')
        self._override('connection', self.cell1_url, 'database')
        self._override('auth_strategy', 'noauth2', 'api')
        api_db_api.reset()
        main_db_api.reset()
        objects.register_all()
        from nova_clone import policy
        policy.reset()
        ctx = nova_context.get_admin_context()
        self.cell0 = objects.CellMapping(
            context=ctx, uuid=objects.CellMapping.CELL0_UUID, name='cell0',
            transport_url='none:///', database_connection=self.cell0_url)
        self.cell0.create()
        self.cell1 = objects.CellMapping(
            context=ctx, uuid='9e2a1d7c-3f51-4c2b-8a6e-0c1d2e3f4a5b',
            name='cell1', transport_url='fake://',
            database_connection=self.cell1_url)
        self.cell1.create()
        from nova_clone.api import app
        self.app = app.make_app(CONF)

    def _copy(self, database, name):
        path = os.path.join(self.dir, '%s.sqlite' % name)
        shutil.copy(_template(database), path)
        return 'sqlite:///%s' % path

    def _override(self, name, value, group):
        old = getattr(getattr(CONF, group), name)
        self._saved[(name, group)] = old
        CONF.set_override(name, value, group=group)

    def close(self):
        for (name, group), old in self._saved.items():
            CONF.clear_override(name, group=group)
            if old != getattr(getattr(CONF, group), name):
                CONF.set_override(name, old, group=group)
        api_db_api.reset()
        main_db_api.reset()
        nova_context.forget_cells()
        shutil.rmtree(self.dir, ignore_errors=True)

    def client(self, user='demo', project='6f70656e737461636b20342065766572',
               roles=None, version=None):
        return Client(self.app, user, project, roles, version)


class Reply(object):

    def __init__(self, resp):
        self.status = resp.status_int
        self.headers = resp.headers
        self.text = resp.text if resp.body else ''
        self.body = jsonutils.loads(resp.body) if (
            resp.body and 'json' in (resp.content_type or '')) else None

    def __repr__(self):
        return '<Reply %s %s>' % (self.status, self.text[:300])


class Client(object):
    """Sends requests to the app as one user of one project."""

    def __init__(self, app, user, project, roles, version):
        self.app = app
        self.user = user
        self.project = project
        self.roles = roles
        self.version = version

    def request(self, method, path, body=None, version=None, headers=None,
                raw=None, prefix=True):
        url = ('/v2.1/%s' % self.project + path) if prefix else path
        req = webob.Request.blank(url, method=method)
        req.headers['X-Auth-Token'] = '%s:%s' % (self.user, self.project)
        if self.roles is not None:
            req.headers['X-Roles'] = ','.join(self.roles)
        ver = version or self.version
        if ver:
            req.headers['OpenStack-API-Version'] = 'compute %s' % ver
        for key, value in (headers or {}).items():
            req.headers[key] = value
        if raw is not None:
            req.body = raw if isinstance(raw, bytes) else raw.encode()
            req.content_type = 'application/json'
        elif body is not None:
            req.body = jsonutils.dump_as_bytes(body)
            req.content_type = 'application/json'
        return Reply(req.get_response(self.app))

    def get(self, path, **kw):
        return self.request('GET', path, **kw)

    def post(self, path, body=None, **kw):
        return self.request('POST', path, body=body, **kw)

    def put(self, path, body=None, **kw):
        return self.request('PUT', path, body=body, **kw)

    def delete(self, path, **kw):
        return self.request('DELETE', path, **kw)


# -- stand-ins for the peers nova-api talks to when booting ----------------

IMAGE_ID = '155d900f-4e14-4e4c-a73d-069cbf4541e6'
NETWORK_ID = '3cb9bc59-5699-4588-a4b1-b87f96708bc6'


class FakeImageAPI(object):
    """Glance as compute.API sees it: one active image."""

    def get(self, context, image_id):
        from nova_clone import exception
        if image_id != IMAGE_ID:
            raise exception.ImageNotFound(image_id=image_id)
        return {'id': IMAGE_ID, 'name': 'cirros', 'status': 'active',
                'min_disk': 0, 'min_ram': 0, 'size': 1024,
                'disk_format': 'qcow2', 'container_format': 'bare',
                'properties': {'architecture': 'x86_64'}}


class FakeNetworkAPI(object):
    """Neutron for validation: one network, no port limit."""

    def validate_networks(self, context, requested_networks, num_instances):
        from nova_clone import exception
        for net in requested_networks or []:
            if isinstance(net, dict) and net.get('uuid') and \
                    net['uuid'] != NETWORK_ID:
                raise exception.NetworkNotFound(network_id=net['uuid'])
        return num_instances

    def validate_security_groups(self, context, names):
        """Every group exists."""

    def list_ports(self, context, **search_opts):
        return {'ports': []}

    def show_port(self, context, port_id):
        from nova_clone import exception
        raise exception.PortNotFound(port_id=port_id)


class RecordingTaskAPI(object):
    """The conductor's compute-task API: records what the API casts."""

    def __init__(self):
        self.casts = []

    def schedule_and_build_instances(self, context, **kwargs):
        self.casts.append(('schedule_and_build_instances', kwargs))


class RecordingComputeRPC(object):

    def __init__(self):
        self.casts = []

    def external_instance_event(self, context, instances, events,
                                host=None):
        self.casts.append(('external_instance_event', host,
                           [i.uuid for i in instances], events))

    def __getattr__(self, name):
        def record(*args, **kwargs):
            self.casts.append((name, args, kwargs))
        return record


def install_compute_api(bed):
    """A real compute.API wired to the stand-ins above."""
    from nova_clone.api.controllers import servers
    from nova_clone.compute import api as compute
    bed.task_api = RecordingTaskAPI()
    bed.compute_rpc = RecordingComputeRPC()
    api = compute.API(image_api=FakeImageAPI(),
                      network_api=FakeNetworkAPI(),
                      compute_task_api=bed.task_api,
                      compute_rpcapi=bed.compute_rpc)
    servers.set_compute_api(api)
    return api
