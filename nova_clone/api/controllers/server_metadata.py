"""/servers/{server_id}/metadata[/{key}] and /servers/{server_id}/ips."""

import webob.exc

from nova_clone.api import auth
from nova_clone.api.controllers import servers
from nova_clone.api import resource
from nova_clone.api.schemas import server_metadata as schema
from nova_clone.api import validation
from nova_clone.api.views import servers as server_views
from nova_clone.compute.api import preconditions
from nova_clone import exception
from nova_clone.policies import server_metadata as md_policies
from nova_clone import quota


def _server(req, server_id, action):
    return servers.authorized_server(req, server_id, action, ['metadata'])


def _metadata(instance):
    return dict(server_views.attr(instance, 'metadata', {}) or {})


class ServerMetadataController(object):

    def index(self, req, server_id):
        _ctx, instance = _server(req, server_id, md_policies.METADATA %
                                 'index')
        return {'metadata': _metadata(instance)}

    def show(self, req, server_id, key):
        _ctx, instance = _server(req, server_id, md_policies.METADATA %
                                 'show')
        meta = _metadata(instance)
        if key not in meta:
            raise webob.exc.HTTPNotFound(
                explanation='Metadata item was not found')
        return {'meta': {key: meta[key]}}

    @validation.schema(schema.create)
    def create(self, req, server_id, body):
        context, instance = _server(req, server_id, md_policies.METADATA %
                                    'create')
        return {'metadata': _save(context, instance, 'update metadata',
                                  body['metadata'])}

    @validation.schema(schema.update_all)
    def update_all(self, req, server_id, body):
        context, instance = _server(req, server_id, md_policies.METADATA %
                                    'update_all')
        return {'metadata': _save(context, instance, 'update metadata',
                                  body['metadata'], replace=True)}

    @validation.schema(schema.update)
    def update(self, req, server_id, key, body):
        context, instance = _server(req, server_id, md_policies.METADATA %
                                    'update')
        if key not in body['meta']:
            raise webob.exc.HTTPBadRequest(
                explanation='Request body and URI mismatch')
        _save(context, instance, 'update metadata', body['meta'])
        return {'meta': body['meta']}

    @resource.response(204)
    def delete(self, req, server_id, key):
        context, instance = _server(req, server_id, md_policies.METADATA %
                                    'delete')
        if key not in _metadata(instance):
            raise webob.exc.HTTPNotFound(
                explanation='Metadata item was not found')
        _save(context, instance, 'delete metadata', {}, delete_keys=[key])


def _save(context, instance, action, updates, delete_keys=(),
          replace=False):
    """Write the change as one merge in the database (concurrent requests
    lose none of each other's keys); returns the metadata now stored."""
    preconditions.check(context, instance, action)
    limit = quota.get_limits_for(context,
                                 context.project_id)['metadata_items']
    try:
        instance.update_metadata(updates, delete_keys=delete_keys,
                                 replace=replace, max_items=limit)
    except exception.MetadataLimitExceeded as exc:
        raise webob.exc.HTTPForbidden(explanation=exc.format_message())
    except exception.InstanceNotFound as exc:
        raise webob.exc.HTTPNotFound(explanation=exc.format_message())
    return dict(instance.metadata)


class ServerIpsController(object):

    def index(self, req, server_id):
        context = auth.get_context(req)
        instance = servers.get_server(req, server_id, ['info_cache'])
        context.can(md_policies.IPS % 'index',
                    target={'project_id': instance.project_id})
        return {'addresses': server_views.addresses(instance,
                                                     extended=False)}

    def show(self, req, server_id, network):
        context = auth.get_context(req)
        instance = servers.get_server(req, server_id, ['info_cache'])
        context.can(md_policies.IPS % 'show',
                    target={'project_id': instance.project_id})
        found = server_views.addresses(instance, network_label=network,
                                       extended=False)
        if network not in found:
            raise webob.exc.HTTPNotFound(
                explanation='Instance is not a member of specified network')
        return found
