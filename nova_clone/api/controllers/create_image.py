"""The ``createImage`` server action: a snapshot of the server in Glance.

202; before 2.45 with the image's URL in a Location header, from 2.45
with ``{"image_id": ...}``.  Metadata counts against the metadata quota
before 2.39 only, as in Nova.
"""

from nova_clone.api import common
from nova_clone.api.controllers import servers
from nova_clone.api import microversion
from nova_clone.api import resource
from nova_clone.api.schemas import create_image as schema
from nova_clone.api import validation
from nova_clone import exception
from nova_clone.image import glance
from nova_clone.policies import create_image as policies
from nova_clone import quota


def check_image_metadata(req, context, metadata):
    """Before 2.39 the image's metadata counts against the quota of
    metadata items (403 over it)."""
    if not microversion.is_supported(req, '2.39'):
        quota.check_metadata_items(context, metadata)


def image_response(req, context, image, with_location=True):
    """The answer of createImage and createBackup."""
    if microversion.is_supported(req, '2.45'):
        return {'image_id': image['id']}
    headers = {}
    if with_location:
        headers['Location'] = glance.API().generate_image_url(
            image['id'], context)
    return resource.ResponseObject(None, headers=headers)


class CreateImageController(object):

    @resource.response(202)
    @resource.action('createImage')
    @validation.schema(schema.create_image)
    def create_image(self, req, server_id, body):
        context, instance = servers.authorized_server(
            req, server_id, policies.CREATE_IMAGE, ['system_metadata'])
        target = {'project_id': instance.project_id,
                  'user_id': instance.user_id}
        values = body['createImage']
        name = values['name'].strip()
        metadata = values.get('metadata', {})
        check_image_metadata(req, context, metadata)
        compute_api = servers.compute_api()
        snapshot = compute_api.snapshot
        if compute_api.is_volume_backed(context, instance):
            context.can(policies.ALLOW_VOLUME_BACKED, target=target)
            snapshot = compute_api.snapshot_volume_backed
        try:
            image = snapshot(context, instance, name,
                             extra_properties=metadata)
        except exception.Invalid as exc:
            raise common.bad_request(exc.format_message())
        return image_response(req, context, image)
