"""/flavors: list, detail, show, create, update description, delete."""

from oslo_utils import strutils
from oslo_utils import uuidutils
import webob.exc

from nova_clone.api import auth
from nova_clone.api import common
from nova_clone.api import microversion
from nova_clone.api import resource
from nova_clone.api.schemas import flavors as schema
from nova_clone.api import validation
from nova_clone.api.views import flavors as views
from nova_clone import exception
from nova_clone import objects
from nova_clone.policies import flavor_access as fa_policies
from nova_clone.policies import flavors as fl_policies

_SORT_KEYS = ('created_at', 'description', 'disabled', 'ephemeral_gb',
              'flavorid', 'id', 'is_public', 'memory_mb', 'name',
              'root_gb', 'rxtx_factor', 'swap', 'updated_at', 'vcpu_weight',
              'vcpus')


def get_flavor(context, flavor_id):
    try:
        return objects.Flavor.get_by_flavor_id(context, flavor_id)
    except exception.FlavorNotFound as exc:
        raise webob.exc.HTTPNotFound(explanation=exc.format_message())


def _with_description(req):
    return microversion.is_supported(req, '2.55')


def _with_extra_specs(req, context):
    return (microversion.is_supported(req, '2.61') and
            context.can(fl_policies.EXTRA_SPECS % 'index', fatal=False))


def _int_filter(req, name):
    value = common.last_value(req, name)
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        raise common.bad_request('Invalid %s filter [%s]' % (name, value))


_DB_INT_MAX = 2 ** 31 - 1


def _db_int(vals, name):
    """A flavor's integer as the database holds it.  The schema bounds
    numbers; a number written as a string is bounded here."""
    value = int(vals.get(name, 0))
    if value > _DB_INT_MAX:
        raise common.bad_request('Invalid input received: %s must be <= '
                                 '%d' % (name, _DB_INT_MAX))
    return value


class FlavorsController(object):

    def _list(self, req):
        context = auth.get_context(req)
        filters = {}
        is_admin = context.can(fa_policies.ACCESS, fatal=False)
        if is_admin:
            raw = common.last_value(req, 'is_public')
            if raw is None:
                filters['is_public'] = True
            elif raw.lower() == 'none':
                filters['is_public'] = None
            else:
                try:
                    filters['is_public'] = strutils.bool_from_string(
                        raw, strict=True)
                except ValueError:
                    raise common.bad_request(
                        'Invalid is_public filter [%s]' % raw)
        else:
            filters['is_public'] = True
            filters['project_id'] = context.project_id
        if filters.get('is_public') is None:
            filters.pop('is_public', None)
        min_ram = _int_filter(req, 'minRam')
        if min_ram is not None:
            filters['min_memory_mb'] = min_ram
        min_disk = _int_filter(req, 'minDisk')
        if min_disk is not None:
            filters['min_root_gb'] = min_disk
        if microversion.is_supported(req, '2.102'):
            name = common.last_value(req, 'name')
            if name is not None:
                filters['name'] = name
        sort_key = common.last_value(req, 'sort_key', 'flavorid')
        sort_dir = common.last_value(req, 'sort_dir', 'asc')
        if sort_key not in _SORT_KEYS:
            raise common.bad_request('Invalid sort key %s' % sort_key)
        if sort_dir not in ('asc', 'desc'):
            raise common.bad_request('Invalid sort direction %s' % sort_dir)
        limit, marker = common.get_limit_and_marker(req)
        try:
            flavors = objects.FlavorList.get_all(
                context, filters=filters, sort_key=sort_key,
                sort_dir=sort_dir, limit=limit, marker=marker)
        except exception.MarkerNotFound:
            raise common.bad_request('marker [%s] not found' % marker)
        return context, list(flavors), limit

    @validation.query_schema(schema.index_query_v2102, '2.102')
    @validation.query_schema(schema.index_query_v275, '2.75', '2.101')
    @validation.query_schema(schema.index_query, '2.1', '2.74')
    def index(self, req):
        _ctx, flavors, limit = self._list(req)
        return views.index(req, flavors, _with_description(req), limit)

    @validation.query_schema(schema.index_query_v2102, '2.102')
    @validation.query_schema(schema.index_query_v275, '2.75', '2.101')
    @validation.query_schema(schema.index_query, '2.1', '2.74')
    def detail(self, req):
        context, flavors, limit = self._list(req)
        return views.detail(req, flavors, _with_description(req),
                            _with_extra_specs(req, context), limit)

    def show(self, req, flavor_id):
        context = auth.get_context(req)
        flavor = get_flavor(context, flavor_id)
        return {'flavor': views.show(req, flavor, _with_description(req),
                                     _with_extra_specs(req, context))}

    @validation.schema(schema.create_v2102, '2.102')
    @validation.schema(schema.create_v255, '2.55', '2.101')
    @validation.schema(schema.create, '2.1', '2.54')
    def create(self, req, body):
        context = auth.get_context(req)
        context.can(fl_policies.MANAGE % 'create', target={})
        vals = body['flavor']
        flavorid = vals.get('id')
        if flavorid is None:
            flavorid = uuidutils.generate_uuid()
        flavorid = str(flavorid)
        flavor = objects.Flavor(
            context=context,
            name=vals['name'].strip() if isinstance(vals['name'], str)
            else vals['name'],
            flavorid=flavorid,
            memory_mb=_db_int(vals, 'ram'),
            vcpus=_db_int(vals, 'vcpus'),
            root_gb=_db_int(vals, 'disk'),
            ephemeral_gb=_db_int(vals, 'OS-FLV-EXT-DATA:ephemeral'),
            swap=_db_int(vals, 'swap'),
            rxtx_factor=float(vals.get('rxtx_factor', 1.0)),
            is_public=strutils.bool_from_string(
                vals.get('os-flavor-access:is_public', True), strict=True),
            disabled=False,
            vcpu_weight=None,
            description=vals.get('description'),
            extra_specs={},
            projects=[],
        )
        try:
            flavor.create()
        except (exception.FlavorExists, exception.FlavorIdExists) as exc:
            raise webob.exc.HTTPConflict(explanation=exc.format_message())
        return {'flavor': views.show(
            req, flavor, _with_description(req),
            microversion.is_supported(req, '2.61'))}

    @resource.api_version('2.55')
    @validation.schema(schema.update, '2.55')
    def update(self, req, flavor_id, body):
        context = auth.get_context(req)
        context.can(fl_policies.MANAGE % 'update', target={})
        flavor = get_flavor(context, flavor_id)
        flavor.description = body['flavor']['description']
        flavor.save()
        return {'flavor': views.show(req, flavor, True,
                                     _with_extra_specs(req, context))}

    @resource.response(202)
    def delete(self, req, flavor_id):
        context = auth.get_context(req)
        context.can(fl_policies.MANAGE % 'delete', target={})
        flavor = get_flavor(context, flavor_id)
        flavor.destroy()
