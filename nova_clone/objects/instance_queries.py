"""SQL behind Instance and InstanceList.

Listing loads the instances with one query and each requested extra
(metadata, system metadata, info cache, security groups, flavors and key
pairs, tags, faults) with one more IN query, so a page costs the same
number of statements whatever its size.
"""

import functools

from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import utils as sqlalchemyutils
from oslo_utils import timeutils
import sqlalchemy as sa

from nova_clone.db.main import api as main_db_api
from nova_clone.db.main import models
from nova_clone.db.main import queries
from nova_clone import exception

# Extras that live in other tables; everything else is a column.
EXTRAS = ('metadata', 'system_metadata', 'info_cache', 'security_groups',
          'fault', 'flavor', 'old_flavor', 'new_flavor', 'tags', 'keypairs')
# Extras stored as JSON in instance_extra, and their column there.
EXTRA_COLUMNS = {'flavor': 'flavor', 'old_flavor': 'flavor',
                 'new_flavor': 'flavor', 'keypairs': 'keypairs'}

# Filters matched exactly (a list means "any of"); other column filters
# are regular expressions, as in Nova.
EXACT_FILTERS = ('project_id', 'user_id', 'image_ref', 'vm_state',
                 'instance_type_id', 'uuid', 'host', 'task_state', 'locked',
                 'hidden')
# Filters understood here that are not plain columns.
SPECIAL_FILTERS = ('deleted', 'soft_deleted', 'changes-since',
                   'changes-before', 'tags', 'tags-any', 'not-tags',
                   'not-tags-any', 'metadata', 'system_metadata', 'name',
                   'image', 'flavor', 'ip', 'ip6', 'cleaned')
SORT_KEY_ALIASES = {'name': 'display_name'}

SOFT_DELETED = 'soft-delete'


def _column_filter(column, value):
    if isinstance(value, (list, tuple, set)):
        values = list(value)
        clause = column.in_([v for v in values if v is not None])
        if None in values:
            clause = sa.or_(clause, column.is_(None))
        return clause
    if value is None:
        return column.is_(None)
    return column == value


def _kv_filter(model, value):
    """Instances having every given key/value pair (metadata filters)."""
    pairs = []
    items = value if isinstance(value, list) else [value]
    for item in items:
        pairs.extend(item.items())
    clauses = []
    for key, val in pairs:
        sub = sa.select(model.instance_uuid).where(
            model.key == key, model.value == str(val), model.deleted == 0)
        clauses.append(models.Instance.uuid.in_(sub))
    return clauses


def _tags_match(tags, any_of):
    tags = [t for t in (tags if isinstance(tags, list) else
                        str(tags).split(',')) if t]
    if not tags:
        return None
    sub = sa.select(models.Tag.resource_id).where(models.Tag.tag.in_(tags))
    if not any_of:
        sub = sub.group_by(models.Tag.resource_id).having(
            sa.func.count(sa.distinct(models.Tag.tag)) == len(set(tags)))
    return models.Instance.uuid.in_(sub)


