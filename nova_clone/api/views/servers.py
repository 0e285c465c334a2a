"""Server views: every key Nova shows, at every microversion."""

import hashlib

from oslo_log import log as logging
from oslo_serialization import jsonutils

from nova_clone.api import microversion
from nova_clone.api.views import common
from nova_clone.compute.api import down_cells
from nova_clone.compute import states
from nova_clone.policies import servers as srv_policies

LOG = logging.getLogger(__name__)

# Statuses for which Nova reports build/move progress.
_PROGRESS_STATUSES = ('ACTIVE', 'BUILD', 'REBUILD', 'RESIZE',
                      'VERIFY_RESIZE', 'MIGRATING')
_FAULT_STATUSES = ('ERROR', 'DELETED')


def attr(instance, name, default=None):
    """An instance attribute, or ``default`` when unset or unloadable."""
    if hasattr(instance, 'obj_attr_is_set') and \
            name not in getattr(instance, 'fields', {}):
        return default
    try:
        value = getattr(instance, name)
    except Exception:  # noqa - lazy loads may fail on build requests
        return default
    return default if value is None else value


def status(instance):
    return states.status_from_state(attr(instance, 'vm_state'),
                                    attr(instance, 'task_state'))


def host_id(instance):
    """Opaque per-project host identifier (sha224 of project + host)."""
    host = attr(instance, 'host')
    if not host:
        return ''
    data = (attr(instance, 'project_id', '') + host).encode('utf-8')
    return hashlib.sha224(data).hexdigest()


def basic(req, instance):
    return {'id': instance.uuid, 'name': attr(instance, 'display_name'),
            'links': common.links(req, 'servers', instance.uuid)}


def _network_info(instance):
    cache = attr(instance, 'info_cache')
    if cache is None:
        return []
    nw_info = attr(cache, 'network_info', []) if not isinstance(
        cache, (list, str)) else cache
    if isinstance(nw_info, str):
        try:
            nw_info = jsonutils.loads(nw_info)
        except ValueError:
            return []
    return nw_info or []


def addresses(instance, network_label=None, extended=True):
    """{label: [{version, addr}]}, with OS-EXT-IPS:type and
    OS-EXT-IPS-MAC:mac_addr when ``extended``."""
    out = {}
    for vif in _network_info(instance):
        network = vif.get('network') or {}
        label = network.get('label')
        if network_label is not None and label != network_label:
            continue
        ips = out.setdefault(label, [])
        for subnet in network.get('subnets') or []:
            for ip in subnet.get('ips') or []:
                ips.append(_address(ip, vif, 'fixed', extended))
                for fip in ip.get('floating_ips') or []:
                    ips.append(_address(fip, vif, 'floating', extended))
    return out


def _address(ip, vif, kind, extended):
    address = ip.get('address')
    version = ip.get('version') or (6 if ':' in (address or '') else 4)
    view = {'version': version, 'addr': address}
    if extended:
        view['OS-EXT-IPS:type'] = ip.get('type') or kind
        view['OS-EXT-IPS-MAC:mac_addr'] = vif.get('address')
    return view


def _flavor(req, instance, context):
    flavor = attr(instance, 'flavor')
    if microversion.is_supported(req, '2.47'):
        if flavor is None:
            return {}
        view = {'vcpus': flavor.vcpus, 'ram': flavor.memory_mb,
                'disk': flavor.root_gb, 'ephemeral': flavor.ephemeral_gb,
                'swap': flavor.swap, 'original_name': flavor.name}
        if context.can(srv_policies.SERVERS % 'show:flavor-extra-specs',
                       target={'project_id': attr(instance, 'project_id')},
                       fatal=False):
            view['extra_specs'] = dict(attr(flavor, 'extra_specs', {}))
        return view
    flavor_id = attr(flavor, 'flavorid', '') if flavor else ''
    base = common.base_url(req)
    bookmark = common.project_prefix(req).replace('/v2.1', '', 1)
    return {'id': flavor_id, 'links': [{
        'rel': 'bookmark',
        'href': '%s%s/flavors/%s' % (base, bookmark, flavor_id)}]}


def _image(req, instance):
    image_ref = attr(instance, 'image_ref')
    if not image_ref:
        return ''
    base = common.base_url(req)
    bookmark = common.project_prefix(req).replace('/v2.1', '', 1)
    view = {'id': image_ref, 'links': [{
        'rel': 'bookmark',
        'href': '%s%s/images/%s' % (base, bookmark, image_ref)}]}
    if microversion.is_supported(req, '2.98'):
        props = {}
        for key, value in (attr(instance, 'system_metadata', {}) or
                           {}).items():
            if key.startswith('image_') and key[6:] not in (
                    'base_image_ref', 'min_disk', 'min_ram', 'disk_format',
                    'container_format', 'owner_specified.openstack.md5',
                    'owner_specified.openstack.object',
                    'owner_specified.openstack.sha256'):
                props[key[6:]] = value
        view['properties'] = props
    return view


