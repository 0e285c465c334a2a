"""/servers: create, list, detail, show, update, delete.

``POST /servers/{id}/action`` is not here: each action family has its own
controller module, listed in routes.py."""

import base64

from oslo_log import log as logging
from oslo_utils import netutils
from oslo_utils import strutils
from oslo_utils import timeutils
from oslo_utils import uuidutils
import webob.exc

from nova_clone.api import auth
from nova_clone.api import common
from nova_clone.api import microversion
from nova_clone.api import personality
from nova_clone.api import resource
from nova_clone.api.schemas import servers as schema
from nova_clone.api import validation
from nova_clone.api.views import servers as views
from nova_clone.compute.api import down_cells
from nova_clone.compute import states
from nova_clone.compute import utils as compute_utils
from nova_clone.conf import CONF
from nova_clone import exception
from nova_clone.policies import servers as srv_policies

LOG = logging.getLogger(__name__)

_compute_api = None

# Filters a project user may pass; admins may pass any filter.
_USER_FILTERS = ('reservation_id', 'name', 'status', 'image', 'flavor',
                 'ip', 'changes-since', 'changes-before', 'ip6', 'tags',
                 'tags-any', 'not-tags', 'not-tags-any', 'all_tenants')
_USER_FILTERS_V273 = _USER_FILTERS + ('locked',)
_PAGING_SORTING = ('limit', 'marker', 'sort_key', 'sort_dir')
_ADMIN_ONLY_SORT_KEYS = ('host', 'node', 'compute_id')
_SORT_KEYS = ('access_ip_v4', 'access_ip_v6', 'auto_disk_config',
              'availability_zone', 'config_drive', 'created_at',
              'display_description', 'display_name', 'host', 'hostname',
              'image_ref', 'instance_type_id', 'kernel_id', 'key_name',
              'launch_index', 'launched_at', 'locked', 'locked_by', 'node',
              'power_state', 'progress', 'project_id', 'ramdisk_id',
              'root_device_name', 'task_state', 'terminated_at',
              'updated_at', 'user_id', 'uuid', 'vm_state')
_EXPECTED_ATTRS = ['flavor', 'info_cache', 'metadata', 'fault', 'tags']
# System metadata shows only from 2.73 (locked_reason) and 2.98 (the image's
# properties); it is a dozen rows per server, a third of a detail list's
# cost, so an older microversion does not load it.
_SYSMETA_SINCE = '2.73'


def compute_api():
    """The process-wide compute API (built on first use)."""
    global _compute_api
    if _compute_api is None:
        from nova_clone.compute import api as compute
        _compute_api = compute.API()
    return _compute_api


def set_compute_api(api):
    """Use another compute API object (embedded mode, tests)."""
    global _compute_api
    _compute_api = api


def get_server(req, server_id, expected_attrs=None, for_delete=False,
               cell_down_support=False):
    """The instance, or 404 (also for another project's server).

    ``for_delete``: (instance, mapping) as the compute API's delete takes
    them, so that it does not read them again.  ``cell_down_support``: a
    minimal instance when its cell does not answer (show at 2.69).
    """
    context = auth.get_context(req)
    mapping = None
    try:
        if for_delete:
            instance, mapping = compute_api().get_for_delete(context,
                                                             server_id)
        else:
            instance = compute_api().get(
                context, server_id, expected_attrs=expected_attrs,
                cell_down_support=cell_down_support)
    except exception.InstanceNotFound as exc:
        raise webob.exc.HTTPNotFound(explanation=exc.format_message())
    if (instance.project_id != context.project_id and
            not context.can(srv_policies.SERVERS % 'show', target={
                'project_id': instance.project_id}, fatal=False)):
        raise webob.exc.HTTPNotFound(explanation=exception.InstanceNotFound(
            instance_id=server_id).format_message())
    return (instance, mapping) if for_delete else instance


def authorized_server(req, server_id, rule, expected_attrs=None):
    """(request context, instance) once ``rule`` allows the caller to act
    on the server (its project and user are the target): what every
    server action starts with."""
    context = auth.get_context(req)
    instance = get_server(req, server_id, expected_attrs)
    context.can(rule, target={'project_id': instance.project_id,
                              'user_id': instance.user_id})
    return context, instance


def generate_password():
    """A random admin password, as Nova makes when none is given."""
    return compute_utils.generate_password()


