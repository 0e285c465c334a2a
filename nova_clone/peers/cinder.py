"""Cinder v3 stand-in: volumes, the attachments API (3.27+/3.44), types.

A volume is a sparse backing file of ``size`` GiB under
``<data_dir>/volumes``; it moves creating -> available once the file
exists.  The attachments API lives in ``cinder_attachments`` (a mixin of
the same app).  Errors have Cinder's
bodies: ``{"badRequest": {"code": 400, "message": ...}}`` and so on.
"""

import os
import threading
import uuid

from oslo_log import log as logging
from oslo_utils import strutils

from nova_clone.peers import cinder_attachments
from nova_clone.peers import cinder_snapshots
from nova_clone.peers import store as store_mod
from nova_clone.peers import web

LOG = logging.getLogger(__name__)

TABLES = ['cinder_volumes', 'cinder_attachments', 'cinder_snapshots']

MIN_VERSION = (3, 0)
MAX_VERSION = (3, 70)
GiB = 1024 ** 3
DEFAULT_TYPE = {'id': 'f9c3a7b0-8d1e-4c57-9a3b-4c2f7a1de5c0',
                'name': '__DEFAULT__', 'description': 'Default Volume Type',
                'is_public': True, 'extra_specs': {}, 'qos_specs_id': None,
                'os-volume-type-access:is_public': True}
# Volumes of this type may be attached to several servers at once.
MULTIATTACH_TYPE = {'id': '3c1c5e8a-6a61-4b3f-9a1e-58d5f1a0c7b2',
                    'name': 'multiattach',
                    'description': 'Volumes attachable to several servers',
                    'is_public': True,
                    'extra_specs': {'multiattach': '<is> True'},
                    'qos_specs_id': None,
                    'os-volume-type-access:is_public': True}
TYPES = (DEFAULT_TYPE, MULTIATTACH_TYPE)
QUOTAS = {'volumes': 10, 'gigabytes': 1000, 'snapshots': 10,
          'backups': 10, 'backup_gigabytes': 1000}
DELETABLE = ('available', 'error', 'error_restoring', 'error_extending',
             'error_managing')
ERROR_KEYS = {400: 'badRequest', 401: 'unauthorized', 403: 'forbidden',
              404: 'itemNotFound', 405: 'badMethod', 406: 'notAcceptable',
              409: 'conflictingRequest', 413: 'overLimit',
              500: 'computeFault'}


FIELDS = {
    'volume': {'name': ((str,), True), 'description': ((str,), True),
               'availability_zone': ((str,), True),
               'volume_type': ((str,), True), 'metadata': ((dict,), True),
               'imageRef': ((str,), True), 'snapshot_id': ((str,), True),
               'source_volid': ((str,), True),
               'multiattach': ((bool,), True)},
    'attachment': {'volume_uuid': ((str,), False),
                   'instance_uuid': ((str,), True),
                   'connector': ((dict,), True), 'mode': ((str,), False)},
}


def _type_by_name(name_or_id):
    for vtype in TYPES:
        if name_or_id in (vtype['id'], vtype['name']):
            return vtype
    return None


def make_store(url):
    return store_mod.Store(url, TABLES)


def _type_error(key, value):
    return web.bad_request('Invalid input for field/attribute %s. Value: '
                           '%r.' % (key, value))


def _parse_version(text):
    try:
        major, minor = text.strip().split('.')
        return int(major), int(minor)
    except (ValueError, AttributeError):
        return None


