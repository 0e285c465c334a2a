"""/servers/{server_id}/tags[/{tag}] (2.26+)."""

import re

import webob.exc

from nova_clone.api import auth
from nova_clone.api.controllers import servers
from nova_clone.api import resource
from nova_clone.api.schemas import server_tags as schema
from nova_clone.api import validation
from nova_clone.api.views import common as view_common
from nova_clone.api.views import servers as server_views
from nova_clone.compute.api import preconditions
from nova_clone import context as nova_context
from nova_clone import exception
from nova_clone.policies import server_metadata as md_policies

_TAG_RE = re.compile(r'^[^,/]{1,60}$')


class ServerTagsController(object):

    def _cell_context(self, context, instance):
        from nova_clone import objects
        try:
            mapping = objects.InstanceMapping.get_by_instance_uuid(
                context, instance.uuid)
        except exception.InstanceMappingNotFound:
            mapping = None
        if mapping is None or mapping.cell_mapping is None:
            return None
        base = nova_context.RequestContext.from_dict(context.to_dict())
        # target_cell copes with cell0, which has no message queue.
        with nova_context.target_cell(base, mapping.cell_mapping) as cctxt:
            return cctxt

    def _load(self, req, server_id, action, change=None):
        context = auth.get_context(req)
        instance = servers.get_server(req, server_id)
        context.can(md_policies.TAGS % action,
                    target={'project_id': instance.project_id})
        if change:
            preconditions.check(context, instance, change)
        cctxt = self._cell_context(context, instance)
        if change and cctxt is None:
            # Its build request was scheduled and deleted since it was read.
            raise exception.InstanceNotFound(instance_id=instance.uuid)
        return cctxt, instance

    def _tags(self, cctxt, instance):
        from nova_clone import objects
        if cctxt is None:
            return [getattr(t, 'tag', t) for t in
                    server_views.attr(instance, 'tags', []) or []]
        return [t.tag for t in objects.TagList.get_by_resource_id(
            cctxt, instance.uuid)]

    @resource.api_version('2.26')
    def index(self, req, server_id):
        cctxt, instance = self._load(req, server_id, 'index')
        return {'tags': self._tags(cctxt, instance)}

    @resource.api_version('2.26')
    @resource.response(204)
    def show(self, req, server_id, tag):
        cctxt, instance = self._load(req, server_id, 'show')
        if tag not in self._tags(cctxt, instance):
            raise webob.exc.HTTPNotFound(
                explanation=exception.TagNotFound(
                    tag=tag, instance_id=instance.uuid).format_message())

    @resource.api_version('2.26')
    def update(self, req, server_id, tag, body=None):
        from nova_clone import objects
        cctxt, instance = self._load(req, server_id, 'update', 'update tag')
        if not _TAG_RE.match(tag):
            raise webob.exc.HTTPBadRequest(
                explanation="Tag '%s' is invalid. It must be a non empty "
                            "string without characters '/' and ','." % tag)
        current = self._tags(cctxt, instance)
        if tag in current:
            return resource.ResponseObject(None, code=204)
        if len(current) >= schema.MAX_TAGS:
            raise webob.exc.HTTPBadRequest(
                explanation='The number of tags exceeded the per-server '
                            'limit %d' % schema.MAX_TAGS)
        objects.Tag(context=cctxt, resource_id=instance.uuid,
                    tag=tag).create()
        location = '%s%s/servers/%s/tags/%s' % (
            view_common.base_url(req), view_common.project_prefix(req),
            instance.uuid, tag)
        return resource.ResponseObject(None, code=201,
                                       headers={'Location': location})

    @resource.api_version('2.26')
    @validation.schema(schema.update_all)
    def update_all(self, req, server_id, body):
        from nova_clone import objects
        cctxt, instance = self._load(req, server_id, 'update_all',
                                     'update tags')
        tags = list(dict.fromkeys(body['tags']))
        created = objects.TagList.create(cctxt, instance.uuid, tags)
        return {'tags': [t.tag for t in created]}

    @resource.api_version('2.26')
    @resource.response(204)
    def delete(self, req, server_id, tag):
        from nova_clone import objects
        cctxt, instance = self._load(req, server_id, 'delete', 'delete tag')
        try:
            objects.Tag.destroy(cctxt, instance.uuid, tag)
        except exception.TagNotFound as exc:
            raise webob.exc.HTTPNotFound(explanation=exc.format_message())

    @resource.api_version('2.26')
    @resource.response(204)
    def delete_all(self, req, server_id):
        from nova_clone import objects
        cctxt, instance = self._load(req, server_id, 'delete_all',
                                     'delete tags')
        objects.TagList.destroy(cctxt, instance.uuid)