def build_filters(context, query, filters):
    inst = models.Instance
    filters = dict(filters)
    if not getattr(context, 'is_admin', False):
        # Ordinary users see their project's servers only, as in Nova.
        if context.project_id:
            filters['project_id'] = context.project_id
        else:
            filters['user_id'] = context.user_id

    if 'deleted' in filters:
        deleted = filters.pop('deleted')
        soft_deleted = filters.pop('soft_deleted', None)
        if deleted:
            if soft_deleted is None or soft_deleted:
                query = query.filter(sa.or_(inst.deleted != 0,
                                            inst.vm_state == SOFT_DELETED))
            else:
                query = query.filter(inst.deleted != 0)
        else:
            query = query.filter(inst.deleted == 0)
            if not soft_deleted:
                query = query.filter(sa.or_(inst.vm_state != SOFT_DELETED,
                                            inst.vm_state.is_(None)))
    else:
        filters.pop('soft_deleted', None)
        read_deleted = getattr(context, 'read_deleted', 'no')
        if read_deleted == 'no':
            query = query.filter(inst.deleted == 0)
        elif read_deleted == 'only':
            query = query.filter(inst.deleted != 0)

    for key, column in (('changes-since', inst.updated_at.__ge__),
                        ('changes-before', inst.updated_at.__le__)):
        value = filters.pop(key, None)
        if value:
            if isinstance(value, str):
                value = timeutils.parse_isotime(value)
            query = query.filter(column(timeutils.normalize_time(value)))

    if 'cleaned' in filters:
        query = query.filter(inst.cleaned == (1 if filters.pop('cleaned')
                                              else 0))
    for key, any_of, negate in (('tags', False, False),
                                ('tags-any', True, False),
                                ('not-tags', False, True),
                                ('not-tags-any', True, True)):
        if key in filters:
            clause = _tags_match(filters.pop(key), any_of)
            if clause is not None:
                query = query.filter(~clause if negate else clause)
    if 'metadata' in filters:
        for clause in _kv_filter(models.InstanceMetadata,
                                 filters.pop('metadata')):
            query = query.filter(clause)
    if 'system_metadata' in filters:
        for clause in _kv_filter(models.InstanceSystemMetadata,
                                 filters.pop('system_metadata')):
            query = query.filter(clause)
    # Friendly names the API layer may pass through.
    if 'image' in filters:
        filters.setdefault('image_ref', filters.pop('image'))
    if 'flavor' in filters:
        filters.setdefault('instance_type_id', filters.pop('flavor'))
    if 'name' in filters:
        filters.setdefault('display_name', filters.pop('name'))
    # Addresses live in the info cache; the API filters them itself.
    filters.pop('ip', None)
    filters.pop('ip6', None)

    for key in EXACT_FILTERS:
        if key in filters:
            query = query.filter(_column_filter(getattr(inst, key),
                                                filters.pop(key)))

    for key, value in filters.items():
        column = inst.__table__.columns.get(key)
        if column is None:
            continue
        if value is None:
            query = query.filter(column.is_(None))
            continue
        if isinstance(value, (list, tuple, set)):
            query = query.filter(_column_filter(column, value))
            continue
        query = query.filter(column.op('REGEXP')(str(value)))
    return query


def _sort(sort_keys, sort_dirs, sort_key, sort_dir):
    if sort_keys is None:
        sort_keys = [sort_key or 'created_at']
        sort_dirs = [sort_dir or 'desc']
    sort_keys = [SORT_KEY_ALIASES.get(k, k) for k in sort_keys]
    sort_dirs = list(sort_dirs or [])
    default_dir = sort_dirs[0] if sort_dirs else 'desc'
    while len(sort_dirs) < len(sort_keys):
        sort_dirs.append(default_dir)
    for key, direction in zip(sort_keys, sort_dirs):
        if key not in models.Instance.__table__.columns:
            raise exception.InvalidInput(reason='Invalid sort key %s' % key)
        if direction not in ('asc', 'desc'):
            raise exception.InvalidInput(
                reason='Invalid sort direction %s' % direction)
    # A unique key last makes paging stable.
    for key in ('created_at', 'id'):
        if key not in sort_keys:
            sort_keys.append(key)
            sort_dirs.append(default_dir)
    return sort_keys, sort_dirs


@main_db_api.pick_context_manager_reader
def instance_get_all_by_filters(context, filters, sort_key=None,
                                sort_dir=None, limit=None, marker=None,
                                columns_to_join=(), sort_keys=None,
                                sort_dirs=None):
    if limit == 0:
        return []
    sort_keys, sort_dirs = _sort(sort_keys, sort_dirs, sort_key, sort_dir)
    query = build_filters(context, context.session.query(models.Instance),
                          filters)
    marker_row = None
    if marker is not None:
        marker_row = context.session.query(models.Instance).filter_by(
            uuid=marker).first()
        if marker_row is None:
            raise exception.MarkerNotFound(marker=marker)
    query = sqlalchemyutils.paginate_query(
        query, models.Instance, limit, sort_keys, marker=marker_row,
        sort_dirs=sort_dirs)
    rows = query.all()
    return load_extras(context, rows, columns_to_join)


