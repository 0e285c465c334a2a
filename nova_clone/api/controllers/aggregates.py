"""/os-aggregates: host aggregates (administrators only)."""

from oslo_utils import strutils
import webob.exc

from nova_clone.api import auth
from nova_clone.api import common
from nova_clone.api import microversion
from nova_clone.api import resource
from nova_clone.api.schemas import aggregates as schema
from nova_clone.api import validation
from nova_clone.compute.api import aggregate as aggregate_api
from nova_clone import exception
from nova_clone.policies import aggregates as agg_policies

def _dbtime(value):
    # Aggregates show the raw database timestamps, as Nova.
    return value.replace(tzinfo=None).isoformat() if value else None


def _view(req, aggregate, with_members=True):
    view = {
        'availability_zone': aggregate.availability_zone,
        'created_at': _dbtime(aggregate.created_at),
        'deleted': False,
        'deleted_at': None,
        'id': aggregate.id,
        'name': aggregate.name,
        'updated_at': _dbtime(aggregate.updated_at),
    }
    if with_members:
        view['hosts'] = list(aggregate.hosts or [])
        view['metadata'] = dict(aggregate.metadata or {})
    if microversion.is_supported(req, '2.41'):
        view['uuid'] = aggregate.uuid
    return view


def _aggregate_id(aggregate_id):
    if not strutils.is_int_like(aggregate_id):
        raise common.bad_request('Invalid aggregate id %s' % aggregate_id)
    return int(aggregate_id)


class AggregateController(object):

    def __init__(self, api=None):
        self.api = api or aggregate_api.AggregateAPI()

    def _context(self, req, action):
        context = auth.get_context(req)
        context.can(agg_policies.AGGREGATES % action, target={})
        return context

    def index(self, req):
        context = self._context(req, 'index')
        return {'aggregates': [_view(req, a) for a in
                               self.api.get_aggregate_list(context)]}

    @validation.schema(schema.create)
    def create(self, req, body):
        context = self._context(req, 'create')
        params = body['aggregate']
        try:
            aggregate = self.api.create_aggregate(
                context, params['name'].strip(),
                params.get('availability_zone'))
        except exception.AggregateNameExists as exc:
            raise webob.exc.HTTPConflict(explanation=exc.format_message())
        except exception.InvalidAggregateAction as exc:
            raise common.bad_request(exc.format_message())
        return {'aggregate': _view(req, aggregate, with_members=False)}

    def show(self, req, aggregate_id):
        context = self._context(req, 'show')
        try:
            aggregate = self.api.get_aggregate(context,
                                               _aggregate_id(aggregate_id))
        except exception.AggregateNotFound as exc:
            raise webob.exc.HTTPNotFound(explanation=exc.format_message())
        return {'aggregate': _view(req, aggregate)}

    @validation.schema(schema.update)
    def update(self, req, aggregate_id, body):
        context = self._context(req, 'update')
        values = dict(body['aggregate'])
        if 'name' in values:
            values['name'] = values['name'].strip()
        try:
            aggregate = self.api.update_aggregate(
                context, _aggregate_id(aggregate_id), values)
        except exception.AggregateNameExists as exc:
            raise webob.exc.HTTPConflict(explanation=exc.format_message())
        except exception.AggregateNotFound as exc:
            raise webob.exc.HTTPNotFound(explanation=exc.format_message())
        except exception.InvalidAggregateAction as exc:
            raise common.bad_request(exc.format_message())
        return {'aggregate': _view(req, aggregate)}

    @resource.response(200)
    def delete(self, req, aggregate_id):
        context = self._context(req, 'delete')
        try:
            self.api.delete_aggregate(context, _aggregate_id(aggregate_id))
        except exception.AggregateNotFound as exc:
            raise webob.exc.HTTPNotFound(explanation=exc.format_message())
        except exception.InvalidAggregateAction as exc:
            raise common.bad_request(exc.format_message())


    @resource.api_version('2.81')
    @resource.response(202)
    @validation.schema(schema.images)
    def images(self, req, aggregate_id, body):
        context = auth.get_context(req)
        context.can(agg_policies.IMAGES, target={})
        aggregate_id = _aggregate_id(aggregate_id)
        image_ids = [image['id'] for image in body['cache']]
        if len(set(image_ids)) != len(image_ids):
            raise common.bad_request('Duplicate images in request')
        try:
            self.api.cache_images(context, aggregate_id, image_ids)
        except exception.AggregateNotFound as exc:
            raise webob.exc.HTTPNotFound(explanation=exc.format_message())
        except exception.ImageNotFound as exc:
            raise common.bad_request(exc.format_message())


class AggregateActionController(object):
    """POST /os-aggregates/{aggregate_id}/action."""

    def __init__(self, api=None):
        self.api = api or aggregate_api.AggregateAPI()

    def _context(self, req, action):
        context = auth.get_context(req)
        context.can(agg_policies.AGGREGATES % action, target={})
        return context

    @resource.action('add_host')
    @validation.schema(schema.add_host)
    def add_host(self, req, aggregate_id, body):
        context = self._context(req, 'add_host')
        host = body['add_host']['host']
        try:
            aggregate = self.api.add_host_to_aggregate(
                context, _aggregate_id(aggregate_id), host)
        except (exception.AggregateNotFound,
                exception.ComputeHostNotFound) as exc:
            raise webob.exc.HTTPNotFound(explanation=exc.format_message())
        except (exception.AggregateHostExists,
                exception.InvalidAggregateAction) as exc:
            raise webob.exc.HTTPConflict(explanation=exc.format_message())
        return {'aggregate': _view(req, aggregate)}

    @resource.action('remove_host')
    @validation.schema(schema.remove_host)
    def remove_host(self, req, aggregate_id, body):
        context = self._context(req, 'remove_host')
        host = body['remove_host']['host']
        try:
            aggregate = self.api.remove_host_from_aggregate(
                context, _aggregate_id(aggregate_id), host)
        except (exception.AggregateNotFound, exception.AggregateHostNotFound,
                exception.ComputeHostNotFound):
            raise webob.exc.HTTPNotFound(
                explanation='Cannot remove host %s in aggregate %s' % (
                    host, aggregate_id))
        except exception.InvalidAggregateAction as exc:
            raise webob.exc.HTTPConflict(explanation=exc.format_message())
        return {'aggregate': _view(req, aggregate)}

    @resource.action('set_metadata')
    @validation.schema(schema.set_metadata)
    def set_metadata(self, req, aggregate_id, body):
        context = self._context(req, 'set_metadata')
        try:
            aggregate = self.api.update_aggregate_metadata(
                context, _aggregate_id(aggregate_id),
                body['set_metadata']['metadata'])
        except exception.AggregateNotFound as exc:
            raise webob.exc.HTTPNotFound(explanation=exc.format_message())
        except exception.InvalidAggregateAction as exc:
            raise common.bad_request(exc.format_message())
        return {'aggregate': _view(req, aggregate)}
