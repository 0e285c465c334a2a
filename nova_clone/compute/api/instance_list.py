"""Finding servers: one from its mapping, many from build requests + cells.

A list is answered with one query for the build requests and one query
per cell, run in parallel (scatter-gather with a timeout); the rows are
merged in memory by the requested sort keys.  Nothing is fetched per
server, from any database or service.

A cell that does not answer is left out of a list, or fails it
(``[api] list_records_by_skipping_down_cells``); when the caller takes
partial records (2.69) its servers are listed, and shown, from the API
database instead (``down_cells``).
"""

import functools
import re

from oslo_log import log as logging

from nova_clone.compute.api import down_cells
from nova_clone.conf import CONF
from nova_clone import context as nova_context
from nova_clone import exception

LOG = logging.getLogger(__name__)

CELL_TIMEOUT = 60
DEFAULT_SORT_KEYS = ['created_at']
DEFAULT_SORT_DIRS = ['desc']


def _objects():
    from nova_clone import objects
    return objects


# Detail views always show these; loading them with the rows keeps the
# number of queries fixed instead of one lazy load per server.
VIEW_ATTRS = ('security_groups',)


def _with_view_attrs(expected_attrs):
    if expected_attrs is None:
        return None
    return list(expected_attrs) + [a for a in VIEW_ATTRS
                                   if a not in expected_attrs]


def get_one(context, uuid, expected_attrs=None, cell_down_support=False):
    """The instance from its cell, or from its build request.

    ``cell_down_support``: a minimal instance (down_cells.shown_instance)
    when its cell does not answer, instead of failing.
    """
    return get_one_and_mapping(context, uuid,
                               _with_view_attrs(expected_attrs),
                               cell_down_support)[0]


def get_mapping(context, uuid):
    """The instance's InstanceMapping; InstanceNotFound without one."""
    try:
        return _objects().InstanceMapping.get_by_instance_uuid(context, uuid)
    except exception.InstanceMappingNotFound:
        raise exception.InstanceNotFound(instance_id=uuid)


def get_scheduled_mapping(context, uuid):
    """The mapping read again when the build request was gone: the
    conductor has just put the instance in a cell, or it was deleted."""
    mapping = get_mapping(context, uuid)
    if mapping.cell_mapping is None:
        raise exception.InstanceNotFound(instance_id=uuid)
    return mapping


def get_one_and_mapping(context, uuid, expected_attrs=None,
                        cell_down_support=False):
    """(instance, its InstanceMapping) with exactly ``expected_attrs``;
    the mapping's cell is None for a build request's instance."""
    objects = _objects()
    mapping = get_mapping(context, uuid)
    if mapping.cell_mapping is None:
        try:
            return objects.BuildRequest.get_by_instance_uuid(
                context, uuid).instance, mapping
        except exception.BuildRequestNotFound:
            mapping = get_scheduled_mapping(context, uuid)
    return _from_cell(context, mapping, expected_attrs,
                      cell_down_support), mapping


def _from_cell(context, mapping, expected_attrs, cell_down_support):
    cell = mapping.cell_mapping
    with nova_context.target_cell(context, cell) as cctxt:
        try:
            return _objects().Instance.get_by_uuid(
                cctxt, mapping.instance_uuid, expected_attrs=expected_attrs)
        except exception.InstanceNotFound:
            raise
        except Exception:  # noqa - whatever the cell's failure, as Nova
            LOG.warning('Cell %s failed to read instance %s', cell.uuid,
                        mapping.instance_uuid, exc_info=True)
    if cell_down_support:
        return down_cells.shown_instance(context, mapping)
    raise exception.NovaException(
        'Cell %s is not responding or returned an exception, hence '
        'instance info is not available.' % cell.uuid)


def _value(instance, key):
    if key in getattr(instance, 'fields', {}) and \
            not instance.obj_attr_is_set(key):
        return None
    return getattr(instance, key, None)


def _compare(keys, dirs):
    def cmp(a, b):
        for key, direction in zip(keys, dirs):
            va, vb = _value(a, key), _value(b, key)
            if va == vb:
                continue
            # None sorts first ascending, as SQL NULLs do in MySQL.
            if va is None:
                result = -1
            elif vb is None:
                result = 1
            else:
                try:
                    result = -1 if va < vb else 1
                except TypeError:
                    result = -1 if str(va) < str(vb) else 1
            return result if direction == 'asc' else -result
        return 0
    return cmp


def _normalize_sort(sort_keys, sort_dirs):
    keys = list(sort_keys or DEFAULT_SORT_KEYS)
    dirs = list(sort_dirs or [])
    while len(dirs) < len(keys):
        dirs.append(dirs[-1] if dirs else DEFAULT_SORT_DIRS[0])
    # A unique last key makes the merged order, and so paging, stable.
    if 'uuid' not in keys:
        keys.append('uuid')
        dirs.append(dirs[0])
    return keys, dirs


def _cells(context, filters):
    objects = _objects()
    project = filters.get('project_id')
    if project and CONF.api.instance_list_per_project_cells:
        return list(objects.CellMappingList.get_by_project_id(context,
                                                               project))
    return nova_context.load_cells(context)


def _use_flavor_id(context, filters):
    """The API filters by flavorid; rows carry the flavor's internal id.
    An unknown flavor raises FlavorNotFound: the list is empty."""
    if 'flavor' in filters:
        flavor = _objects().Flavor.get_by_flavor_id(context,
                                                    filters.pop('flavor'))
        filters['instance_type_id'] = flavor.id