def load_extras(context, rows, columns_to_join):
    """[(row, extras)] with each requested extra loaded by one query.

    Core selects of the columns needed: no ORM objects to build.
    """
    wanted = set(columns_to_join or ())
    uuids = [row.uuid for row in rows]
    extras = {uuid: {} for uuid in uuids}
    if not uuids:
        return []
    run = context.session.execute
    if 'metadata' in wanted:
        _load_kv(context, models.InstanceMetadata, uuids, extras, 'metadata')
    if 'system_metadata' in wanted:
        _load_kv(context, models.InstanceSystemMetadata, uuids, extras,
                 'system_metadata')
    if 'info_cache' in wanted:
        cache = models.InstanceInfoCache.__table__
        for chunk in queries.chunks(uuids):
            for uuid, network_info in run(sa.select(
                    cache.c.instance_uuid, cache.c.network_info).where(
                    cache.c.instance_uuid.in_(chunk))):
                extras[uuid]['info_cache'] = network_info
    if 'security_groups' in wanted:
        sga = models.SecurityGroupInstanceAssociation.__table__
        sg = models.SecurityGroup.__table__
        for uuid in uuids:
            extras[uuid]['security_groups'] = []
        for chunk in queries.chunks(uuids):
            for uuid, name in run(sa.select(sga.c.instance_uuid, sg.c.name)
                                  .join(sg, sg.c.id == sga.c.security_group_id)
                                  .where(sga.c.instance_uuid.in_(chunk),
                                         sga.c.deleted == 0,
                                         sg.c.deleted == 0)
                                  .order_by(sga.c.id)):
                extras[uuid]['security_groups'].append(name)
    extra_cols = {EXTRA_COLUMNS[x] for x in wanted if x in EXTRA_COLUMNS}
    if extra_cols:
        ie = models.InstanceExtra.__table__
        cols = sorted(extra_cols)
        for chunk in queries.chunks(uuids):
            for row in run(sa.select(ie.c.instance_uuid,
                                     *[ie.c[c] for c in cols]).where(
                    ie.c.instance_uuid.in_(chunk))):
                extras[row[0]]['extra'] = dict(zip(cols, row[1:]))
    if 'tags' in wanted:
        tag = models.Tag.__table__
        for uuid in uuids:
            extras[uuid]['tags'] = []
        for chunk in queries.chunks(uuids):
            for uuid, name in run(sa.select(tag.c.resource_id, tag.c.tag)
                                  .where(tag.c.resource_id.in_(chunk))
                                  .order_by(tag.c.tag)):
                extras[uuid]['tags'].append({'resource_id': uuid,
                                             'tag': name})
    if 'fault' in wanted:
        for chunk in queries.chunks(uuids):
            for row in context.session.query(models.InstanceFault).filter(
                    models.InstanceFault.instance_uuid.in_(chunk),
                    models.InstanceFault.deleted == 0).order_by(
                    models.InstanceFault.created_at.desc(),
                    models.InstanceFault.id.desc()):
                extras[row.instance_uuid].setdefault('fault', row)
    return [(row, extras[row.uuid]) for row in rows]


def _load_kv(context, model, uuids, extras, name):
    table = model.__table__
    for uuid in uuids:
        extras[uuid][name] = {}
    for chunk in queries.chunks(uuids):
        for uuid, key, value in context.session.execute(sa.select(
                table.c.instance_uuid, table.c.key, table.c.value).where(
                table.c.instance_uuid.in_(chunk), table.c.deleted == 0)):
            extras[uuid][name][key] = value


def _get_row(context, *where):
    table = models.Instance.__table__
    return context.session.execute(sa.select(table).where(
        *where, *queries.read_deleted_clauses(context, table))).first()


@main_db_api.pick_context_manager_reader
def instance_get_by_uuid(context, uuid, columns_to_join=()):
    table = models.Instance.__table__
    where = [table.c.uuid == uuid]
    if not getattr(context, 'is_admin', False) and context.project_id:
        where.append(table.c.project_id == context.project_id)
    row = _get_row(context, *where)
    if row is None:
        raise exception.InstanceNotFound(instance_id=uuid)
    return load_extras(context, [row], columns_to_join)[0]