def _ref_id(ref):
    """The id at the end of an imageRef/flavorRef that may be a URL."""
    ref = str(ref)
    return ref.rstrip('/').split('/')[-1] if '/' in ref else ref


def _requested_networks(req, networks):
    if networks is None:
        return None
    if isinstance(networks, str):
        return networks
    result = []
    for net in networks:
        port = net.get('port')
        uuid = net.get('uuid')
        fixed_ip = net.get('fixed_ip')
        if port:
            if fixed_ip:
                raise common.bad_request(
                    'Specified Fixed IP \'%s\' cannot be used with port '
                    '\'%s\': the two cannot be specified together.'
                    % (fixed_ip, port))
            uuid = None
        else:
            if not uuid:
                raise common.bad_request(
                    'Bad network format: missing \'uuid\'')
            if not uuidutils.is_uuid_like(uuid):
                raise common.bad_request(
                    'Bad networks format: network uuid is not in proper '
                    'format (%s)' % uuid)
        if fixed_ip and not netutils.is_valid_ip(fixed_ip):
            raise common.bad_request(
                'Invalid fixed IP address (%s)' % fixed_ip)
        result.append({'uuid': uuid, 'port': port, 'fixed_ip': fixed_ip,
                       'tag': net.get('tag')})
    return result


def _bool(value):
    return strutils.bool_from_string(value, strict=False)


