"""Glance v2 stand-in: images, their data, and the schemas clients fetch.

Images are JSON documents (custom properties are top-level keys, as in
Glance); their bytes live in files under ``<data_dir>/images``.  A project
sees its own images, public ones and community ones; an admin sees all.
"""

import hashlib
import os
import uuid

from oslo_log import log as logging

from nova_clone.peers import store as store_mod
from nova_clone.peers import web

LOG = logging.getLogger(__name__)

TABLES = ['glance_images']

DISK_FORMATS = ['ami', 'ari', 'aki', 'vhd', 'vhdx', 'vmdk', 'raw', 'qcow2',
                'vdi', 'iso', 'ploop']
CONTAINER_FORMATS = ['ami', 'ari', 'aki', 'bare', 'ovf', 'ova', 'docker',
                     'compressed']
VISIBILITIES = ['public', 'private', 'shared', 'community']
READ_ONLY = {'id', 'status', 'checksum', 'os_hash_algo', 'os_hash_value',
             'size', 'virtual_size', 'created_at', 'updated_at', 'file',
             'self', 'schema', 'direct_url', 'locations', 'stores'}
# Reserved attributes with their type checks; anything else is a property.
BASE_ATTRS = {'name', 'visibility', 'protected', 'os_hidden', 'min_ram',
              'min_disk', 'disk_format', 'container_format', 'tags', 'owner'}
SORT_KEYS = {'name', 'status', 'container_format', 'disk_format', 'size',
             'id', 'created_at', 'updated_at', 'visibility', 'owner',
             'min_disk', 'min_ram'}
VERSIONS = ['2.17', '2.16', '2.15', '2.9', '2.7', '2.6', '2.5', '2.4', '2.3',
            '2.2', '2.1', '2.0']
PATCH_TYPES = ('application/openstack-images-v2.1-json-patch',
               'application/openstack-images-v2.0-json-patch')


def make_store(url):
    return store_mod.Store(url, TABLES)


def _check_value(key, value):
    """Validate one reserved attribute as Glance's image schema does."""
    def bad(msg):
        raise web.bad_request('Provided object does not match schema '
                              "'image': %s" % msg)
    if key == 'name' and value is not None and (
            not isinstance(value, str) or len(value) > 255):
        bad("%r is not valid under any of the given schemas" % (value,))
    if key == 'visibility' and value not in VISIBILITIES:
        bad('%r is not one of %r' % (value, VISIBILITIES))
    if key in ('protected', 'os_hidden') and not isinstance(value, bool):
        bad('%r is not of type \'boolean\'' % (value,))
    if key in ('min_ram', 'min_disk') and (
            not isinstance(value, int) or isinstance(value, bool) or
            value < 0):
        bad('%r is not of type \'integer\' or is less than 0' % (value,))
    if key == 'disk_format' and value is not None and \
            value not in DISK_FORMATS:
        bad('%r is not one of %r' % (value, DISK_FORMATS))
    if key == 'container_format' and value is not None and \
            value not in CONTAINER_FORMATS:
        bad('%r is not one of %r' % (value, CONTAINER_FORMATS))
    if key == 'tags' and (not isinstance(value, list) or not all(
            isinstance(t, str) and len(t) <= 255 for t in value)):
        bad('%r is not valid tags' % (value,))
    if key == 'owner' and value is not None and (
            not isinstance(value, str) or len(value) > 255):
        bad('%r is not of type \'string\'' % (value,))
    if key not in BASE_ATTRS and key not in READ_ONLY:
        if not isinstance(value, str) and value is not None:
            bad('%r is not of type \'string\'' % (value,))


