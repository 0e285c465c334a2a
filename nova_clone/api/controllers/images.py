"""/images (the Glance proxy, to 2.35; 404 from 2.36) and
/images/{image_id}/metadata (to 2.38; 404 from 2.39).

Nova checks no policy of its own here: Glance decides what the user may
see, change or delete, and its refusals come back as 403/404.
"""

from oslo_utils import strutils
from oslo_utils import timeutils
import webob.exc

from nova_clone.api import auth
from nova_clone.api import common
from nova_clone.api import resource
from nova_clone.api.schemas import image_metadata as schema
from nova_clone.api import validation
from nova_clone.api.views import common as view_common
from nova_clone import exception
from nova_clone.image import glance
from nova_clone import quota

_STATUS = {'active': 'ACTIVE', 'queued': 'SAVING', 'saving': 'SAVING',
           'deleted': 'DELETED', 'pending_delete': 'DELETED',
           'killed': 'ERROR'}
_PROGRESS = {'queued': 25, 'saving': 50, 'active': 100}
# Query parameters of the list and the image attribute each filters on.
_FILTERS = {'name': 'name', 'status': 'status', 'minRam': 'min_ram',
            'minDisk': 'min_disk', 'server': 'instance_uuid',
            'type': 'image_type'}


def _image_not_found():
    return webob.exc.HTTPNotFound(explanation='Image not found.')


def _get(image_api, context, image_id):
    try:
        return image_api.get(context, image_id)
    except (exception.ImageNotFound, exception.ImageNotAuthorized):
        raise _image_not_found()


class ImagesController(object):

    def __init__(self, image_api=None):
        self.image_api = image_api or glance.API()

    def _links(self, req, context, image_id):
        out = view_common.links(req, 'images', image_id)
        out.append({'rel': 'alternate',
                    'type': 'application/vnd.openstack.image',
                    'href': '%s/images/%s' % (
                        self.image_api.endpoint(context).rstrip('/'),
                        image_id)})
        return out

    def _basic(self, req, context, image):
        return {'id': image['id'], 'name': image.get('name'),
                'links': self._links(req, context, image['id'])}

    def _detail(self, req, context, image):
        status = image.get('status')
        view = {
            'id': image['id'], 'name': image.get('name'),
            'minRam': int(image.get('min_ram') or 0),
            'minDisk': int(image.get('min_disk') or 0),
            'metadata': image.get('properties', {}),
            'created': view_common.isotime(image.get('created_at')),
            'updated': view_common.isotime(image.get('updated_at')),
            'status': _STATUS.get(status, 'UNKNOWN'),
            'progress': _PROGRESS.get(status, 0),
            'OS-EXT-IMG-SIZE:size': image.get('size'),
            'links': self._links(req, context, image['id']),
        }
        server = view['metadata'].get('instance_uuid')
        if server is not None:
            view['server'] = {'id': server,
                              'links': view_common.links(req, 'servers',
                                                         server)}
        disk_config = view['metadata'].get('auto_disk_config')
        if disk_config is not None:
            view['OS-DCF:diskConfig'] = 'AUTO' if strutils.bool_from_string(
                disk_config) else 'MANUAL'
        return view

    def _list(self, req, detail):
        context = auth.get_context(req)
        kwargs = {}
        for key in ('limit', 'marker'):
            if req.GET.get(key):
                kwargs[key] = req.GET[key]
        glance_filters = {k: req.GET[k] for k in ('name', 'status')
                          if req.GET.get(k)}
        if 'status' in glance_filters:
            # Clients filter by the status this API shows (ACTIVE);
            # Glance's statuses are lower case.
            glance_filters['status'] = glance_filters['status'].lower()
        try:
            images = self.image_api.get_all(context, filters=glance_filters,
                                            **kwargs)
        except exception.Invalid as exc:
            raise common.bad_request(exc.format_message())
        images = [i for i in images if _wanted(req, i)]
        view = self._detail if detail else self._basic
        body = {'images': [view(req, context, i) for i in images]}
        links = view_common.next_link(
            req, 'images/detail' if detail else 'images', body['images'],
            int(kwargs['limit']) if 'limit' in kwargs else None)
        if links:
            body['images_links'] = links
        return body

    @resource.api_version(None, '2.35')
    def index(self, req):
        return self._list(req, False)

    @resource.api_version(None, '2.35')
    def detail(self, req):
        return self._list(req, True)

    @resource.api_version(None, '2.35')
    def show(self, req, image_id):
        context = auth.get_context(req)
        return {'image': self._detail(req, context,
                                      _get(self.image_api, context,
                                           image_id))}

    @resource.api_version(None, '2.35')
    @resource.response(204)
    def delete(self, req, image_id):
        context = auth.get_context(req)
        try:
            self.image_api.delete(context, image_id)
        except exception.ImageNotFound:
            raise _image_not_found()
        except exception.ImageNotAuthorized:
            raise webob.exc.HTTPForbidden(
                explanation='You are not allowed to delete the image.')