def _address_matcher(filters):
    """A test for the ``ip``/``ip6`` filters, or None.

    As in Nova each is a regular expression matched at the start of the
    server's fixed addresses of that IP version ("10.0.0.1" also matches
    10.0.0.12).  Addresses live in the info cache, so the test runs on
    the rows the cells return.
    """
    patterns = {}
    for key, version in (('ip', 4), ('ip6', 6)):
        if key not in filters:
            continue
        value = str(filters.pop(key))
        try:
            patterns[version] = re.compile(value)
        except re.error as exc:
            raise exception.InvalidInput(
                reason='Invalid %s filter %r: %s' % (key, value, exc))
    if not patterns:
        return None

    def matches(instance):
        for ip in instance.get_network_info().fixed_ips():
            address = ip.get('address')
            version = ip.get('version') or (6 if ':' in (address or '')
                                            else 4)
            pattern = patterns.get(version)
            if address and pattern is not None and pattern.match(address):
                return True
        return False
    return matches


def get_all(context, filters, limit=None, marker=None, expected_attrs=None,
            sort_keys=None, sort_dirs=None, cell_down_support=False):
    """Build requests, then the cells' rows merged by the sort keys.

    ``cell_down_support`` (2.69, no paging, sorting or filters but the
    project): the servers of a cell that does not answer come first as
    minimal instances of ``filters['project_id']`` (every project when
    unset), whatever list_records_by_skipping_down_cells says.
    """
    objects = _objects()
    filters = dict(filters)
    _use_flavor_id(context, filters)
    address_matches = _address_matcher(filters)
    expected_attrs = _with_view_attrs(expected_attrs)
    if address_matches is not None:
        # Read with the rows, not one lazy load per server.
        expected_attrs = list(expected_attrs or [])
        if 'info_cache' not in expected_attrs:
            expected_attrs.append('info_cache')
    keys, dirs = _normalize_sort(sort_keys, sort_dirs)
    cmp = _compare(keys, dirs)

    # 1. Build requests (not yet scheduled): newest work comes first.
    # Read before the cells are asked, so a server that leaves its build
    # request meanwhile is found in its cell.
    from nova_clone.db.api import api as api_db
    build_marker_found = False
    with api_db.context_manager.reader.connection.using(context):
        try:
            brs = objects.BuildRequestList.get_by_filters(
                context, filters, limit=limit, marker=marker,
                sort_keys=keys[:-1] or None, sort_dirs=dirs[:-1] or None)
            build_marker_found = marker is not None
        except exception.MarkerNotFound:
            brs = []
        cells = _cells(context, filters)
    if address_matches is not None:
        # No address before a host is picked: no build request matches.
        brs = []
    result = [br.instance for br in brs]
    if limit is not None and len(result) >= limit:
        return objects.InstanceList(objects=result[:limit])
    remaining = None if limit is None else limit - len(result)
    if build_marker_found:
        marker = None
    seen = {i.uuid for i in result}

    # 2. Where the marker lives, when it is not a build request.
    marker_cell, marker_obj = None, None
    if marker is not None:
        try:
            mapping = objects.InstanceMapping.get_by_instance_uuid(context,
                                                                   marker)
        except exception.InstanceMappingNotFound:
            raise exception.MarkerNotFound(marker=marker)
        if mapping.cell_mapping is None:
            raise exception.MarkerNotFound(marker=marker)
        marker_cell = mapping.cell_mapping.uuid
        mctxt = context.elevated(read_deleted='yes')
        with nova_context.target_cell(mctxt, mapping.cell_mapping) as cctxt:
            try:
                marker_obj = objects.Instance.get_by_uuid(cctxt, marker)
            except exception.InstanceNotFound:
                raise exception.MarkerNotFound(marker=marker)

    # 3. One query per cell, all cells at once.
    qctxt = context
    if filters.get('deleted'):
        qctxt = context.elevated(read_deleted='yes') if context.is_admin \
            else context

    def query(cctxt, cell_uuid):
        # The address test runs after the query: the limit, after it.
        cell_limit = remaining if address_matches is None else None
        cell_marker = None
        if marker_obj is not None:
            if cell_uuid == marker_cell:
                cell_marker = marker
            else:
                cell_limit = None  # rows before the marker are dropped below
        return objects.InstanceList.get_by_filters(
            cctxt, filters, sort_keys=keys, sort_dirs=dirs, limit=cell_limit,
            marker=cell_marker, expected_attrs=expected_attrs)

    answers = {}
    if cells:
        answers = nova_context.scatter_gather_cells(
            qctxt, cells, CELL_TIMEOUT,
            lambda cctxt: query(cctxt, cctxt.cell_uuid))
    rows = []
    down = []
    for cell in cells:
        answer = answers.get(cell.uuid)
        if nova_context.is_cell_failure_sentinel(answer):
            if isinstance(answer, exception.MarkerNotFound):
                raise answer
            if cell_down_support:
                down.append(cell.uuid)
                continue
            if not CONF.api.list_records_by_skipping_down_cells:
                raise exception.NovaException(
                    'Cell %s is not responding and the configuration says '
                    'to fail the list' % cell.uuid)
            LOG.warning('Cell %s did not answer the server list; its '
                        'servers are left out', cell.uuid)
            continue
        for inst in answer or []:
            if inst.uuid in seen:
                continue
            if marker_obj is not None and cell.uuid != marker_cell and \
                    cmp(inst, marker_obj) <= 0:
                continue
            if address_matches is not None and \
                    not address_matches(inst):
                continue
            rows.append(inst)
    rows.sort(key=functools.cmp_to_key(cmp))
    if remaining is not None:
        rows = rows[:remaining]
    found = result + rows
    if down:
        # First, as Nova puts them; the page's limit counts them too.
        found = down_cells.listed_instances(
            context, down, filters.get('project_id'),
            None if limit is None else limit - len(found)) + found
    return objects.InstanceList(objects=found)