@main_db_api.pick_context_manager_reader
def instance_get(context, instance_id, columns_to_join=()):
    row = _get_row(context, models.Instance.__table__.c.id == instance_id)
    if row is None:
        raise exception.InstanceNotFound(instance_id=instance_id)
    return load_extras(context, [row], columns_to_join)[0]


# -- writes -----------------------------------------------------------------

def _set_kv(context, model, instance_uuid, wanted):
    rows = {row.key: row for row in context.session.query(model).filter_by(
        instance_uuid=instance_uuid, deleted=0)}
    for key, row in rows.items():
        if key not in wanted:
            row.soft_delete(context.session)
        elif row.value != wanted[key]:
            row.value = wanted[key]
    for key, value in wanted.items():
        if key not in rows:
            context.session.add(model(instance_uuid=instance_uuid, key=key,
                                      value=value))


def _create_security_group(context, project_id, user_id, name):
    """Get or create the project's group: concurrent first boots of a
    project race to create ``default``; the loser takes the winner's row."""
    sg = models.SecurityGroup
    try:
        with context.session.begin_nested():
            group = sg(name=name, project_id=project_id, user_id=user_id,
                       description=name)
            context.session.add(group)
            context.session.flush()
        return group
    except db_exc.DBDuplicateEntry:
        # A locking read: under MySQL's REPEATABLE READ a plain SELECT
        # would still see this transaction's snapshot, without the row.
        return context.session.query(sg).filter_by(
            project_id=project_id, name=name,
            deleted=0).with_for_update(read=True).one()


def _set_security_groups(context, instance_uuid, project_id, user_id,
                         names):
    sga = models.SecurityGroupInstanceAssociation
    sg = models.SecurityGroup
    current = context.session.query(sga).filter_by(
        instance_uuid=instance_uuid, deleted=0).all()
    for assoc in current:
        assoc.soft_delete(context.session)
    for name in dict.fromkeys(names or []):
        group = context.session.query(sg).filter_by(
            project_id=project_id, name=name, deleted=0).first()
        if group is None:
            group = _create_security_group(context, project_id, user_id,
                                           name)
        context.session.add(sga(instance_uuid=instance_uuid,
                                security_group_id=group.id))


def _set_extra(context, instance_uuid, values):
    row = context.session.query(models.InstanceExtra).filter_by(
        instance_uuid=instance_uuid).first()
    if row is None:
        row = models.InstanceExtra(instance_uuid=instance_uuid)
        context.session.add(row)
    for key, value in values.items():
        setattr(row, key, value)


def _write_extras(context, uuid, project_id, user_id, extras):
    if 'metadata' in extras:
        _set_kv(context, models.InstanceMetadata, uuid, extras['metadata'])
    if 'system_metadata' in extras:
        _set_kv(context, models.InstanceSystemMetadata, uuid,
                extras['system_metadata'])
    if 'security_groups' in extras:
        _set_security_groups(context, uuid, project_id, user_id,
                             extras['security_groups'])
    if 'extra' in extras:
        _set_extra(context, uuid, extras['extra'])
    if 'info_cache' in extras:
        cache = context.session.query(models.InstanceInfoCache).filter_by(
            instance_uuid=uuid).first()
        if cache is None:
            cache = models.InstanceInfoCache(instance_uuid=uuid)
            context.session.add(cache)
        cache.network_info = extras['info_cache']
    if 'tags' in extras:
        context.session.query(models.Tag).filter_by(
            resource_id=uuid).delete(synchronize_session=False)
        for tag in dict.fromkeys(extras['tags']):
            context.session.add(models.Tag(resource_id=uuid, tag=tag))


@queries.writer
def instance_create(context, values, extras, columns_to_join=()):
    row = models.Instance()
    row.update(queries.naive_datetimes(values))
    context.session.add(row)
    context.session.flush()
    extras = dict(extras)
    extras.setdefault('info_cache', '[]')
    extras.setdefault('extra', {})
    _write_extras(context, row.uuid, row.project_id, row.user_id, extras)
    context.session.flush()
    return load_extras(context, [row], columns_to_join)[0]


