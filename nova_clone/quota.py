"""Counting quotas backed by the API database (Nova's DbQuotaDriver).

Limits come from the quotas / project_user_quotas tables, falling back to
the 'default' quota class and then to [quota] options.  Usage is counted,
never reserved: instances from the instance mappings (one query), cores
and RAM with one aggregate query per cell run in parallel.
"""

from oslo_log import log as logging
import sqlalchemy as sa

from nova_clone.conf import CONF
from nova_clone import context as nova_context
from nova_clone.db.api import api as api_db_api
from nova_clone.db.api import models as api_models
from nova_clone import exception

LOG = logging.getLogger(__name__)

DEFAULT_CLASS = 'default'

# Resources with a limit, in the order Nova reports them.
RESOURCES = (
    'instances', 'cores', 'ram', 'metadata_items', 'injected_files',
    'injected_file_content_bytes', 'injected_file_path_length',
    'key_pairs', 'server_groups', 'server_group_members',
)
# Counted per project; key_pairs is counted per user.
COUNTED = ('instances', 'cores', 'ram', 'key_pairs', 'server_groups')
# Resources that only exist in the legacy (<= 2.35) quota views.
LEGACY_NETWORK_RESOURCES = ('floating_ips', 'fixed_ips', 'security_groups',
                            'security_group_rules')


# -- limits -----------------------------------------------------------------

# Precedence of the rows _limit_rows returns: later levels win.
_CLASS, _PROJECT, _USER = 0, 1, 2


# Statements of a boot's quota reads, built once with bind parameters
# (no per-request construction or cache-key computation).
_STATEMENTS = {}


def _limits_statement(with_project, with_user):
    key = ('limits', with_project, with_user)
    stmt = _STATEMENTS.get(key)
    if stmt is not None:
        return stmt
    qc = api_models.QuotaClass
    parts = [sa.select(sa.literal(_CLASS), qc.id, qc.resource,
                       qc.hard_limit).where(qc.class_name == DEFAULT_CLASS)]
    if with_project:
        pq = api_models.Quota
        parts.append(sa.select(sa.literal(_PROJECT), pq.id, pq.resource,
                               pq.hard_limit).where(
            pq.project_id == sa.bindparam('project_id')))
    if with_user:
        uq = api_models.ProjectUserQuota
        parts.append(sa.select(sa.literal(_USER), uq.id, uq.resource,
                               uq.hard_limit).where(
            uq.project_id == sa.bindparam('project_id'),
            uq.user_id == sa.bindparam('user_id')))
    stmt = parts[0] if len(parts) == 1 else sa.union_all(*parts)
    _STATEMENTS[key] = stmt
    return stmt


@api_db_api.context_manager.reader.connection
def _limit_rows(context, project_id=None, user_id=None):
    """(level, id, resource, limit) of the default class, the project and
    the user, in one query: a boot reads them on every request."""
    stmt = _limits_statement(bool(project_id), bool(project_id and user_id))
    params = {'project_id': project_id, 'user_id': user_id}
    return [tuple(row) for row in context.connection.execute(stmt, params)]


def _limits_from(rows):
    limits = {res: getattr(CONF.quota, res) for res in RESOURCES}
    for _level, _id, res, limit in sorted(rows, key=lambda r: r[:2]):
        if res in limits:
            limits[res] = limit
    return limits


@api_db_api.context_manager.reader
def _class_limits(context, class_name):
    rows = context.session.query(api_models.QuotaClass).filter_by(
        class_name=class_name).all()
    return {r.resource: r.hard_limit for r in rows}


def get_defaults(context):
    """{resource: limit} for a project with no quota of its own."""
    return _limits_from(_limit_rows(context))


def get_limits_for(context, project_id, user_id=None):
    """{resource: limit} effective for a project (and user)."""
    return _limits_from(_limit_rows(context, project_id, user_id))


# -- usage ------------------------------------------------------------------