class ServersController(object):

    # -- create ----------------------------------------------------------
    @resource.response(202)
    @validation.schema(schema.create_v294, '2.94')
    @validation.schema(schema.create_v290, '2.90', '2.93')
    @validation.schema(schema.create_v274, '2.74', '2.89')
    @validation.schema(schema.create_v267, '2.67', '2.73')
    @validation.schema(schema.create_v263, '2.63', '2.66')
    @validation.schema(schema.create_v257, '2.57', '2.62')
    @validation.schema(schema.create_v252, '2.52', '2.56')
    @validation.schema(schema.create_v242, '2.42', '2.51')
    @validation.schema(schema.create_v237, '2.37', '2.41')
    @validation.schema(schema.create_v232, '2.32', '2.36')
    @validation.schema(schema.create_v219, '2.19', '2.31')
    @validation.schema(schema.create, '2.1', '2.18')
    def create(self, req, body):
        context = auth.get_context(req)
        server = body['server']
        target = {'project_id': context.project_id,
                  'user_id': context.user_id}
        context.can(srv_policies.SERVERS % 'create', target=target)

        name = server['name']
        image_href = server.get('imageRef') or ''
        image_href = _ref_id(image_href) if image_href else ''
        bdm_v2 = server.get('block_device_mapping_v2')
        if bdm_v2:
            context.can(srv_policies.SERVERS % 'create:attach_volume',
                        target=target)
        if not image_href and not bdm_v2:
            raise common.bad_request('Missing imageRef attribute')
        if image_href and not uuidutils.is_uuid_like(image_href):
            raise common.bad_request('Invalid imageRef provided.')

        networks = server.get('networks')
        requested_networks = _requested_networks(req, networks)
        if isinstance(requested_networks, list) and requested_networks:
            context.can(srv_policies.SERVERS % 'create:attach_network',
                        target=target)

        az = server.get('availability_zone')
        if az and ':' in az:
            context.can(srv_policies.SERVERS % 'create:forced_host',
                        target={})
        if server.get('host') or server.get('hypervisor_hostname'):
            context.can(srv_policies.SERVERS %
                        'create:requested_destination', target={})
        min_count = int(server.get('min_count', 1))
        max_count = int(server.get('max_count', min_count))
        if min_count > max_count:
            raise common.bad_request('min_count must be <= max_count')
        return_rid = _bool(server.get('return_reservation_id', False))

        hostname = server.get('hostname')
        if hostname and max_count > 1 and '.' in hostname:
            raise common.bad_request(
                'Cannot set a fully qualified hostname when creating '
                'multiple servers')

        user_data = server.get('user_data')
        if user_data is not None:
            try:
                base64.b64decode(user_data, validate=True)
            except ValueError:
                raise common.bad_request('Userdata content cannot be '
                                         'decoded')

        flavor_ref = _ref_id(server['flavorRef'])
        from nova_clone import objects
        try:
            flavor = objects.Flavor.get_by_flavor_id(context, flavor_ref)
        except exception.FlavorNotFound:
            raise common.bad_request('Invalid flavorRef provided.')

        admin_password = server.get('adminPass')
        if admin_password is None and CONF.api.enable_instance_password:
            admin_password = generate_password()

        injected_files = personality.injected_files(
            context, server.get('personality'))

        hints = body.get('os:scheduler_hints') or body.get(
            'OS-SCH-HNT:scheduler_hints') or {}
        config_drive = server.get('config_drive')
        if config_drive is not None:
            config_drive = _bool(config_drive)
        try:
            instances, reservation_id = compute_api().create(
                context, flavor, image_href,
                display_name=name,
                display_description=server.get('description'),
                min_count=min_count, max_count=max_count,
                requested_networks=requested_networks,
                key_name=server.get('key_name'),
                availability_zone=az,
                metadata=server.get('metadata', {}),
                user_data=user_data,
                admin_password=admin_password,
                block_device_mapping=bdm_v2,
                scheduler_hints=hints,
                tags=server.get('tags'),
                hostname=hostname,
                access_ip_v4=server.get('accessIPv4'),
                access_ip_v6=server.get('accessIPv6'),
                config_drive=config_drive,
                security_groups=server.get('security_groups'),
                supports_multiattach=microversion.is_supported(req, '2.60'),
                return_reservation_id=return_rid,
                injected_files=injected_files or None)
        except exception.KeypairNotFound:
            raise common.bad_request('Invalid key_name provided.')
        except exception.ImageNotFound:
            raise common.bad_request('Can not find requested image')
        except exception.FlavorNotFound:
            raise common.bad_request('Invalid flavorRef provided.')
        except exception.NetworkAmbiguous as exc:
            raise webob.exc.HTTPConflict(explanation=exc.format_message())
        except exception.NotFound as exc:
            raise common.bad_request(exc.format_message())
        except exception.Invalid as exc:
            raise common.bad_request(exc.format_message())

        if return_rid:
            return {'reservation_id': reservation_id}
        instance = instances[0]
        body = views.create(req, instance, admin_password if
                            CONF.api.enable_instance_password else None)
        location = body['server']['links'][0]['href']
        return resource.ResponseObject(body, headers={'Location': location})

    # -- list ------------------------------------------------------------
    @staticmethod
    def _allowed_all_filters(context):
        return context.can(srv_policies.SERVERS % 'allow_all_filters',
                           target={}, fatal=False)

    def _accepted_filters(self, req, context):
        """{filter: last value} of the query, less paging and sorting and
        the filters the caller may not use (silently ignored)."""
        query = req.GET
        allowed_all = self._allowed_all_filters(context)
        user_filters = (_USER_FILTERS_V273 if microversion.is_supported(
            req, '2.73') else _USER_FILTERS)
        opts = {}
        for key in query.keys():
            if key in _PAGING_SORTING:
                continue
            if not allowed_all and key not in user_filters:
                continue
            opts[key] = query.getall(key)[-1]
        return opts

    def _cell_down_support(self, req, context):
        """2.69: whether a list shows the servers of a down cell as
        partial records.  Those cannot be filtered, sorted or paged, so
        only a plain list (all_tenants aside) has them."""
        if not microversion.is_supported(req, '2.69'):
            return False
        if any(key in req.GET for key in _PAGING_SORTING):
            return False
        return set(self._accepted_filters(req, context)) <= {'all_tenants'}

    def _search_opts(self, req, context, is_detail):
        query = req.GET
        opts = self._accepted_filters(req, context)
        for tag_key in ('tags', 'tags-any', 'not-tags', 'not-tags-any'):
            if tag_key in opts:
                opts[tag_key] = [t for t in opts[tag_key].split(',') if t]

        statuses = query.getall('status')
        if statuses:
            vm_states, task_states = states.task_and_vm_state_from_status(
                statuses)
            if not vm_states and not task_states:
                if microversion.is_supported(req, '2.38'):
                    raise common.bad_request('Invalid status value')
                return None
            opts['vm_state'] = vm_states
            if states.DEFAULT_TASK_STATE not in task_states:
                opts['task_state'] = task_states
            opts.pop('status', None)

        for key in ('changes-since', 'changes-before'):
            if key in opts:
                try:
                    opts[key] = timeutils.normalize_time(
                        timeutils.parse_isotime(opts[key]))
                except ValueError:
                    raise common.bad_request('Invalid filter field: %s.'
                                             % key)
        if 'changes-since' in opts and 'changes-before' in opts and \
                opts['changes-since'] > opts['changes-before']:
            raise common.bad_request(
                'The value of changes-since must be less than or equal '
                'to changes-before.')
        if 'changes-since' in opts or 'changes-before' in opts:
            opts.setdefault('deleted', True)
        elif 'deleted' in opts:
            opts['deleted'] = _bool(opts['deleted'])
            if not opts['deleted']:
                opts.pop('deleted')
        if 'locked' in opts:
            try:
                opts['locked'] = strutils.bool_from_string(opts['locked'],
                                                           strict=True)
            except ValueError:
                raise common.bad_request(
                    'Unrecognized value \'%s\' for parameter locked. '
                    'Expected one of true, false.' % opts['locked'])

        all_tenants = opts.pop('all_tenants', None)
        if all_tenants is not None:
            all_tenants = all_tenants == '' or _bool(all_tenants)
        action = 'detail:get_all_tenants' if is_detail else \
            'index:get_all_tenants'
        if all_tenants:
            context.can(srv_policies.SERVERS % action, target={})
            if 'tenant_id' in opts:
                opts['project_id'] = opts.pop('tenant_id')
        else:
            opts.pop('tenant_id', None)
            if context.project_id:
                opts['project_id'] = context.project_id
            if opts.get('user_id') and \
                    not self._allowed_all_filters(context):
                opts.pop('user_id')
        if 'image' in opts:
            opts['image'] = _ref_id(opts['image'])
        if 'flavor' in opts:
            opts['flavor'] = _ref_id(opts['flavor'])
        return opts

    def _sort(self, req, context):
        keys = req.GET.getall('sort_key')
        dirs = req.GET.getall('sort_dir')
        for key in keys:
            if key not in _SORT_KEYS:
                raise common.bad_request('Invalid sort key %s' % key)
            if key in _ADMIN_ONLY_SORT_KEYS and not context.can(
                    srv_policies.SERVERS % 'allow_all_filters', target={},
                    fatal=False):
                raise common.forbidden(
                    'Only administrators can sort servers by %s' % key)
        for direction in dirs:
            if direction not in ('asc', 'desc'):
                raise common.bad_request('Invalid sort direction %s'
                                         % direction)
        return (keys or ['created_at']), (dirs or ['desc'])

    def _list(self, req, is_detail):
        context = auth.get_context(req)
        action = 'detail' if is_detail else 'index'
        context.can(srv_policies.SERVERS % action, target={
            'project_id': context.project_id})
        opts = self._search_opts(req, context, is_detail)
        limit, marker = common.get_limit_and_marker(req)
        if opts is None:
            return context, [], limit
        sort_keys, sort_dirs = self._sort(req, context)
        try:
            instances = compute_api().get_all(
                context, search_opts=opts, limit=limit, marker=marker,
                expected_attrs=(self._expected_attrs(req) if is_detail
                                else None),
                sort_keys=sort_keys, sort_dirs=sort_dirs,
                cell_down_support=self._cell_down_support(req, context))
        except exception.MarkerNotFound:
            raise common.bad_request('marker [%s] not found' % marker)
        except exception.InvalidInput as exc:
            raise common.bad_request(exc.format_message())
        except exception.FlavorNotFound:
            return context, [], limit
        return context, list(instances), limit

    @staticmethod
    def _expected_attrs(req):
        """What the full server view at this microversion reads."""
        if microversion.is_supported(req, _SYSMETA_SINCE):
            return _EXPECTED_ATTRS + ['system_metadata']
        return _EXPECTED_ATTRS

    @validation.query_schema(schema.list_query_v2102, '2.102')
    @validation.query_schema(schema.list_query_v273, '2.73', '2.101')
    @validation.query_schema(schema.list_query_v266, '2.66', '2.72')
    @validation.query_schema(schema.list_query, '2.1', '2.65')
    def index(self, req):
        _ctx, instances, limit = self._list(req, False)
        return views.index(req, instances, limit)

    @validation.query_schema(schema.list_query_v2102, '2.102')
    @validation.query_schema(schema.list_query_v273, '2.73', '2.101')
    @validation.query_schema(schema.list_query_v266, '2.66', '2.72')
    @validation.query_schema(schema.list_query, '2.1', '2.65')
    def detail(self, req):
        context, instances, limit = self._list(req, True)
        # Nothing more is read for a down cell's servers.
        extras = _Extras(req, context, [
            i for i in instances if not down_cells.is_partial(i)],
            in_list=True)
        items = [views.down_cell_detail(req, i) if down_cells.is_partial(i)
                 else views.show(req, i, context, in_list=True,
                                 **extras.of(i))
                 for i in instances]
        return views.detail(req, items, limit)

    # -- one server ------------------------------------------------------
    @validation.query_schema(schema.show_query_v2102, '2.102')
    @validation.query_schema(schema.show_query, '2.1', '2.101')
    def show(self, req, server_id):
        context = auth.get_context(req)
        instance = get_server(
            req, server_id, self._expected_attrs(req),
            cell_down_support=microversion.is_supported(req, '2.69'))
        context.can(srv_policies.SERVERS % 'show', target={
            'project_id': instance.project_id})
        if down_cells.is_partial(instance):
            spec = (_request_specs(context, [instance.uuid]).get(
                instance.uuid) if microversion.is_supported(req, '2.71')
                else None)
            return {'server': views.down_cell_show(req, instance, context,
                                                   spec)}
        extras = _Extras(req, context, [instance])
        return {'server': views.show(req, instance, context,
                                     **extras.of(instance))}

    @validation.schema(schema.update_v2104, '2.104')
    @validation.schema(schema.update_v294, '2.94', '2.103')
    @validation.schema(schema.update_v290, '2.90', '2.93')
    @validation.schema(schema.update_v219, '2.19', '2.89')
    @validation.schema(schema.update, '2.1', '2.18')
    def update(self, req, server_id, body):
        context = auth.get_context(req)
        instance = get_server(req, server_id, self._expected_attrs(req))
        context.can(srv_policies.SERVERS % 'update', target={
            'project_id': instance.project_id,
            'user_id': instance.user_id})
        values = body['server']
        updates = {}
        if 'name' in values:
            updates['display_name'] = values['name']
        if 'description' in values:
            updates['display_description'] = values['description']
        if 'hostname' in values:
            updates['hostname'] = values['hostname']
        if 'accessIPv4' in values:
            updates['access_ip_v4'] = values['accessIPv4'] or None
        if 'accessIPv6' in values:
            updates['access_ip_v6'] = values['accessIPv6'] or None
        if 'OS-DCF:diskConfig' in values:
            updates['auto_disk_config'] = (
                values['OS-DCF:diskConfig'] == 'AUTO')
        if 'pinned_availability_zone' in values:
            _repin(context, instance, values['pinned_availability_zone'])
        try:
            instance = compute_api().update_instance(context, instance,
                                                     updates)
        except exception.InstanceNotFound as exc:
            raise webob.exc.HTTPNotFound(explanation=exc.format_message())
        full = microversion.is_supported(req, '2.75')
        # The short view shows server groups from 2.71: read the spec.
        extras = (_Extras(req, context, [instance])
                  if microversion.is_supported(req, '2.71') else None)
        return {'server': views.show(
            req, instance, context, full=full,
            **(extras.of(instance) if extras else {}))}

    @resource.response(204)
    def delete(self, req, server_id):
        context = auth.get_context(req)
        instance, mapping = get_server(req, server_id, for_delete=True)
        context.can(srv_policies.SERVERS % 'delete', target={
            'project_id': instance.project_id,
            'user_id': instance.user_id})
        try:
            compute_api().delete(context, instance, mapping=mapping)
        except exception.InstanceNotFound as exc:
            raise webob.exc.HTTPNotFound(explanation=exc.format_message())