@functools.lru_cache(maxsize=256)
def _update_statement(columns, expected):
    """The UPDATE of ``columns`` with a WHERE for the ``expected``
    (column, allows NULL) pairs, built once per shape: building and
    hashing the expression would cost more than running it."""
    table = models.Instance.__table__
    where = [table.c.uuid == sa.bindparam('w_uuid'), table.c.deleted == 0]
    for column, allows_null in expected:
        clause = table.c[column].in_(
            sa.bindparam('e_' + column, expanding=True))
        if allows_null:
            clause = sa.or_(clause, table.c[column].is_(None))
        where.append(clause)
    return sa.update(table).where(*where).values(
        {column: sa.bindparam('v_' + column) for column in columns})


_ROW_BY_UUID = sa.select(models.Instance.__table__).where(
    models.Instance.__table__.c.uuid == sa.bindparam('uuid'))


@queries.writer
def instance_update(context, uuid, values, extras, expected=None,
                    columns_to_join=()):
    """Update an instance; ``expected`` = {column: allowed values}.

    The compare-and-swap happens in the UPDATE's WHERE clause, so two
    services racing on a task state cannot both win.
    """
    values = queries.naive_datetimes(dict(values))
    allowed_by = {column: list(allowed)
                  for column, allowed in (expected or {}).items()}
    if values:
        values.setdefault('updated_at', timeutils.utcnow())
        params = {'w_uuid': uuid}
        params.update(('v_' + k, v) for k, v in values.items())
        params.update(('e_' + k, [v for v in allowed if v is not None])
                      for k, allowed in allowed_by.items())
        statement = _update_statement(
            tuple(sorted(values)),
            tuple(sorted((k, None in allowed)
                         for k, allowed in allowed_by.items())))
        count = context.session.execute(statement, params).rowcount
    else:
        table = models.Instance.__table__
        where = [table.c.uuid == uuid, table.c.deleted == 0]
        for column, allowed in allowed_by.items():
            where.append(_column_filter(table.c[column], allowed))
        count = context.session.execute(
            sa.select(sa.func.count()).select_from(table).where(
                *where)).scalar()
    if not count:
        _raise_update_conflict(context, uuid, expected)
    # What the database now holds, columns the caller did not write too.
    row = context.session.execute(_ROW_BY_UUID, {'uuid': uuid}).first()
    if extras:
        _write_extras(context, uuid, row.project_id, row.user_id, extras)
        context.session.flush()
    return load_extras(context, [row], columns_to_join)[0]


def _raise_update_conflict(context, uuid, expected):
    inst = models.Instance
    current = context.session.query(inst).filter(
        inst.uuid == uuid, inst.deleted == 0).first()
    if current is None:
        raise exception.InstanceNotFound(instance_id=uuid)
    actual = {c: getattr(current, c) for c in (expected or {})}
    if actual.get('task_state') == 'deleting':
        raise exception.UnexpectedDeletingTaskStateError(
            instance_uuid=uuid, expected=expected, actual=actual)
    raise exception.UnexpectedTaskStateError(
        instance_uuid=uuid, expected=expected, actual=actual)


# Rows that go with an instance: soft-deleted with it (hard-deleted
# with it too, with its actions' events).
_DEPENDENTS = (models.InstanceMetadata, models.InstanceSystemMetadata,
               models.InstanceInfoCache, models.InstanceFault,
               models.InstanceExtra, models.BlockDeviceMapping,
               models.Migration, models.SecurityGroupInstanceAssociation)