def _instance_count_statement(with_user):
    key = ('instances', with_user)
    stmt = _STATEMENTS.get(key)
    if stmt is None:
        im = api_models.InstanceMapping
        stmt = sa.select(sa.func.count(im.id)).where(
            im.project_id == sa.bindparam('project_id'),
            sa.or_(im.queued_for_delete == sa.false(),
                   im.queued_for_delete.is_(None)))
        if with_user:
            stmt = stmt.where(im.user_id == sa.bindparam('user_id'))
        _STATEMENTS[key] = stmt
    return stmt


@api_db_api.context_manager.reader.connection
def _instance_count(context, project_id, user_id=None):
    stmt = _instance_count_statement(bool(user_id))
    params = {'project_id': project_id}
    if user_id:
        params['user_id'] = user_id
    return context.connection.execute(stmt, params).scalar() or 0


def _cell_usage_statement(with_user):
    key = ('cores_ram', with_user)
    stmt = _STATEMENTS.get(key)
    if stmt is None:
        from nova_clone.db.main import models as main_models
        inst = main_models.Instance
        stmt = sa.select(
            sa.func.coalesce(sa.func.sum(inst.vcpus), 0),
            sa.func.coalesce(sa.func.sum(inst.memory_mb), 0)).where(
            inst.deleted == 0, inst.project_id == sa.bindparam('project_id'),
            sa.or_(inst.vm_state.is_(None),
                   inst.vm_state != 'soft-delete'))
        if with_user:
            stmt = stmt.where(inst.user_id == sa.bindparam('user_id'))
        _STATEMENTS[key] = stmt
    return stmt


def _cell_usage(cctxt, project_id, user_id):
    from nova_clone.db.main import api as main_db_api
    stmt = _cell_usage_statement(bool(user_id))
    params = {'project_id': project_id}
    if user_id:
        params['user_id'] = user_id
    manager = main_db_api.get_context_manager(cctxt)
    with manager.reader.connection.using(cctxt):
        cores, ram = cctxt.connection.execute(stmt, params).one()
    return int(cores or 0), int(ram or 0)


def _cells_to_count(context):
    """The cells that can hold instances (cell0's are never counted)."""
    try:
        cells = nova_context.load_cells(context)
    except Exception:  # noqa - no cells yet means nothing is used
        LOG.debug('No cell mappings to count usage in', exc_info=True)
        return []
    return [c for c in cells if not c.is_cell0()]


def _cores_ram(context, project_id, user_id=None, cells=None):
    if cells is None:
        cells = _cells_to_count(context)
    if not cells:
        return 0, 0
    results = nova_context.scatter_gather_cells(
        context, cells, 60,
        lambda cctxt: _cell_usage(cctxt, project_id, user_id))
    cores = ram = 0
    for result in results.values():
        if nova_context.is_cell_failure_sentinel(result):
            continue
        cores += result[0]
        ram += result[1]
    return cores, ram


@api_db_api.context_manager.reader
def _keypair_count(context, user_id):
    return context.session.query(sa.func.count(api_models.KeyPair.id)).filter(
        api_models.KeyPair.user_id == user_id).scalar() or 0


@api_db_api.context_manager.reader
def _server_group_count(context, project_id):
    return context.session.query(
        sa.func.count(api_models.InstanceGroup.id)).filter(
        api_models.InstanceGroup.project_id == project_id).scalar() or 0


def get_usages(context, project_id, user_id=None):
    """{resource: in_use} for the counted resources."""
    cores, ram = _cores_ram(context, project_id, user_id)
    usages = {
        'instances': _instance_count(context, project_id, user_id),
        'cores': cores,
        'ram': ram,
        'server_groups': _server_group_count(context, project_id),
    }
    if user_id:
        usages['key_pairs'] = _keypair_count(context, user_id)
    else:
        usages['key_pairs'] = 0
    return usages


def get_project_quotas(context, project_id, user_id=None, usages=True):
    """{resource: {'limit': N, 'in_use': N, 'reserved': 0}}."""
    limits = get_limits_for(context, project_id, user_id)
    used = get_usages(context, project_id, user_id) if usages else {}
    out = {}
    for res in RESOURCES:
        entry = {'limit': limits[res]}
        if usages:
            entry['in_use'] = used.get(res, 0)
            entry['reserved'] = 0
        out[res] = entry
    return out