def _wanted(req, image):
    props = image.get('properties', {})
    for param, attr in _FILTERS.items():
        value = req.GET.get(param)
        if not value or attr in ('name', 'status'):
            continue
        if attr in ('min_ram', 'min_disk'):
            try:
                if int(image.get(attr) or 0) < int(value):
                    return False
            except ValueError:
                raise common.bad_request('Invalid %s filter' % param)
        elif str(props.get(attr)) != value.rstrip('/').rsplit('/', 1)[-1]:
            return False
    since = req.GET.get('changes-since')
    if since:
        try:
            when = timeutils.parse_isotime(since).replace(tzinfo=None)
        except ValueError:
            raise common.bad_request('Invalid changes-since value')
        if image.get('updated_at') and image['updated_at'] < when:
            return False
    return True


class ImageMetadataController(object):

    def __init__(self, image_api=None):
        self.image_api = image_api or glance.API()

    def _save(self, context, image, properties, purge):
        limit = quota.get_limits_for(context,
                                     context.project_id)['metadata_items']
        if 0 <= limit < len(properties):
            raise webob.exc.HTTPForbidden(
                explanation='Quota exceeded for metadata_items: allowed %d'
                            % limit)
        try:
            image = self.image_api.update(context, image['id'],
                                          {'properties': properties},
                                          purge_props=purge)
        except exception.ImageNotAuthorized as exc:
            raise webob.exc.HTTPForbidden(explanation=exc.format_message())
        except exception.ImageNotFound:
            raise _image_not_found()
        return image['properties']

    @resource.api_version(None, '2.38')
    def index(self, req, image_id):
        context = auth.get_context(req)
        image = _get(self.image_api, context, image_id)
        return {'metadata': image['properties']}

    @resource.api_version(None, '2.38')
    def show(self, req, image_id, key):
        context = auth.get_context(req)
        properties = _get(self.image_api, context, image_id)['properties']
        if key not in properties:
            raise webob.exc.HTTPNotFound(
                explanation='Invalid metadata key')
        return {'meta': {key: properties[key]}}

    @resource.api_version(None, '2.38')
    @validation.schema(schema.create)
    def create(self, req, image_id, body):
        context = auth.get_context(req)
        image = _get(self.image_api, context, image_id)
        properties = dict(image['properties'], **body['metadata'])
        return {'metadata': self._save(context, image, properties, False)}

    @resource.api_version(None, '2.38')
    @validation.schema(schema.update)
    def update(self, req, image_id, key, body):
        context = auth.get_context(req)
        meta = body['meta']
        if key not in meta:
            raise common.bad_request('Request body and URI mismatch')
        image = _get(self.image_api, context, image_id)
        self._save(context, image, dict(image['properties'], **meta), False)
        return {'meta': meta}

    @resource.api_version(None, '2.38')
    @validation.schema(schema.update_all)
    def update_all(self, req, image_id, body):
        context = auth.get_context(req)
        image = _get(self.image_api, context, image_id)
        return {'metadata': self._save(context, image, body['metadata'],
                                       True)}

    @resource.api_version(None, '2.38')
    @resource.response(204)
    def delete(self, req, image_id, key):
        context = auth.get_context(req)
        image = _get(self.image_api, context, image_id)
        properties = dict(image['properties'])
        if properties.pop(key, None) is None and \
                key not in image['properties']:
            raise webob.exc.HTTPNotFound(
                explanation='Invalid metadata key')
        self._save(context, image, properties, True)
