"""Nova's client of the image service (Glance v2).

``API().get(ctx, image_id)`` returns the image as Nova sees it (reserved
attributes at the top, custom ones under ``properties``, timestamps as
datetimes); ``download`` streams the data to a file or returns it.  Calls
carry the user's token; errors become nova_clone.exception classes.
"""

import hashlib
import os

from oslo_log import log as logging
from oslo_serialization import jsonutils
from oslo_utils import timeutils

from nova_clone import exception
from nova_clone import client_auth

LOG = logging.getLogger(__name__)

GROUP = 'glance'
# Glance attributes Nova keeps at the top of its image dict.
IMAGE_ATTRIBUTES = ('size', 'disk_format', 'owner', 'container_format',
                    'status', 'id', 'name', 'created_at', 'updated_at',
                    'checksum', 'min_disk', 'min_ram', 'direct_url',
                    'protected', 'visibility', 'os_hash_algo',
                    'os_hash_value', 'virtual_size', 'tags', 'os_hidden')
# Glance's own bookkeeping, never a property.
_NOT_PROPERTIES = set(IMAGE_ATTRIBUTES) | {'self', 'file', 'schema',
                                           'locations', 'stores'}
# Properties holding JSON (Glance keeps only strings): a volume-backed
# snapshot's block device mappings.
_JSON_PROPERTIES = ('block_device_mapping', 'mappings')


def _property_to_glance(value):
    return value if isinstance(value, str) else jsonutils.dumps(value)


def _property_from_glance(key, value):
    if key in _JSON_PROPERTIES and isinstance(value, str):
        try:
            return jsonutils.loads(value)
        except ValueError:
            LOG.warning('Image property %s is not JSON; ignored', key)
            return []
    return value


def _translate_from_glance(image, include_locations=False):
    out = {key: image.get(key) for key in IMAGE_ATTRIBUTES if key in image}
    out.setdefault('min_disk', 0)
    out.setdefault('min_ram', 0)
    out['deleted'] = image.get('status') == 'deleted'
    out['deleted_at'] = None
    out['is_public'] = image.get('visibility') == 'public'
    for key in ('created_at', 'updated_at'):
        if isinstance(out.get(key), str):
            out[key] = timeutils.parse_isotime(out[key]).replace(tzinfo=None)
    out['properties'] = {k: _property_from_glance(k, v)
                         for k, v in image.items()
                         if k not in _NOT_PROPERTIES}
    if include_locations:
        out['locations'] = image.get('locations') or []
    return out


def _raise_for(resp, image_id=None):
    code = resp.status_code
    if code < 400:
        return
    message = client_auth.error_message(resp)
    if code == 404:
        raise exception.ImageNotFound(image_id=image_id)
    if code in (401, 403):
        raise exception.ImageNotAuthorized(image_id=image_id)
    if code == 400:
        raise exception.ImageBadRequest(image_id=image_id, response=message)
    if code == 409:
        raise exception.ImageNotActive(image_id=image_id)
    if code == 413:
        raise exception.ImageQuotaExceeded(image_id=image_id)
    raise exception.ImageServiceUnavailable(reason='%s %s' % (code, message))