# -- checks -----------------------------------------------------------------

def _headroom(limit, used):
    if limit is None or limit < 0:
        return None
    return max(limit - used, 0)


@api_db_api.context_manager.reader.connection
def _create_check_reads(context, project_id, user_id):
    """Limits, instance count and cells of a boot: one API-DB transaction
    instead of one per read."""
    limits = get_limits_for(context, project_id, user_id)
    return (limits, _instance_count(context, project_id),
            _cells_to_count(context))


def check_server_create(context, flavor, min_count=1, max_count=1,
                        project_id=None, user_id=None):
    """How many servers (between min and max count) fit the quota.

    Raises TooManyInstances with Nova's message when not even
    ``min_count`` fit.
    """
    project_id = project_id or context.project_id
    user_id = user_id or context.user_id
    limits, instances, cells = _create_check_reads(context, project_id,
                                                   user_id)
    cores, ram = _cores_ram(context, project_id, cells=cells)
    used = {'instances': instances, 'cores': cores, 'ram': ram}
    per_server = {'instances': 1, 'cores': flavor.vcpus,
                  'ram': flavor.memory_mb}
    allowed = max_count
    for res in ('instances', 'cores', 'ram'):
        room = _headroom(limits[res], used[res])
        if room is None or not per_server[res]:
            continue
        allowed = min(allowed, room // per_server[res])
    if allowed >= min_count:
        return allowed
    overs = [res for res in ('instances', 'cores', 'ram')
             if limits[res] is not None and limits[res] >= 0 and
             used[res] + per_server[res] * min_count > limits[res]]
    raise exception.TooManyInstances(
        overs=', '.join(overs),
        req=', '.join(str(per_server[r] * min_count) for r in overs),
        used=', '.join(str(used[r]) for r in overs),
        allowed=', '.join(str(limits[r]) for r in overs))


def recheck_server_create(context, flavor, count, project_id=None):
    """After a boot recorded ``count`` servers: raise TooManyInstances
    when the project is now over a limit.

    Its instance mappings already count; its cores and RAM are not in a
    cell yet, so they are added.
    """
    project_id = project_id or context.project_id
    limits, instances, cells = _create_check_reads(context, project_id,
                                                   context.user_id)
    cores, ram = _cores_ram(context, project_id, cells=cells)
    requested = {'instances': count, 'cores': flavor.vcpus * count,
                 'ram': flavor.memory_mb * count}
    before = {'instances': instances - count, 'cores': cores, 'ram': ram}
    overs = [res for res in ('instances', 'cores', 'ram')
             if limits[res] is not None and
             0 <= limits[res] < before[res] + requested[res]]
    if overs:
        raise exception.TooManyInstances(
            overs=', '.join(overs),
            req=', '.join(str(requested[r]) for r in overs),
            used=', '.join(str(before[r]) for r in overs),
            allowed=', '.join(str(limits[r]) for r in overs))


def check_keypairs(context, user_id, count=1):
    limit = get_limits_for(context, context.project_id, user_id)[
        'key_pairs']
    if limit is None or limit < 0:
        return
    if _keypair_count(context, user_id) + count > limit:
        raise exception.KeypairLimitExceeded()


def check_server_groups(context, count=1):
    limit = get_limits_for(context, context.project_id,
                           context.user_id)['server_groups']
    if limit is None or limit < 0:
        return
    if _server_group_count(context, context.project_id) + count > limit:
        raise exception.ServerGroupQuotaExceeded()


def check_server_group_members(context, group, count):
    """Room in ``group`` for ``count`` more of the user's servers."""
    limit = get_limits_for(context, context.project_id,
                           context.user_id)['server_group_members']
    if limit is None or limit < 0:
        return
    if group.count_members_by_user(context.user_id) + count > limit:
        raise exception.GroupMemberQuotaExceeded()


def check_metadata_items(context, metadata):
    """Raises OverQuota when a server has more metadata than allowed."""
    limit = get_limits_for(context, context.project_id)['metadata_items']
    if limit is not None and 0 <= limit < len(metadata or {}):
        raise exception.MetadataLimitExceeded(allowed=limit)


def get_limits(context, project_id=None):
    """Absolute limits and usage, as GET /limits reports them."""
    project_id = project_id or context.project_id
    quotas = get_project_quotas(context, project_id)
    return quotas


# -- updates ----------------------------------------------------------------

@api_db_api.context_manager.writer
def _set_limit(context, project_id, resource, limit, user_id=None):
    if user_id:
        model = api_models.ProjectUserQuota
        row = context.session.query(model).filter_by(
            project_id=project_id, user_id=user_id,
            resource=resource).first()
        if row is None:
            row = model(project_id=project_id, user_id=user_id,
                        resource=resource)
            context.session.add(row)
    else:
        model = api_models.Quota
        row = context.session.query(model).filter_by(
            project_id=project_id, resource=resource).first()
        if row is None:
            row = model(project_id=project_id, resource=resource)
            context.session.add(row)
    row.hard_limit = limit


# A limit is stored in a signed 32-bit column (-1: unlimited).
MAX_LIMIT = 0x7FFFFFFF


def _check_range(values):
    """The schema bounds numbers only; "99999999999" passes it as a
    string, so the range is checked again on the integer."""
    for res, limit in values.items():
        if limit is not None and not -1 <= limit <= MAX_LIMIT:
            raise exception.InvalidQuotaValue(
                'Quota limit %s for %s must be in the range of -1 and %s.'
                % (limit, res, MAX_LIMIT))


def update_quotas(context, project_id, values, user_id=None, force=False):
    """Set limits; unless ``force``, refuse limits below current usage."""
    unknown = set(values) - set(RESOURCES)
    if unknown:
        raise exception.QuotaResourceUnknown(unknown=sorted(unknown))
    _check_range(values)
    if not force:
        used = get_usages(context, project_id, user_id)
        for res, limit in values.items():
            if limit is not None and limit >= 0 and used.get(res, 0) > limit:
                raise exception.InvalidQuotaValue(
                    'Quota limit %s for %s must be greater than or equal '
                    'to already used and reserved %s.'
                    % (limit, res, used[res]))
    for res, limit in values.items():
        _set_limit(context, project_id, res, limit, user_id)


@api_db_api.context_manager.writer
def destroy_all_by_project(context, project_id, user_id=None):
    session = context.session
    session.query(api_models.ProjectUserQuota).filter_by(
        project_id=project_id, **({'user_id': user_id} if user_id else {})
    ).delete(synchronize_session=False)
    if not user_id:
        session.query(api_models.Quota).filter_by(
            project_id=project_id).delete(synchronize_session=False)


# -- quota classes ------------------------------------------------------------

def get_class_quotas(context, class_name):
    """{resource: limit} of a quota class (defaults fill the gaps).

    The legacy network resources limit nothing (Neutron keeps its own
    quotas) but, as in Nova, a class stores what it is given for them
    and shows it before 2.50; unset they read -1.
    """
    limits = {res: getattr(CONF.quota, res) for res in RESOURCES}
    limits.update((res, -1) for res in LEGACY_NETWORK_RESOURCES)
    for res, limit in _class_limits(context, class_name).items():
        if res in limits:
            limits[res] = limit
    return limits


@api_db_api.context_manager.writer
def _set_class_limit(context, class_name, resource, limit):
    model = api_models.QuotaClass
    row = context.session.query(model).filter_by(
        class_name=class_name, resource=resource).first()
    if row is None:
        row = model(class_name=class_name, resource=resource)
        context.session.add(row)
    row.hard_limit = limit


def update_class(context, class_name, values):
    unknown = set(values) - set(RESOURCES) - set(LEGACY_NETWORK_RESOURCES)
    if unknown:
        raise exception.QuotaResourceUnknown(unknown=sorted(unknown))
    _check_range(values)
    for res, limit in values.items():
        _set_class_limit(context, class_name, res, limit)