def _repin(context, instance, wanted):
    """2.104: the pin lives in the request spec.  None unpins; a server
    may be pinned again only to the zone it is in; asking for the pin it
    has changes nothing."""
    from nova_clone import objects
    try:
        spec = objects.RequestSpec.get_by_instance_uuid(context,
                                                        instance.uuid)
    except exception.RequestSpecNotFound:
        raise common.conflict('Server %s has no request spec to hold an '
                              'availability zone pin.' % instance.uuid)
    pinned = spec.availability_zone
    if wanted == pinned:
        return
    current = getattr(instance, 'availability_zone', None) \
        if instance.obj_attr_is_set('availability_zone') else None
    if wanted is not None and (pinned is not None or wanted != current):
        raise common.conflict(
            'Cannot pin server %(uuid)s to availability zone %(wanted)s: '
            'it is in %(current)s and pinned to %(pinned)s. Unpin it '
            '(null) or pin it to the zone it is in.' % {
                'uuid': instance.uuid, 'wanted': wanted,
                'current': current or 'no zone yet',
                'pinned': pinned or 'none'})
    spec.availability_zone = wanted
    spec.save()


def server_view(req, context, instance, full=True):
    """{'server': view} of one server as show (``full``) or the short
    view of the older PUT and rebuild answers give it."""
    extras = _Extras(req, context, [instance])
    return {'server': views.show(req, instance, context, full=full,
                                 **extras.of(instance))}