def _fault(req, instance, context):
    fault = attr(instance, 'fault')
    if fault is None:
        return None
    view = {'code': attr(fault, 'code'), 'created': common.isotime(
        attr(fault, 'created_at')), 'message': attr(fault, 'message')}
    details = attr(fault, 'details')
    if details and (context.is_admin or attr(fault, 'code') != 500):
        view['details'] = details
    return view


def _volumes(req, instance, bdms):
    out = []
    for bdm in bdms or []:
        volume_id = attr(bdm, 'volume_id')
        if not volume_id:
            continue
        item = {'id': volume_id}
        if microversion.is_supported(req, '2.3'):
            item['delete_on_termination'] = bool(
                attr(bdm, 'delete_on_termination', False))
        out.append(item)
    return out


def _security_groups(instance):
    groups = attr(instance, 'security_groups')
    if groups is None:
        return [{'name': 'default'}]
    names = []
    for group in groups:
        if isinstance(group, str):
            name = group
        elif isinstance(group, dict):
            name = group.get('name')
        else:
            name = attr(group, 'name')
        if name:
            names.append({'name': name})
    return names


def _locked_reason(instance):
    if not attr(instance, 'locked'):
        return None
    sysmeta = attr(instance, 'system_metadata', {}) or {}
    return sysmeta.get('locked_reason')


def _tags(instance):
    tags = attr(instance, 'tags')
    return [attr(t, 'tag', t) for t in (tags or [])]


def _server_groups(spec):
    group = attr(spec, 'instance_group') if spec is not None else None
    group_uuid = attr(group, 'uuid') if group is not None else None
    return [group_uuid] if group_uuid else []


def show(req, instance, context, request_spec=None, bdms=None,
         full=True, host_status=None, in_list=False):
    """The full server view (GET /servers/{id}); ``full`` False gives the
    short view PUT answered with before 2.75."""
    server_status = status(instance)
    view = {
        'id': instance.uuid,
        'name': attr(instance, 'display_name'),
        'status': server_status,
        'tenant_id': attr(instance, 'project_id'),
        'user_id': attr(instance, 'user_id'),
        'metadata': dict(attr(instance, 'metadata', {}) or {}),
        'hostId': host_id(instance),
        'image': _image(req, instance),
        'flavor': _flavor(req, instance, context),
        'created': common.isotime(attr(instance, 'created_at')),
        'updated': common.isotime(attr(instance, 'updated_at') or
                                  attr(instance, 'created_at')),
        # The short view's addresses lack the type and MAC, as Nova's.
        'addresses': addresses(instance, extended=full),
        'accessIPv4': str(attr(instance, 'access_ip_v4', '') or ''),
        'accessIPv6': str(attr(instance, 'access_ip_v6', '') or ''),
        'links': common.links(req, 'servers', instance.uuid),
        'OS-DCF:diskConfig': ('AUTO' if attr(instance, 'auto_disk_config')
                              else 'MANUAL'),
    }
    if server_status in _PROGRESS_STATUSES:
        view['progress'] = attr(instance, 'progress', 0) or 0
    if server_status in _FAULT_STATUSES:
        fault = _fault(req, instance, context)
        if fault:
            view['fault'] = fault
    # The short view (PUT before 2.75) has these too.
    if microversion.is_supported(req, '2.9'):
        view['locked'] = bool(attr(instance, 'locked', False))
    if microversion.is_supported(req, '2.73'):
        view['locked_reason'] = _locked_reason(instance)
    if microversion.is_supported(req, '2.19'):
        view['description'] = attr(instance, 'display_description')
    if microversion.is_supported(req, '2.26'):
        view['tags'] = _tags(instance)
    if microversion.is_supported(req, '2.63'):
        certs = attr(instance, 'trusted_certs')
        view['trusted_image_certificates'] = (
            list(attr(certs, 'ids', [])) if certs else None)
    spec = request_spec
    # Server groups are shown by show/update/rebuild, never in lists.
    if microversion.is_supported(req, '2.71') and not in_list:
        view['server_groups'] = _server_groups(spec)
    if not full:
        return view

    target = {'project_id': attr(instance, 'project_id')}
    view['OS-EXT-AZ:availability_zone'] = attr(
        instance, 'availability_zone', '') or ''
    view['config_drive'] = attr(instance, 'config_drive', '') or ''
    view['key_name'] = attr(instance, 'key_name')
    # A server in no group at all shows no key, as Nova's.
    groups = _security_groups(instance)
    if groups:
        view['security_groups'] = groups
    view['OS-EXT-STS:task_state'] = attr(instance, 'task_state')
    view['OS-EXT-STS:vm_state'] = attr(instance, 'vm_state')
    view['OS-EXT-STS:power_state'] = attr(instance, 'power_state', 0)
    view['OS-SRV-USG:launched_at'] = _dbtime(attr(instance, 'launched_at'))
    view['OS-SRV-USG:terminated_at'] = _dbtime(
        attr(instance, 'terminated_at'))
    view['os-extended-volumes:volumes_attached'] = _volumes(req, instance,
                                                            bdms)
    if context.can(srv_policies.EXTENDED_ATTRS, target=target, fatal=False):
        view['OS-EXT-SRV-ATTR:host'] = attr(instance, 'host')
        view['OS-EXT-SRV-ATTR:hypervisor_hostname'] = attr(instance, 'node')
        view['OS-EXT-SRV-ATTR:instance_name'] = _instance_name(instance)
        if microversion.is_supported(req, '2.3'):
            view['OS-EXT-SRV-ATTR:reservation_id'] = attr(
                instance, 'reservation_id')
            view['OS-EXT-SRV-ATTR:launch_index'] = attr(
                instance, 'launch_index', 0)
            view['OS-EXT-SRV-ATTR:kernel_id'] = attr(instance, 'kernel_id',
                                                     '')
            view['OS-EXT-SRV-ATTR:ramdisk_id'] = attr(instance,
                                                      'ramdisk_id', '')
            view['OS-EXT-SRV-ATTR:hostname'] = attr(instance, 'hostname')
            view['OS-EXT-SRV-ATTR:root_device_name'] = attr(
                instance, 'root_device_name')
            view['OS-EXT-SRV-ATTR:user_data'] = attr(instance, 'user_data')
    if microversion.is_supported(req, '2.90'):
        view['OS-EXT-SRV-ATTR:hostname'] = attr(instance, 'hostname')
    if microversion.is_supported(req, '2.16') and host_status is not None:
        view['host_status'] = host_status
    if microversion.is_supported(req, '2.96'):
        view['pinned_availability_zone'] = (
            attr(spec, 'availability_zone') if spec is not None else None)
    if microversion.is_supported(req, '2.100'):
        hints = attr(spec, 'scheduler_hints') if spec is not None else None
        view['scheduler_hints'] = dict(hints or {})
    return view