class API:
    """What Nova asks of Glance."""

    def _adapter(self, context, admin=False):
        return client_auth.get_adapter(GROUP, context, admin=admin)

    def _call(self, context, method, url, image_id=None, **kwargs):
        try:
            resp = client_auth.request(self._adapter(context), method, url,
                                       **kwargs)
        except exception.NovaException as exc:
            raise exception.ImageServiceUnavailable(reason=str(exc))
        _raise_for(resp, image_id)
        return resp

    def endpoint(self, context):
        """Glance's URL as the catalog (or [glance]) gives it."""
        return self._adapter(context).get_endpoint()
    def generate_image_url(self, image_ref, context):
        """The image's URL on the image service, as a Location header
        names it (the endpoint without its version, as Nova's)."""
        try:
            endpoint = self._adapter(context).get_endpoint()
        except Exception as exc:
            raise exception.ImageServiceUnavailable(reason=str(exc))
        endpoint = (endpoint or '').rstrip('/')
        if endpoint.endswith('/v2'):
            endpoint = endpoint[:-len('/v2')]
        return '%s/images/%s' % (endpoint, image_ref)

    def get(self, context, image_id, include_locations=False,
            show_deleted=True):
        resp = self._call(context, 'GET', '/v2/images/%s' % image_id,
                          image_id=image_id)
        return _translate_from_glance(resp.json(), include_locations)

    def get_all(self, context, **kwargs):
        params = dict(kwargs.pop('filters', None) or {})
        params.update({k: v for k, v in kwargs.items()
                       if k in ('limit', 'marker', 'sort_key', 'sort_dir')})
        images, url = [], '/v2/images'
        while url:
            resp = self._call(context, 'GET', url, params=params)
            body = resp.json()
            images.extend(_translate_from_glance(i) for i in body['images'])
            url, params = body.get('next'), None
            if 'limit' in kwargs:
                break
        return images

    def create(self, context, image_info, data=None):
        body = {k: v for k, v in image_info.items()
                if k not in ('properties', 'size', 'status', 'checksum',
                             'deleted', 'deleted_at', 'is_public',
                             'created_at', 'updated_at', 'owner')}
        for key, value in (image_info.get('properties') or {}).items():
            body[key] = _property_to_glance(value)
        # An image of size 0 (a volume-backed snapshot: only properties)
        # is made active by an empty upload, which needs both formats.
        if data is None and image_info.get('size') == 0:
            data = b''
            body.setdefault('disk_format', 'qcow2')
            body.setdefault('container_format', 'bare')
        resp = self._call(context, 'POST', '/v2/images', json=body)
        image = resp.json()
        if data is not None:
            self._upload(context, image['id'], data)
            return self.get(context, image['id'])
        return _translate_from_glance(image)

    def _upload(self, context, image_id, data):
        self._call(context, 'PUT', '/v2/images/%s/file' % image_id,
                   image_id=image_id, data=data,
                   headers={'Content-Type': 'application/octet-stream'})

    def update(self, context, image_id, image_info, data=None,
               purge_props=False):
        current = self._call(context, 'GET', '/v2/images/%s' % image_id,
                             image_id=image_id).json()
        wanted = {k: v for k, v in image_info.items()
                  if k in ('name', 'min_disk', 'min_ram', 'protected',
                           'visibility', 'disk_format', 'container_format',
                           'tags')}
        for key, value in (image_info.get('properties') or {}).items():
            wanted[key] = _property_to_glance(value)
        ops = []
        for key, value in wanted.items():
            if current.get(key) != value:
                ops.append({'op': 'replace' if key in current else 'add',
                            'path': '/' + key, 'value': value})
        if purge_props:
            props = image_info.get('properties') or {}
            for key in current:
                if key not in _NOT_PROPERTIES and key not in props and \
                        key not in wanted:
                    ops.append({'op': 'remove', 'path': '/' + key})
        if ops:
            self._call(context, 'PATCH', '/v2/images/%s' % image_id,
                       image_id=image_id, json=ops, headers={
                           'Content-Type': 'application/'
                           'openstack-images-v2.1-json-patch'})
        if data is not None:
            self._upload(context, image_id, data)
        return self.get(context, image_id)

    def delete(self, context, image_id):
        self._call(context, 'DELETE', '/v2/images/%s' % image_id,
                   image_id=image_id)
        return True

    def download(self, context, image_id, data=None, dest_path=None,
                 trusted_certs=None):
        """Write the image to ``dest_path`` or ``data``, or return bytes.

        The data is checked against Glance's checksum; a mismatch removes
        the partial file and raises ImageBadRequest.
        """
        resp = self._call(context, 'GET', '/v2/images/%s/file' % image_id,
                          image_id=image_id, stream=True)
        if resp.status_code == 204:
            raise exception.ImageUnacceptable(
                image_id=image_id, reason='Image has no associated data')
        expected = resp.headers.get('Content-MD5')
        md5 = hashlib.md5()
        chunks = resp.iter_content(65536)
        if dest_path is None and data is None:
            content = b''.join(chunks)
            md5.update(content)
            self._verify(image_id, expected, md5)
            return content
        target = data
        if dest_path is not None:
            target = open(dest_path + '.part', 'wb')
        try:
            for chunk in chunks:
                md5.update(chunk)
                target.write(chunk)
        finally:
            if dest_path is not None:
                target.close()
        try:
            self._verify(image_id, expected, md5)
        except exception.ImageBadRequest:
            if dest_path is not None:
                os.unlink(dest_path + '.part')
            raise
        if dest_path is not None:
            os.replace(dest_path + '.part', dest_path)
        LOG.debug('Downloaded image %s', image_id)
        return None

    @staticmethod
    def _verify(image_id, expected, md5):
        if expected and expected != md5.hexdigest():
            raise exception.ImageBadRequest(
                image_id=image_id,
                response='checksum %s does not match %s'
                % (md5.hexdigest(), expected))


def get_default_image_service():
    return API()