@queries.writer
def instance_destroy(context, uuid, host_constraint=None, hard_delete=False,
                     set_deleted_state=True):
    """Delete an instance and what goes with it; returns (row, {}) with
    the row as it is left (deleted, deleted_at...)."""
    table = models.Instance.__table__
    session = context.session
    where = [table.c.uuid == uuid, table.c.deleted == 0]
    if host_constraint is not None:
        host = host_constraint[0]
        where.append(table.c.host.is_(None) if host is None
                     else table.c.host == host)
    row = session.execute(sa.select(table).where(*where)).first()
    if row is None:
        exists = session.execute(sa.select(table.c.id).where(
            table.c.uuid == uuid, table.c.deleted == 0)).first()
        if exists is not None:
            raise exception.ObjectActionError(action='destroy',
                                              reason='host changed')
        raise exception.InstanceNotFound(instance_id=uuid)
    now = timeutils.utcnow()
    result = dict(row._mapping)
    for model, column in ((models.Tag, 'resource_id'),
                          (models.ConsoleAuthToken, 'instance_uuid')):
        dep = model.__table__
        session.execute(sa.delete(dep).where(dep.c[column] == uuid))
    if hard_delete:
        _hard_delete_dependents(session, uuid)
        session.execute(sa.delete(table).where(table.c.id == row.id))
        result.update(deleted=row.id, deleted_at=now)
        return queries.Row(result), {}
    for model in _DEPENDENTS:
        dep = model.__table__
        queries.soft_delete_where(session, model,
                                  dep.c.instance_uuid == uuid)
    changes = {'deleted': row.id, 'deleted_at': now, 'updated_at': now}
    if set_deleted_state:
        changes.update(vm_state='deleted', task_state=None)
        if row.terminated_at is None:
            changes['terminated_at'] = now
    session.execute(sa.update(table).where(table.c.id == row.id).values(
        changes))
    result.update(changes)
    return queries.Row(result), {}


def _hard_delete_dependents(session, uuid):
    actions = models.InstanceAction.__table__
    events = models.InstanceActionEvent.__table__
    action_ids = sa.select(actions.c.id).where(
        actions.c.instance_uuid == uuid)
    session.execute(sa.delete(events).where(
        events.c.action_id.in_(action_ids)))
    for model in _DEPENDENTS:
        dep = model.__table__
        session.execute(sa.delete(dep).where(dep.c.instance_uuid == uuid))
    session.execute(sa.delete(actions).where(
        actions.c.instance_uuid == uuid))


@main_db_api.pick_context_manager_reader
def instance_uuids_by_host(context, host, node=None):
    query = queries.model_query(context, models.Instance,
                                models.Instance.uuid).filter_by(host=host)
    if node is not None:
        query = query.filter_by(node=node)
    return [uuid for (uuid,) in query]


@main_db_api.pick_context_manager_reader
def instance_get_active_by_window(context, begin, end=None, project_id=None,
                                  host=None, columns_to_join=(), limit=None,
                                  marker=None):
    inst = models.Instance
    query = context.session.query(inst)
    query = query.filter(sa.or_(inst.terminated_at.is_(None),
                                inst.terminated_at > begin))
    if end:
        query = query.filter(inst.launched_at < end)
    if project_id:
        query = query.filter_by(project_id=project_id)
    if host:
        query = query.filter_by(host=host)
    marker_row = None
    if marker is not None:
        marker_row = context.session.query(inst).filter_by(
            uuid=marker).first()
        if marker_row is None:
            raise exception.MarkerNotFound(marker=marker)
    query = sqlalchemyutils.paginate_query(
        query, inst, limit, ['project_id', 'uuid'], marker=marker_row,
        sort_dirs=['asc', 'asc'])
    return load_extras(context, query.all(), columns_to_join)


@main_db_api.pick_context_manager_reader
def instance_counts(context, project_id, user_id=None):
    inst = models.Instance

    def count(**by):
        query = queries.model_query(
            context, inst, sa.func.count(inst.id),
            sa.func.sum(inst.vcpus), sa.func.sum(inst.memory_mb),
            read_deleted='no').filter_by(**by).filter(
            sa.or_(inst.vm_state != SOFT_DELETED, inst.vm_state.is_(None)),
            sa.or_(inst.hidden.is_(False), inst.hidden.is_(None)))
        instances, cores, ram = query.one()
        return {'instances': instances or 0, 'cores': int(cores or 0),
                'ram': int(ram or 0)}

    counts = {'project': count(project_id=project_id)}
    if user_id:
        counts['user'] = count(project_id=project_id, user_id=user_id)
    return counts