class GlanceApp(web.PeerApp):
    name = 'glance'

    def __init__(self, store, data_dir):
        super().__init__()
        self.store = store
        self.image_dir = os.path.join(data_dir, 'images')
        os.makedirs(self.image_dir, exist_ok=True)
        r = self.route
        r('GET', '/', self.versions)
        r('GET', '/versions', self.versions)
        r('GET', '/v2/images', self.list)
        r('POST', '/v2/images', self.create)
        r('GET', '/v2/images/{image_id}', self.show)
        r('PATCH', '/v2/images/{image_id}', self.update)
        r('DELETE', '/v2/images/{image_id}', self.delete)
        r('PUT', '/v2/images/{image_id}/file', self.upload)
        r('GET', '/v2/images/{image_id}/file', self.download)
        r('PUT', '/v2/images/{image_id}/tags/{tag}', self.add_tag)
        r('DELETE', '/v2/images/{image_id}/tags/{tag}', self.remove_tag)
        r('GET', '/v2/images/{image_id}/members', self.members)
        r('GET', '/v2/images/{image_id}/tasks', self.tasks)
        r('GET', '/v2/schemas/image', self.schema_image)
        r('GET', '/v2/schemas/images', self.schema_images)
        r('GET', '/v2/schemas/member', self.schema_member)
        r('GET', '/v2/schemas/members', self.schema_members)
        r('GET', '/v2/info/import', self.info_import)
        r('GET', '/v2/info/stores', self.info_stores)

    def format_error(self, err):
        # Glance answers with webob's error pages, JSON-rendered.
        titles = {400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden',
                  404: 'Not Found', 405: 'Method Not Allowed',
                  409: 'Conflict', 413: 'Request Entity Too Large',
                  415: 'Unsupported Media Type',
                  500: 'Internal Server Error'}
        status = '%d %s' % (err.status, titles.get(err.status, 'Error'))
        return {'code': status, 'title': titles.get(err.status, 'Error'),
                'message': err.message}

    # -- versions ----------------------------------------------------------

    def versions(self, req):
        base = req.application_url
        values = [{'id': 'v' + v,
                   'status': 'CURRENT' if i == 0 else 'SUPPORTED',
                   'links': [{'rel': 'self', 'href': base + '/v2/'}]}
                  for i, v in enumerate(VERSIONS)]
        status = 300 if req.path_info.rstrip('/') == '' else 200
        return web.json_response({'versions': values}, status=status)

    # -- visibility ---------------------------------------------------------

    def _can_see(self, caller, image):
        return (caller.is_admin or image.get('owner') == caller.project_id or
                image['visibility'] in ('public', 'community'))

    def _can_change(self, caller, image):
        return caller.is_admin or image.get('owner') == caller.project_id

    def _get(self, req, image_id, for_change=False):
        image = self.store.get('glance_images', image_id)
        if image is None or image['status'] == 'deleted' or \
                not self._can_see(req.caller, image):
            raise web.not_found('No image found with ID %s' % image_id)
        if for_change and not self._can_change(req.caller, image):
            raise web.forbidden('You are not permitted to modify this '
                                'image.')
        return image

    @staticmethod
    def _view(image):
        view = dict(image)
        view.pop('_path', None)
        view['self'] = '/v2/images/%s' % image['id']
        view['file'] = '/v2/images/%s/file' % image['id']
        view['schema'] = '/v2/schemas/image'
        return view

    # -- CRUD --------------------------------------------------------------

    def create(self, req):
        body = req.json_body_or_400()
        if not isinstance(body, dict):
            raise web.bad_request('Image body must be a JSON object.')
        for key in body:
            if key in READ_ONLY and key != 'id':
                raise web.forbidden("Attribute '%s' is read-only." % key)
        for key, value in body.items():
            _check_value(key, value)
        visibility = body.get('visibility', 'shared')
        if visibility == 'public' and not req.caller.is_admin:
            raise web.forbidden('You are not authorized to complete '
                                'publicize_image action.')
        owner = body.get('owner', req.caller.project_id)
        if owner != req.caller.project_id and not req.caller.is_admin:
            raise web.forbidden("Attribute 'owner' is reserved.")
        image_id = body.get('id') or str(uuid.uuid4())
        try:
            image_id = str(uuid.UUID(image_id))
        except (ValueError, TypeError, AttributeError):
            raise web.bad_request("Provided object does not match schema "
                                  "'image': %r is not a valid id" % image_id)
        if self.store.get('glance_images', image_id):
            raise web.conflict('Image with identifier %s already exists!'
                               % image_id)
        now = web.isotime()
        image = {
            'id': image_id, 'name': None, 'status': 'queued',
            'visibility': visibility, 'protected': False, 'os_hidden': False,
            'checksum': None, 'os_hash_algo': None, 'os_hash_value': None,
            'owner': owner, 'size': None, 'virtual_size': None,
            'min_ram': 0, 'min_disk': 0, 'disk_format': None,
            'container_format': None, 'tags': [], 'created_at': now,
            'updated_at': now,
        }
        for key, value in body.items():
            if key not in ('id', 'owner', 'visibility'):
                image[key] = value
        image['tags'] = sorted(set(image['tags']))
        self.store.add('glance_images', image, project_id=owner)
        LOG.info('Image %s created by project %s', image_id, owner)
        return web.json_response(self._view(image), status=201, headers={
            'Location': '%s/v2/images/%s' % (req.application_url, image_id)})

    def show(self, req, image_id):
        return web.json_response(self._view(self._get(req, image_id)))

    def _listable(self, caller, image, visibility):
        if image['status'] == 'deleted':
            return False
        if visibility:
            if visibility == 'all':
                return self._can_see(caller, image)
            if image['visibility'] != visibility:
                return False
            return self._can_see(caller, image) and (
                visibility != 'private' or caller.is_admin or
                image.get('owner') == caller.project_id)
        if caller.is_admin:
            return True
        # Default listing: own images and public ones (community images are
        # shown only when asked for by visibility).
        return (image.get('owner') == caller.project_id or
                image['visibility'] == 'public')

    def list(self, req):
        visibility = req.GET.get('visibility')
        if visibility and visibility not in VISIBILITIES + ['all']:
            raise web.bad_request('Invalid visibility value: %s' % visibility)
        limit = web.query_int(req, 'limit', 25)
        limit = min(limit, 1000)
        images = [i for i in self.store.all('glance_images')
                  if self._listable(req.caller, i, visibility)]
        for key in ('name', 'status', 'owner', 'disk_format',
                    'container_format', 'id'):
            if key in req.GET:
                values = req.GET[key]
                if values.startswith('in:'):
                    wanted = values[3:].split(',')
                    images = [i for i in images if i.get(key) in wanted]
                else:
                    images = [i for i in images if i.get(key) == values]
        if 'os_hidden' in req.GET:
            want = req.GET['os_hidden'].lower() == 'true'
            images = [i for i in images if i.get('os_hidden') is want]
        else:
            images = [i for i in images if not i.get('os_hidden')]
        if 'member_status' in req.GET:
            status = req.GET['member_status']
            if status not in ('accepted', 'pending', 'rejected', 'all'):
                raise web.bad_request('Invalid status value: %s' % status)
        for tag in req.GET.getall('tag'):
            images = [i for i in images if tag in i.get('tags', [])]
        base_keys = BASE_ATTRS | READ_ONLY
        for key, value in req.GET.items():
            if key not in base_keys and key not in (
                    'limit', 'marker', 'sort', 'sort_key', 'sort_dir',
                    'member_status', 'tag', 'visibility', 'os_hidden'):
                images = [i for i in images if i.get(key) == value]
        images = self._sorted(req, images)
        marker = req.GET.get('marker')
        if marker:
            ids = [i['id'] for i in images]
            if marker not in ids:
                raise web.bad_request('Invalid marker. Image %s could not be '
                                      'found.' % marker)
            images = images[ids.index(marker) + 1:]
        page = images[:limit]
        body = {'images': [self._view(i) for i in page],
                'first': '/v2/images', 'schema': '/v2/schemas/images'}
        if len(images) > limit and page:
            query = [(k, v) for k, v in req.GET.items() if k != 'marker']
            query.append(('marker', page[-1]['id']))
            from urllib.parse import urlencode
            body['next'] = '/v2/images?' + urlencode(query)
        return web.json_response(body)

    def _sorted(self, req, images):
        keys = []
        if req.GET.get('sort'):
            for part in req.GET['sort'].split(','):
                key, _sep, direction = part.partition(':')
                keys.append((key.strip(), direction.strip() or 'desc'))
        else:
            sort_keys = req.GET.getall('sort_key') or ['created_at']
            dirs = req.GET.getall('sort_dir') or ['desc']
            for n, key in enumerate(sort_keys):
                keys.append((key, dirs[min(n, len(dirs) - 1)]))
        for key, direction in keys:
            if key not in SORT_KEYS:
                raise web.bad_request('Invalid sort key: %s. It should be '
                                      'one of the following: %s.'
                                      % (key, ', '.join(sorted(SORT_KEYS))))
            if direction not in ('asc', 'desc'):
                raise web.bad_request('Invalid sort direction: %s'
                                      % direction)
        # Stable sorts from the last key to the first; created order breaks
        # ties so pages are stable.
        if ('created_at', 'desc') in keys or not keys:
            images = list(reversed(images))
        for key, direction in reversed(keys):
            images.sort(key=lambda i: (i.get(key) is None,
                                       i.get(key) if i.get(key) is not None
                                       else ''),
                        reverse=direction == 'desc')
        return images

    def update(self, req, image_id):
        ctype = (req.content_type or '').lower()
        if ctype not in PATCH_TYPES:
            raise web.PeerError(415, 'Unsupported Content-Type',
                                'HTTPUnsupportedMediaType')
        ops = req.json_body_or_400()
        if not isinstance(ops, list):
            raise web.bad_request('Expected a list of JSON patch operations.')
        if ctype == PATCH_TYPES[1]:
            ops = [_from_v20_patch(op) for op in ops]
        with self.store.transaction():
            image = self._get(req, image_id, for_change=True)
            for op in ops:
                self._apply(req, image, op)
            image['updated_at'] = web.isotime()
            image['tags'] = sorted(set(image.get('tags', [])))
            self.store.put('glance_images', image)
        return web.json_response(self._view(image))

    def _apply(self, req, image, op):
        if not isinstance(op, dict) or op.get('op') not in (
                'add', 'replace', 'remove'):
            raise web.bad_request('Operation objects must contain exactly one'
                                  ' member named "add", "remove", or '
                                  '"replace".')
        path = op.get('path')
        if not isinstance(path, str) or not path.startswith('/') or \
                path.count('/') != 1 or len(path) < 2:
            raise web.bad_request('Invalid JSON pointer for this resource: '
                                  "'%s'" % path)
        key = path[1:]
        if key in READ_ONLY or key == 'owner' and not req.caller.is_admin:
            raise web.forbidden("Attribute '%s' is read-only." % key)
        if op['op'] == 'remove':
            if key in BASE_ATTRS:
                raise web.forbidden("Attribute '%s' is reserved." % key)
            if key not in image:
                raise web.conflict('Property %s does not exist.' % key)
            del image[key]
            return
        if 'value' not in op:
            raise web.bad_request('Operation "%s" requires a member named '
                                  '"value".' % op['op'])
        value = op['value']
        _check_value(key, value)
        if op['op'] == 'replace' and key not in image:
            raise web.conflict('Property %s does not exist.' % key)
        if key == 'visibility' and value == 'public' and \
                not req.caller.is_admin:
            raise web.forbidden('You are not authorized to complete '
                                'publicize_image action.')
        if key in ('disk_format', 'container_format') and \
                image['status'] != 'queued' and image.get(key) != value:
            raise web.forbidden('Attribute %s can be only replaced for a '
                                'queued image.' % key)
        image[key] = value

    def delete(self, req, image_id):
        with self.store.transaction():
            image = self._get(req, image_id, for_change=True)
            if image.get('protected'):
                raise web.forbidden('Image %s is protected and cannot be '
                                    'deleted.' % image_id)
            self.store.delete('glance_images', image_id)
        path = os.path.join(self.image_dir, image_id)
        if os.path.exists(path):
            os.unlink(path)
        LOG.info('Image %s deleted', image_id)
        return web.empty_response(204)

    # -- data --------------------------------------------------------------

    def upload(self, req, image_id):
        with self.store.transaction():
            image = self._get(req, image_id, for_change=True)
            if image['status'] != 'queued':
                raise web.conflict('Image status transition from %s to '
                                   'saving is not allowed' % image['status'])
            if not image.get('disk_format') or \
                    not image.get('container_format'):
                raise web.bad_request('Properties disk_format, '
                                      'container_format must be set prior '
                                      'to saving data.')
            image['status'] = 'saving'
            self.store.put('glance_images', image)
        path = os.path.join(self.image_dir, image_id)
        md5, sha512, size = hashlib.md5(), hashlib.sha512(), 0
        try:
            with open(path + '.part', 'wb') as out:
                stream = req.body_file
                while True:
                    chunk = stream.read(65536)
                    if not chunk:
                        break
                    md5.update(chunk)
                    sha512.update(chunk)
                    size += len(chunk)
                    out.write(chunk)
            os.replace(path + '.part', path)
        except Exception:
            image['status'] = 'queued'
            self.store.put('glance_images', image)
            raise
        image.update(status='active', size=size, checksum=md5.hexdigest(),
                     os_hash_algo='sha512', os_hash_value=sha512.hexdigest(),
                     updated_at=web.isotime())
        if image.get('disk_format') in ('raw', 'iso'):
            image['virtual_size'] = size
        self.store.put('glance_images', image)
        LOG.info('Image %s uploaded: %d bytes', image_id, size)
        return web.empty_response(204)

    def download(self, req, image_id):
        image = self._get(req, image_id)
        path = os.path.join(self.image_dir, image_id)
        if image['status'] != 'active' or not os.path.exists(path):
            if image['status'] == 'deactivated':
                raise web.forbidden('The requested image has been '
                                    'deactivated. Image data download is '
                                    'forbidden.')
            return web.empty_response(204)
        import webob
        resp = webob.Response(status=200)
        resp.content_type = 'application/octet-stream'
        resp.headers['Content-MD5'] = image['checksum']
        resp.content_length = os.path.getsize(path)
        resp.app_iter = _file_iter(path)
        return resp

    def add_tag(self, req, image_id, tag):
        with self.store.transaction():
            image = self._get(req, image_id, for_change=True)
            if tag not in image['tags']:
                image['tags'] = sorted(image['tags'] + [tag])
                self.store.put('glance_images', image)
        return web.empty_response(204)

    def remove_tag(self, req, image_id, tag):
        with self.store.transaction():
            image = self._get(req, image_id, for_change=True)
            if tag not in image['tags']:
                raise web.not_found('Tag %s not found.' % tag)
            image['tags'].remove(tag)
            self.store.put('glance_images', image)
        return web.empty_response(204)

    def members(self, req, image_id):
        self._get(req, image_id)
        return web.json_response({'members': [],
                                  'schema': '/v2/schemas/members'})

    def tasks(self, req, image_id):
        # Uploads here finish within their request: no import task is ever
        # pending (Glance 2.12's per-image task list).
        self._get(req, image_id)
        return web.json_response({'tasks': []})

    # -- discovery ---------------------------------------------------------

    def info_import(self, req):
        return web.json_response({'import-methods': {
            'description': 'Import methods available.', 'type': 'array',
            'value': []}})

    def info_stores(self, req):
        raise web.not_found('Multi backend is not supported at this site.')

    def schema_image(self, req):
        return web.json_response(image_schema())

    def schema_images(self, req):
        return web.json_response({
            'name': 'images',
            'properties': {'images': {'type': 'array',
                                      'items': image_schema()},
                           'schema': {'type': 'string'},
                           'first': {'type': 'string'},
                           'next': {'type': 'string'}},
            'links': [{'rel': 'first', 'href': '{first}'},
                      {'rel': 'next', 'href': '{next}'},
                      {'rel': 'describedby', 'href': '{schema}'}]})

    def schema_member(self, req):
        return web.json_response(member_schema())

    def schema_members(self, req):
        return web.json_response({
            'name': 'members',
            'properties': {'members': {'type': 'array',
                                       'items': member_schema()},
                           'schema': {'type': 'string'}},
            'links': [{'rel': 'describedby', 'href': '{schema}'}]})