class _Extras(object):
    """Data a server view needs beyond the instance, fetched in bulk."""

    def __init__(self, req, context, instances, in_list=False):
        self.req = req
        self.context = context
        self.specs = {}
        self.bdms = {}
        self.host_status = {}
        uuids = [i.uuid for i in instances]
        if not uuids:
            return
        if in_list:
            # Lists show only the pinned AZ and the hints of each spec.
            if microversion.is_supported(req, '2.96'):
                self.specs = _spec_summaries(context, uuids)
        elif microversion.is_supported(req, '2.71'):
            self.specs = _request_specs(context, uuids)
        self.bdms = _volume_bdms(context, instances)
        if microversion.is_supported(req, '2.16') and context.can(
                srv_policies.SERVERS % 'show:host_status', target={},
                fatal=False):
            self.host_status = _host_statuses(context, instances)

    def of(self, instance):
        return {'request_spec': self.specs.get(instance.uuid),
                'bdms': self.bdms.get(instance.uuid),
                'host_status': self.host_status.get(instance.uuid)}


def _request_specs(context, uuids):
    """{uuid: RequestSpec}, read in one API-database query."""
    from nova_clone import objects
    try:
        return objects.RequestSpec.get_by_instance_uuids(context, uuids)
    except Exception:  # noqa - views degrade rather than fail
        LOG.debug('Could not load request specs', exc_info=True)
        return {}