class CinderApp(cinder_attachments.AttachmentsMixin,
                cinder_snapshots.SnapshotsMixin, web.PeerApp):
    quotas = QUOTAS
    name = 'cinder'

    def __init__(self, store, data_dir, create_delay=0.0):
        super().__init__()
        self.store = store
        self.volume_dir = os.path.join(data_dir, 'volumes')
        os.makedirs(self.volume_dir, exist_ok=True)
        self.create_delay = create_delay
        r = self.route
        r('GET', '/', self.versions)
        r('GET', '/v3', self.versions)
        p = '/v3/{project_id}'
        r('GET', p, self.versions)
        r('GET', p + '/volumes', self.list_volumes)
        r('GET', p + '/volumes/detail', self.list_volumes_detail)
        r('POST', p + '/volumes', self.create_volume)
        r('GET', p + '/volumes/{volume_id}', self.show_volume)
        r('PUT', p + '/volumes/{volume_id}', self.update_volume)
        r('DELETE', p + '/volumes/{volume_id}', self.delete_volume)
        r('POST', p + '/volumes/{volume_id}/action', self.volume_action)
        r('GET', p + '/types', self.list_types)
        r('GET', p + '/types/default', self.show_default_type)
        r('GET', p + '/types/{type_id}', self.show_type)
        r('GET', p + '/os-availability-zone', self.availability_zones)
        r('GET', p + '/limits', self.limits)
        self.add_attachment_routes(p)
        self.add_snapshot_routes(p)

    def format_error(self, err):
        key = ERROR_KEYS.get(err.status, 'computeFault')
        body = {'code': err.status, 'message': err.message}
        if err.status == 413:
            body['retryAfter'] = '0'
        return {key: body}

    def __call__(self, environ, start_response):
        # Every answer names the microversion it was served at.
        version = self._requested_version(environ)
        if isinstance(version, web.PeerError):
            resp = self._error(version)
            return resp(environ, start_response)
        environ['cinder.version'] = version

        def start(status, headers, exc_info=None):
            headers = [h for h in headers
                       if h[0].lower() != 'openstack-api-version']
            headers.append(('OpenStack-API-Version', 'volume %d.%d'
                            % version))
            headers.append(('Vary', 'OpenStack-API-Version'))
            return start_response(status, headers, exc_info)
        return super().__call__(environ, start)

    @staticmethod
    def _requested_version(environ):
        header = environ.get('HTTP_OPENSTACK_API_VERSION', '')
        wanted = None
        for part in header.split(','):
            service, _sep, value = part.strip().partition(' ')
            if service.lower() == 'volume' and value:
                wanted = value.strip()
        if not wanted:
            return MIN_VERSION
        if wanted.lower() == 'latest':
            return MAX_VERSION
        version = _parse_version(wanted)
        if version is None:
            return web.bad_request('API Version String %s is of invalid '
                                   'format. Must be of format '
                                   'MajorNum.MinorNum.' % wanted)
        if not MIN_VERSION <= version <= MAX_VERSION:
            return web.PeerError(406, 'Version %s is not supported by the '
                                 'API. Minimum is 3.0 and maximum is 3.70.'
                                 % wanted)
        return version

    # -- helpers -----------------------------------------------------------

    def versions(self, req, project_id=None):
        base = req.application_url
        values = [{
            'id': 'v3.0', 'status': 'CURRENT', 'version': '3.70',
            'min_version': '3.0', 'updated': '2023-08-31T00:00:00Z',
            'links': [{'rel': 'describedby', 'type': 'text/html',
                       'href': 'https://docs.openstack.org/'},
                      {'rel': 'self', 'href': base + '/v3/'}],
            'media-types': [{
                'base': 'application/json',
                'type': 'application/vnd.openstack.volume+json;version=3'}],
        }]
        status = 300 if req.path_info.rstrip('/') == '' else 200
        return web.json_response({'versions': values}, status=status)

    def _project(self, req, project_id):
        if project_id != req.caller.project_id and not req.caller.is_admin:
            raise web.bad_request('Malformed request url')

    def _body(self, req, key):
        body = req.json_body_or_400()
        if not isinstance(body, dict) or not isinstance(body.get(key), dict):
            raise web.bad_request("Missing required element '%s' in request "
                                  "body." % key)
        web.check_fields(body[key], FIELDS.get(key, {}), _type_error)
        return body[key]

    def _version(self, req):
        return req.environ.get('cinder.version', MIN_VERSION)

    def _require_version(self, req, minimum):
        if self._version(req) < minimum:
            raise web.not_found('The resource could not be found.')

    def _volume(self, req, volume_id):
        vol = self.store.get('cinder_volumes', volume_id)
        if vol is None or not (req.caller.is_admin or
                               vol['project_id'] == req.caller.project_id):
            raise web.not_found('Volume %s could not be found.' % volume_id)
        return vol

    def _path(self, volume_id):
        return os.path.join(self.volume_dir, 'volume-%s' % volume_id)

    # Stored with a volume, never shown as such.
    _HIDDEN = ('project_id', 'attach_status', 'host', 'cluster_name')

    def _volume_view(self, req, vol, write_answer=False):
        """The volume as Cinder shows it at the request's microversion to
        the caller's role; ``write_answer``: the answer to a create or update,
        which carries neither the admin attributes nor the image's
        metadata."""
        view = {k: v for k, v in vol.items() if k not in self._HIDDEN}
        view['links'] = [{'rel': 'self', 'href': '%s/v3/%s/volumes/%s' % (
            req.application_url, vol['project_id'], vol['id'])}]
        attachments = []
        for att in self.store.all('cinder_attachments'):
            if att['volume_id'] == vol['id'] and att['status'] == 'attached':
                attachments.append({
                    'server_id': att['instance'], 'attachment_id': att['id'],
                    'attached_at': att['attached_at'],
                    'host_name': att.get('host_name'),
                    'volume_id': vol['id'], 'device': att.get('mountpoint'),
                    'id': vol['id']})
        view['attachments'] = attachments
        version = self._version(req)
        admin = req.caller.is_admin
        if write_answer:
            view.pop('volume_image_metadata', None)
        elif admin:
            view['os-vol-tenant-attr:tenant_id'] = vol['project_id']
            view['os-vol-host-attr:host'] = 'standin@file#file'
            view['os-vol-mig-status-attr:migstat'] = None
            view['os-vol-mig-status-attr:name_id'] = None
        if version >= (3, 61) and admin:
            view['cluster_name'] = vol.get('cluster_name')
        if version >= (3, 63):
            view['volume_type_id'] = _type_by_name(vol['volume_type'])['id']
        if version >= (3, 65):
            view['consumes_quota'] = True
        return view

    # -- volumes -----------------------------------------------------------

    def _visible_volumes(self, req, project_id):
        self._project(req, project_id)
        if req.caller.is_admin and req.GET.get('all_tenants') in (
                '1', 'true', 'True'):
            vols = self.store.all('cinder_volumes')
        else:
            vols = self.store.all('cinder_volumes', project_id)
        for key in ('name', 'status', 'bootable', 'availability_zone'):
            if key in req.GET:
                vols = [v for v in vols if str(v.get(key)) == req.GET[key]]
        marker = req.GET.get('marker')
        if marker:
            ids = [v['id'] for v in vols]
            if marker not in ids:
                raise web.not_found('Marker %s could not be found.' % marker)
            vols = vols[ids.index(marker) + 1:]
        limit = web.query_int(req, 'limit', None)
        if limit is not None:
            vols = vols[:limit]
        return vols

    def list_volumes(self, req, project_id):
        vols = self._visible_volumes(req, project_id)
        return web.json_response({'volumes': [
            {'id': v['id'], 'name': v['name'],
             'links': self._volume_view(req, v)['links']} for v in vols]})

    def list_volumes_detail(self, req, project_id):
        vols = self._visible_volumes(req, project_id)
        return web.json_response({'volumes': [self._volume_view(req, v)
                                              for v in vols]})

    def show_volume(self, req, project_id, volume_id):
        self._project(req, project_id)
        return web.json_response(
            {'volume': self._volume_view(req, self._volume(req, volume_id))})

    def create_volume(self, req, project_id):
        self._project(req, project_id)
        values = self._body(req, 'volume')
        size = values.get('size')
        if isinstance(size, str) and size.isdigit():
            size = int(size)
        source = None
        if values.get('snapshot_id'):
            # As Cinder: the snapshot's size unless a larger one is asked,
            # and what the snapshot's volume was (bootable, its image).
            snap = self._snapshot(req, values['snapshot_id'])
            source = self.store.get('cinder_volumes', snap['volume_id'])
            if size is None:
                size = snap['size']
            elif isinstance(size, int) and size < snap['size']:
                raise web.bad_request(
                    'Invalid input received: Volume size %sGB cannot be '
                    'smaller than the snapshot size %sGB. They must be >= '
                    'original snapshot size.' % (size, snap['size']))
        if not isinstance(size, int) or isinstance(size, bool) or size < 1:
            raise web.bad_request("Invalid input for field/attribute size. "
                                  "Value: %s. %r is not of type 'integer' or "
                                  "is less than the minimum of 1"
                                  % (size, size))
        zone = values.get('availability_zone') or 'nova'
        if zone != 'nova':
            raise web.bad_request("Invalid input received: Availability zone "
                                  "'%s' is invalid." % zone)
        vtype = _type_by_name(values.get('volume_type') or
                              DEFAULT_TYPE['name'])
        if vtype is None:
            raise web.not_found('Volume type with name %s could not be '
                                'found.' % values['volume_type'])
        if values.get('multiattach'):
            # As Cinder: multiattach comes with the volume type.
            raise web.bad_request('Invalid input received: multiattach is '
                                  'not supported by this backend.')
        owner = req.caller.project_id
        with self.store.transaction():
            mine = self.store.all('cinder_volumes', owner)
            if len(mine) + 1 > QUOTAS['volumes']:
                raise web.PeerError(
                    413, "VolumeLimitExceeded: Maximum number of volumes "
                    "allowed (%d) exceeded for quota 'volumes'."
                    % QUOTAS['volumes'])
            used = sum(v['size'] for v in mine)
            if used + size > QUOTAS['gigabytes']:
                raise web.PeerError(
                    413, 'VolumeSizeExceedsAvailableQuota: Requested volume '
                    'or snapshot exceeds allowed gigabytes quota. Requested '
                    '%sG, quota is %sG and %sG has been consumed.'
                    % (size, QUOTAS['gigabytes'], used))
            now = web.isotime()
            image_id = values.get('imageRef')
            vol = {
                'id': str(uuid.uuid4()), 'name': values.get('name'),
                'description': values.get('description'),
                'status': 'creating', 'size': size,
                'availability_zone': zone, 'created_at': now,
                'updated_at': now, 'volume_type': vtype['name'],
                'snapshot_id': values.get('snapshot_id'),
                'source_volid': values.get('source_volid'),
                'metadata': values.get('metadata') or {},
                'user_id': req.caller.user_id, 'project_id': owner,
                'bootable': 'true' if image_id else 'false',
                'encrypted': False, 'replication_status': None,
                'consistencygroup_id': None,
                'multiattach': vtype is MULTIATTACH_TYPE,
                'migration_status': None, 'group_id': None,
                'provider_id': None, 'service_uuid': None,
                'shared_targets': False, 'cluster_name': None,
                'attach_status': 'detached',
            }
            if image_id:
                vol['volume_image_metadata'] = {'image_id': image_id}
            if source is not None:
                vol['bootable'] = source['bootable']
                if source.get('volume_image_metadata'):
                    vol['volume_image_metadata'] = dict(
                        source['volume_image_metadata'])
            self.store.add('cinder_volumes', vol, project_id=owner)
        threading.Thread(target=self._make_backing_file, args=(
            vol['id'], source and source['id']), name='volume-create',
            daemon=True).start()
        LOG.info('Volume %s of %d GiB being created', vol['id'], size)
        return web.json_response(
            {'volume': self._volume_view(req, vol, write_answer=True)},
            status=202)

    def _make_backing_file(self, volume_id, source_id=None):
        """A sparse file of the volume's size; from a snapshot, the data
        of the snapshot's volume (as it is now: a snapshot here is only
        bookkeeping)."""
        import time
        if self.create_delay:
            time.sleep(self.create_delay)
        with self.store.transaction():
            vol = self.store.get('cinder_volumes', volume_id)
            if vol is None:
                return
            try:
                if source_id and os.path.exists(self._path(source_id)):
                    _copy_sparse(self._path(source_id),
                                 self._path(volume_id))
                with open(self._path(volume_id), 'ab') as backing:
                    backing.truncate(vol['size'] * GiB)
                vol['status'] = 'available'
            except OSError:
                LOG.exception('Cannot create the backing file of volume %s',
                              volume_id)
                vol['status'] = 'error'
            vol['updated_at'] = web.isotime()
            self.store.put('cinder_volumes', vol)

    def update_volume(self, req, project_id, volume_id):
        self._project(req, project_id)
        values = self._body(req, 'volume')
        with self.store.transaction():
            vol = self._volume(req, volume_id)
            for key in ('name', 'description', 'metadata'):
                if key in values:
                    vol[key] = values[key]
            vol['updated_at'] = web.isotime()
            self.store.put('cinder_volumes', vol)
        return web.json_response({'volume': self._volume_view(
            req, vol, write_answer=True)})

    def delete_volume(self, req, project_id, volume_id):
        self._project(req, project_id)
        with self.store.transaction():
            vol = self._volume(req, volume_id)
            attached = [a for a in self.store.all('cinder_attachments')
                        if a['volume_id'] == volume_id]
            # As Cinder: ?cascade=true deletes the volume's snapshots too.
            cascade = strutils.bool_from_string(req.GET.get('cascade'))
            if vol['status'] not in DELETABLE or attached or (
                    self.snapshots_of(volume_id) and not cascade):
                raise cinder_attachments.invalid_volume(
                    'Volume status must be available or error or '
                    'error_restoring or error_extending or error_managing '
                    'and must not be migrating, attached, belong to a group,'
                    ' have snapshots, awaiting a transfer, or be '
                    'disassociated from snapshots after volume transfer.')
            for snap in self.snapshots_of(volume_id):
                self.store.delete('cinder_snapshots', snap['id'])
            self.store.delete('cinder_volumes', volume_id)
        try:
            os.unlink(self._path(volume_id))
        except FileNotFoundError:
            pass
        LOG.info('Volume %s deleted', volume_id)
        return web.empty_response(202)

    def volume_action(self, req, project_id, volume_id):
        self._project(req, project_id)
        body = req.json_body_or_400()
        if not isinstance(body, dict) or len(body) != 1:
            raise web.bad_request('Invalid request body: one action '
                                  'expected.')
        action, args = next(iter(body.items()))
        if args is not None and not isinstance(args, dict):
            raise web.bad_request('Invalid input for %s: %r is not an '
                                  'object.' % (action, args))
        with self.store.transaction():
            vol = self._volume(req, volume_id)
            if action == 'os-extend':
                new_size = (args or {}).get('new_size')
                if not isinstance(new_size, int) or \
                        isinstance(new_size, bool) or \
                        new_size <= vol['size']:
                    raise web.bad_request(
                        'Invalid input received: New size for extend must '
                        'be greater than current size. (current: %s, '
                        'extended: %s).' % (vol['size'], new_size))
                if vol['status'] != 'available':
                    raise cinder_attachments.invalid_volume(
                        'Volume status must be available to extend, but '
                        'current status is: %s.' % vol['status'])
                with open(self._path(volume_id), 'ab') as backing:
                    backing.truncate(new_size * GiB)
                vol['size'] = new_size
            elif action == 'os-reset_status':
                if not req.caller.is_admin:
                    raise web.forbidden('Policy does not allow '
                                        'volume_extension:volume_admin_'
                                        'actions:reset_status to be '
                                        'performed.')
                vol['status'] = (args or {}).get('status', vol['status'])
            elif action == 'os-begin_detaching':
                if vol['status'] != 'in-use' or \
                        vol.get('attach_status') != 'attached':
                    raise cinder_attachments.invalid_volume(
                        "Unable to detach volume. Volume status must be "
                        "'in-use' and attach_status must be 'attached' to "
                        "detach.")
                vol['status'] = 'detaching'
            elif action == 'os-roll_detaching':
                if vol['status'] == 'detaching':
                    vol['status'] = 'in-use'
            elif action == 'os-set_bootable':
                bootable = (args or {}).get('bootable')
                vol['bootable'] = 'true' if str(bootable).lower() in (
                    'true', '1') else 'false'
            elif action == 'os-update_readonly_flag':
                vol['metadata']['readonly'] = str(
                    (args or {}).get('readonly', False))
            else:
                raise web.bad_request('There is no such action: %s' % action)
            vol['updated_at'] = web.isotime()
            self.store.put('cinder_volumes', vol)
        # Cinder answers this one action 200, the others 202.
        return web.empty_response(200 if action == 'os-set_bootable'
                                  else 202)

    # -- types, zones, limits ----------------------------------------------

    def list_types(self, req, project_id):
        self._project(req, project_id)
        return web.json_response({'volume_types': list(TYPES)})

    def show_default_type(self, req, project_id):
        self._project(req, project_id)
        return web.json_response({'volume_type': DEFAULT_TYPE})

    def show_type(self, req, project_id, type_id):
        self._project(req, project_id)
        vtype = _type_by_name(type_id)
        if vtype is None:
            raise web.not_found('Volume type %s could not be found.'
                                % type_id)
        return web.json_response({'volume_type': vtype})

    def availability_zones(self, req, project_id):
        self._project(req, project_id)
        return web.json_response({'availabilityZoneInfo': [
            {'zoneName': 'nova', 'zoneState': {'available': True}}]})

    def limits(self, req, project_id):
        self._project(req, project_id)
        vols = self.store.all('cinder_volumes', req.caller.project_id)
        return web.json_response({'limits': {'rate': [], 'absolute': {
            'maxTotalVolumes': self.quotas['volumes'],
            'maxTotalSnapshots': self.quotas['snapshots'],
            'maxTotalVolumeGigabytes': self.quotas['gigabytes'],
            'maxTotalBackups': self.quotas['backups'],
            'maxTotalBackupGigabytes': self.quotas['backup_gigabytes'],
            'totalVolumesUsed': len(vols),
            'totalGigabytesUsed': sum(v['size'] for v in vols),
            'totalSnapshotsUsed': len(self.store.all(
                'cinder_snapshots', req.caller.project_id)),
            'totalBackupsUsed': 0,
            'totalBackupGigabytesUsed': 0}}})

def _copy_sparse(source, dest):
    """Copy the data of a sparse backing file, holes left as holes."""
    with open(source, 'rb') as src, open(dest, 'wb') as dst:
        size = os.fstat(src.fileno()).st_size
        pos = 0
        while pos < size:
            try:
                start = os.lseek(src.fileno(), pos, os.SEEK_DATA)
            except OSError:  # ENXIO: only a hole is left
                break
            end = os.lseek(src.fileno(), start, os.SEEK_HOLE)
            while start < end:
                chunk = os.pread(src.fileno(), min(end - start, 1 << 20),
                                 start)
                os.pwrite(dst.fileno(), chunk, start)
                start += len(chunk)
            pos = end
        dst.truncate(size)


def make_app(conf, store=None, create_delay=0.0):
    """The Cinder stand-in behind auth_token and request_id."""
    if store is None:
        store = make_store(conf.peers.connection)
        store.create_all()
    data_dir = conf.peers.data_dir or store_mod.default_data_dir(
        conf.peers.connection)
    return web.wrap(CinderApp(store, data_dir, create_delay=create_delay),
                    conf, public_paths=('', '/v3'))