def _from_v20_patch(op):
    """A v2.0 patch operation ({"add": "/key", "value": v}) in the RFC
    6902 form _apply reads; anything else is left for it to refuse."""
    if not isinstance(op, dict):
        return op
    kinds = [k for k in ('add', 'replace', 'remove') if k in op]
    if len(kinds) != 1 or 'op' in op:
        return op
    converted = {'op': kinds[0], 'path': op[kinds[0]]}
    if 'value' in op:
        converted['value'] = op['value']
    return converted


def _file_iter(path):
    with open(path, 'rb') as src:
        while True:
            chunk = src.read(65536)
            if not chunk:
                return
            yield chunk


def image_schema():
    string = {'type': ['null', 'string']}
    props = {
        'id': {'type': 'string', 'description': 'An identifier for the '
               'image', 'pattern': '^([0-9a-fA-F]){8}-([0-9a-fA-F]){4}-'
               '([0-9a-fA-F]){4}-([0-9a-fA-F]){4}-([0-9a-fA-F]){12}$'},
        'name': dict(string, maxLength=255),
        'status': {'type': 'string', 'readOnly': True, 'enum': [
            'queued', 'saving', 'active', 'killed', 'deleted', 'uploading',
            'importing', 'pending_delete', 'deactivated']},
        'visibility': {'type': 'string', 'enum': VISIBILITIES},
        'protected': {'type': 'boolean'},
        'os_hidden': {'type': 'boolean'},
        'checksum': dict(string, readOnly=True, maxLength=32),
        'os_hash_algo': dict(string, readOnly=True, maxLength=64),
        'os_hash_value': dict(string, readOnly=True, maxLength=128),
        'owner': dict(string, maxLength=255),
        'size': {'type': ['null', 'integer'], 'readOnly': True},
        'virtual_size': {'type': ['null', 'integer'], 'readOnly': True},
        'container_format': {'type': ['null', 'string'],
                             'enum': [None] + CONTAINER_FORMATS},
        'disk_format': {'type': ['null', 'string'],
                        'enum': [None] + DISK_FORMATS},
        'created_at': {'type': 'string', 'readOnly': True},
        'updated_at': {'type': 'string', 'readOnly': True},
        'tags': {'type': 'array', 'items': {'type': 'string',
                                            'maxLength': 255}},
        'direct_url': {'type': 'string', 'readOnly': True},
        'min_ram': {'type': 'integer'},
        'min_disk': {'type': 'integer'},
        'self': {'type': 'string', 'readOnly': True},
        'file': {'type': 'string', 'readOnly': True},
        'stores': {'type': 'string', 'readOnly': True},
        'schema': {'type': 'string', 'readOnly': True},
        'locations': {'type': 'array', 'items': {'type': 'object'}},
    }
    return {'name': 'image', 'properties': props,
            'additionalProperties': {'type': 'string'},
            'links': [{'rel': 'self', 'href': '{self}'},
                      {'rel': 'enclosure', 'href': '{file}'},
                      {'rel': 'describedby', 'href': '{schema}'}]}


def member_schema():
    return {'name': 'member', 'properties': {
        'member_id': {'type': 'string'}, 'image_id': {'type': 'string'},
        'created_at': {'type': 'string'}, 'updated_at': {'type': 'string'},
        'status': {'type': 'string',
                   'enum': ['pending', 'accepted', 'rejected']},
        'schema': {'type': 'string', 'readOnly': True}}}


def make_app(conf, store=None):
    """The Glance stand-in behind auth_token and request_id."""
    if store is None:
        store = make_store(conf.peers.connection)
        store.create_all()
    data_dir = conf.peers.data_dir or store_mod.default_data_dir(
        conf.peers.connection)
    return web.wrap(GlanceApp(store, data_dir), conf,
                    public_paths=('', '/versions'))