def _spec_summaries(context, uuids):
    """{uuid: namespace of request_spec.LIST_VIEW_FIELDS}, one query."""
    import types

    from nova_clone.objects import request_spec
    try:
        rows = request_spec.list_view_fields(context, uuids)
    except Exception:  # noqa - views degrade rather than fail
        LOG.debug('Could not load request specs', exc_info=True)
        return {}
    return {uuid: types.SimpleNamespace(**fields)
            for uuid, fields in rows.items()}


def _host_statuses(context, instances):
    """{uuid: host_status} with one services query per cell involved."""
    from nova_clone import objects
    host_api = compute_api().host_api
    out = {}
    by_cell = {}
    for instance in instances:
        host = views.attr(instance, 'host')
        if not host:
            out[instance.uuid] = ''
            continue
        ictx = getattr(instance, '_context', None)
        conn = getattr(ictx, 'db_connection', None)
        by_cell.setdefault(id(conn), (ictx, []))[1].append(instance)
    for ictx, members in by_cell.values():
        try:
            services = {s.host: s for s in objects.ServiceList.get_by_binary(
                ictx, 'nova-compute', include_disabled=True)}
        except Exception:  # noqa - unknown rather than failing the view
            services = {}
        for instance in members:
            out[instance.uuid] = host_api.host_status(
                services.get(instance.host))
    return out


def _volume_bdms(context, instances):
    """{uuid: [BDM]} with one query per cell the instances came from."""
    from nova_clone import objects
    groups = {}
    for instance in instances:
        ictx = getattr(instance, '_context', None)
        conn = getattr(ictx, 'db_connection', None)
        if conn is None:
            continue  # still a build request: nothing is attached
        groups.setdefault(id(conn), (ictx, []))[1].append(instance.uuid)
    out = {}
    for ictx, uuids in groups.values():
        try:
            found = objects.BlockDeviceMappingList.bdms_by_instance_uuid(
                ictx, uuids, volumes_only=True)
        except Exception:  # noqa - views degrade rather than fail
            LOG.debug('Could not load block devices', exc_info=True)
            continue
        for uuid, bdms in found.items():
            out[uuid] = list(bdms)
    return out