def _instance_name(instance):
    from nova_clone.conf import CONF
    name = attr(instance, 'name')
    if name:
        return name
    instance_id = attr(instance, 'id')
    if instance_id is None:
        return ''
    try:
        return CONF.instance_name_template % instance_id
    except (TypeError, ValueError):
        return ''


def _dbtime(value):
    # Nova prints launched_at/terminated_at as naive ISO strings.
    if value is None:
        return None
    return value.replace(tzinfo=None).isoformat()


def create(req, instance, admin_password=None):
    view = {
        'id': instance.uuid,
        'links': common.links(req, 'servers', instance.uuid),
        'OS-DCF:diskConfig': ('AUTO' if attr(instance, 'auto_disk_config')
                              else 'MANUAL'),
        'security_groups': _security_groups(instance),
    }
    if admin_password is not None:
        view['adminPass'] = admin_password
    return {'server': view}


# -- servers of a cell that did not answer (2.69) ----------------------------
# Only what the API database holds, status UNKNOWN; no view reads more
# from such an instance (down_cells.is_partial).

def down_cell_summary(req, instance):
    """The item of GET /servers."""
    return {'id': instance.uuid, 'status': 'UNKNOWN',
            'links': common.links(req, 'servers', instance.uuid)}


def down_cell_detail(req, instance):
    """The item of GET /servers/detail: its mapping's data."""
    view = down_cell_summary(req, instance)
    view['created'] = common.isotime(attr(instance, 'created_at'))
    view['tenant_id'] = attr(instance, 'project_id')
    return view


def down_cell_show(req, instance, context, request_spec=None):
    """GET /servers/{id}: also what its request spec holds."""
    view = down_cell_detail(req, instance)
    view['image'] = _image(req, instance)
    view['flavor'] = _flavor(req, instance, context)
    # A zone the user did not ask for is not known without the cell.
    view['OS-EXT-AZ:availability_zone'] = attr(
        instance, 'availability_zone') or 'UNKNOWN'
    view['OS-EXT-STS:power_state'] = attr(instance, 'power_state', 0)
    view['user_id'] = attr(instance, 'user_id') or 'UNKNOWN'
    if microversion.is_supported(req, '2.71'):
        view['server_groups'] = _server_groups(request_spec)
    return view


def index(req, instances, limit=None):
    items = [down_cell_summary(req, i) if down_cells.is_partial(i)
             else basic(req, i) for i in instances]
    return _collection(req, items, limit)


def detail(req, views, limit=None):
    return _collection(req, views, limit)


def _collection(req, items, limit):
    body = {'servers': items}
    links = common.next_link(req, 'servers' if not req.path_info.rstrip(
        '/').endswith('/detail') else 'servers/detail', items, limit)
    if links:
        body['servers_links'] = links
    return body
