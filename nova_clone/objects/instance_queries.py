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
                   'image', 'ip', 'ip6', 'cleaned')
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


def _owner_scope(context):
    """(column, value) an ordinary user's reads are limited to (their
    project's servers, as in Nova), or None for an admin."""
    if getattr(context, 'is_admin', False):
        return None
    if context.project_id:
        return 'project_id', context.project_id
    return 'user_id', context.user_id


def build_filters(context, query, filters):
    inst = models.Instance
    filters = dict(filters)
    scope = _owner_scope(context)
    if scope is not None:
        filters[scope[0]] = scope[1]

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
    return load_extras(context, _plain_rows(query), columns_to_join)


def _plain_rows(query):
    """The instances ``query`` finds as Rows of their columns: no ORM
    objects, identity map or attribute instrumentation to build for rows
    that are only read."""
    # Its Core statement, run on the session's connection: the rows are
    # the same, without the ORM's execution path around them.  The table
    # as the one entity, not its seventy columns: each statement's cache
    # key is built from its entities, on every call.
    statement = query.with_entities(models.Instance.__table__).statement
    return queries.rows_of(query.session.connection().execute(statement))


def load_extras(context, rows, columns_to_join):
    """[(row, extras)] with each requested extra loaded by one query.

    Core selects of the columns needed: no ORM objects to build.
    """
    wanted = set(columns_to_join or ())
    uuids = [row.uuid for row in rows]
    extras = {uuid: {} for uuid in uuids}
    if not uuids:
        return []
    run = queries.connection(context).execute
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
        # The group's name as a subquery, not a join: joined, MySQL reads
        # the association rows of every instance the group ever had.
        name = sa.select(sg.c.name).where(
            sg.c.id == sga.c.security_group_id,
            sg.c.deleted == 0).scalar_subquery()
        for chunk in queries.chunks(uuids):
            for uuid, group in run(sa.select(sga.c.instance_uuid, name)
                                   .where(sga.c.instance_uuid.in_(chunk),
                                          sga.c.deleted == 0)
                                   .order_by(sga.c.id)):
                if group is not None:
                    extras[uuid]['security_groups'].append(group)
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
        fault = models.InstanceFault.__table__
        for chunk in queries.chunks(uuids):
            for row in run(sa.select(fault).where(
                    fault.c.instance_uuid.in_(chunk),
                    fault.c.deleted == 0).order_by(
                    fault.c.created_at.desc(), fault.c.id.desc())):
                extras[row.instance_uuid].setdefault('fault', row)
    return [(row, extras[row.uuid]) for row in rows]


def _load_kv(context, model, uuids, extras, name):
    table = model.__table__
    for uuid in uuids:
        extras[uuid][name] = {}
    for chunk in queries.chunks(uuids):
        for uuid, key, value in queries.connection(context).execute(sa.select(
                table.c.instance_uuid, table.c.key, table.c.value).where(
                table.c.instance_uuid.in_(chunk), table.c.deleted == 0)):
            extras[uuid][name][key] = value


@functools.lru_cache(maxsize=None)
def _row_select(key, by_project, read_deleted):
    """The instance whose ``key`` (uuid or id), and project, are given."""
    table = models.Instance.__table__
    where = [table.c[key] == sa.bindparam('key')]
    if by_project:
        where.append(table.c.project_id == sa.bindparam('project_id'))
    where += queries.read_deleted_clauses(None, table, read_deleted)
    return queries.WideRow(table, *where)


def _get_row(context, key, value, project_id=None):
    read_deleted = getattr(context, 'read_deleted', 'no') or 'no'
    return _row_select(key, project_id is not None, read_deleted).first(
        queries.connection(context), {'key': value, 'project_id': project_id})


@queries.connection_reader
def instance_get_by_uuid(context, uuid, columns_to_join=()):
    project_id = None
    if not getattr(context, 'is_admin', False) and context.project_id:
        project_id = context.project_id
    row = _get_row(context, 'uuid', uuid, project_id)
    if row is None:
        raise exception.InstanceNotFound(instance_id=uuid)
    return load_extras(context, [row], columns_to_join)[0]


@functools.lru_cache(maxsize=None)
def _rows_by_uuids_select(scope, read_deleted):
    """The instances whose uuid is in ``uuids``, ``scope`` (None, project_id
    or user_id) bound to ``owner``."""
    table = models.Instance.__table__
    where = [table.c.uuid.in_(sa.bindparam('uuids', expanding=True))]
    if scope is not None:
        where.append(table.c[scope] == sa.bindparam('owner'))
    where += queries.read_deleted_clauses(None, table, read_deleted)
    return sa.select(table).where(*where)


@queries.connection_reader
def instance_get_all_by_uuids(context, uuids, columns_to_join=()):
    """The instances of ``uuids``, in no particular order: one indexed
    select, without a list's filter, sort and paging machinery."""
    scope, owner = _owner_scope(context) or (None, None)
    read_deleted = getattr(context, 'read_deleted', 'no') or 'no'
    select = _rows_by_uuids_select(scope, read_deleted)
    conn = queries.connection(context)
    rows = []
    for chunk in queries.chunks(uuids):
        rows += queries.rows_of(conn.execute(
            select, {'uuids': chunk, 'owner': owner}))
    return load_extras(context, rows, columns_to_join)


@queries.connection_reader
def instance_get(context, instance_id, columns_to_join=()):
    row = _get_row(context, 'id', instance_id)
    if row is None:
        raise exception.InstanceNotFound(instance_id=instance_id)
    return load_extras(context, [row], columns_to_join)[0]


# -- writes -----------------------------------------------------------------
# Core statements storing what the ORM's unit of work stored: the same
# rows and values, and like a flush, an UPDATE only of values that differ
# (with updated_at).  A new instance has no rows in the other tables yet,
# so creating one writes them without reading first.

@functools.lru_cache(maxsize=None)
def _live_kv(table):
    return sa.select(table.c.id, table.c.key, table.c.value).where(
        table.c.instance_uuid == sa.bindparam('uuid'), table.c.deleted == 0)


@functools.lru_cache(maxsize=None)
def _soft_delete_ids(table):
    # As SoftDeleteMixin.soft_delete() and the flush after it.
    return sa.update(table).where(
        table.c.id.in_(sa.bindparam('w_ids', expanding=True))).values(
        deleted=table.c.id, deleted_at=sa.bindparam('v_now'),
        updated_at=sa.bindparam('v_now'))


@functools.lru_cache(maxsize=None)
def _set_value(table):
    return sa.update(table).where(table.c.id == sa.bindparam('w_id')).values(
        value=sa.bindparam('v_value'), updated_at=sa.bindparam('v_now'))


def _set_kv(context, model, instance_uuid, wanted, new=False):
    """Make the live key/value rows of an instance hold ``wanted``."""
    table = model.__table__
    conn = queries.connection(context)
    rows = {}
    if not new:
        rows = {row.key: row for row in conn.execute(
            _live_kv(table), {'uuid': instance_uuid})}
    now = timeutils.utcnow()
    stale = [row.id for key, row in rows.items() if key not in wanted]
    if stale:
        conn.execute(_soft_delete_ids(table), {'w_ids': stale, 'v_now': now})
    changed = [{'w_id': row.id, 'v_value': wanted[key], 'v_now': now}
               for key, row in rows.items()
               if key in wanted and row.value != wanted[key]]
    if changed:
        conn.execute(_set_value(table), changed)
    queries.insert_rows(conn, model, [
        {'instance_uuid': instance_uuid, 'key': key, 'value': value}
        for key, value in wanted.items() if key not in rows])
    return dict(wanted)



@functools.lru_cache(maxsize=None)
def _lock_live_instance():
    table = models.Instance.__table__
    return sa.select(table.c.id).where(
        table.c.uuid == sa.bindparam('uuid'),
        table.c.deleted == 0).with_for_update()


@queries.connection_writer
def instance_metadata_update(context, uuid, updates, delete_keys=(),
                             replace=False, max_items=None):
    """Merge ``updates`` into an instance's metadata (or make them all of
    it when ``replace``) and drop ``delete_keys``, in one transaction
    holding the instance row: concurrent callers each see the other's
    keys, none is lost.  Raises MetadataLimitExceeded, writing nothing,
    when the result holds more than ``max_items`` keys.  Returns the
    metadata now stored."""
    conn = queries.connection(context)
    if conn.execute(_lock_live_instance(), {'uuid': uuid}).first() is None:
        raise exception.InstanceNotFound(instance_id=uuid)
    table = models.InstanceMetadata.__table__
    wanted = {} if replace else {
        row.key: row.value
        for row in conn.execute(_live_kv(table), {'uuid': uuid})}
    for key in delete_keys:
        wanted.pop(key, None)
    wanted.update(updates)
    if max_items is not None and 0 <= max_items < len(wanted):
        raise exception.MetadataLimitExceeded(allowed=max_items)
    return _set_kv(context, models.InstanceMetadata, uuid, wanted)

_SG = models.SecurityGroup.__table__
_SGA = models.SecurityGroupInstanceAssociation.__table__
_GROUP_BY_NAME = sa.select(_SG.c.id, _SG.c.name).where(
    _SG.c.project_id == sa.bindparam('project_id'),
    _SG.c.name == sa.bindparam('name'), _SG.c.deleted == 0)


def _create_security_group(context, project_id, user_id, name):
    """Get or create the project's group: concurrent first boots of a
    project race to create ``default``; the loser takes the winner's row."""
    conn = queries.connection(context)
    try:
        with conn.begin_nested():
            return queries.insert_row(
                conn, models.SecurityGroup,
                {'name': name, 'project_id': project_id, 'user_id': user_id,
                 'description': name})
    except db_exc.DBDuplicateEntry:
        # A locking read: under MySQL's REPEATABLE READ a plain SELECT
        # would still see this transaction's snapshot, without the row.
        return conn.execute(_GROUP_BY_NAME.with_for_update(read=True), {
            'project_id': project_id, 'name': name}).one()


def _set_security_groups(context, instance_uuid, project_id, user_id,
                         names, new=False):
    """Associate the instance with the groups ``names`` (only); returns
    the names as the groups spell them."""
    conn = queries.connection(context)
    if not new:
        # As soft_delete() on each: the flush sets updated_at too.
        now = timeutils.utcnow()
        conn.execute(sa.update(_SGA).where(
            _SGA.c.instance_uuid == instance_uuid, _SGA.c.deleted == 0).values(
            deleted=_SGA.c.id, deleted_at=now, updated_at=now))
    associations, stored = [], []
    for name in dict.fromkeys(names or []):
        group = conn.execute(_GROUP_BY_NAME.limit(1), {
            'project_id': project_id, 'name': name}).first()
        if group is None:
            group = _create_security_group(context, project_id, user_id,
                                           name)
        associations.append({'instance_uuid': instance_uuid,
                             'security_group_id': group.id})
        stored.append(group.name)
    queries.insert_rows(conn, models.SecurityGroupInstanceAssociation,
                        associations)
    return stored


_EXTRA = models.InstanceExtra.__table__
_EXTRA_ID = sa.select(_EXTRA.c.id).where(
    _EXTRA.c.instance_uuid == sa.bindparam('uuid')).limit(1)


def _set_extra(context, instance_uuid, values, new=False):
    conn = queries.connection(context)
    found = None if new else conn.execute(
        _EXTRA_ID, {'uuid': instance_uuid}).first()
    if found is None:
        values = dict(values, instance_uuid=instance_uuid)
        queries.insert_row(conn, models.InstanceExtra, values)
    elif values:
        # These columns are deferred: the ORM wrote them without comparing.
        conn.execute(sa.update(_EXTRA).where(_EXTRA.c.id == found.id).values(
            dict(values, updated_at=timeutils.utcnow())))


_CACHE = models.InstanceInfoCache.__table__
_CACHE_ROW = sa.select(_CACHE.c.id, _CACHE.c.network_info).where(
    _CACHE.c.instance_uuid == sa.bindparam('uuid')).limit(1)
_SET_CACHE = sa.update(_CACHE).where(
    _CACHE.c.id == sa.bindparam('w_id')).values(
    network_info=sa.bindparam('v_network_info'),
    updated_at=sa.bindparam('v_now'))


def _set_info_cache(context, instance_uuid, network_info, new=False):
    conn = queries.connection(context)
    found = None if new else conn.execute(
        _CACHE_ROW, {'uuid': instance_uuid}).first()
    if found is None:
        queries.insert_row(conn, models.InstanceInfoCache, {
            'instance_uuid': instance_uuid, 'network_info': network_info})
    elif found.network_info != network_info:
        conn.execute(_SET_CACHE, {'w_id': found.id,
                                  'v_network_info': network_info,
                                  'v_now': timeutils.utcnow()})


def _set_tags(context, instance_uuid, tags, new=False):
    conn = queries.connection(context)
    tag = models.Tag.__table__
    if not new:
        conn.execute(sa.delete(tag).where(
            tag.c.resource_id == instance_uuid))
    tags = list(dict.fromkeys(tags))
    queries.insert_rows(conn, models.Tag, [
        {'resource_id': instance_uuid, 'tag': name} for name in tags])
    return tags


def _write_extras(context, uuid, project_id, user_id, extras, new=False):
    """Store ``extras``; returns them as load_extras() would now read
    them.  ``new``: the instance was just inserted, so has none yet."""
    stored = {}
    if 'metadata' in extras:
        stored['metadata'] = _set_kv(context, models.InstanceMetadata, uuid,
                                     extras['metadata'], new)
    if 'system_metadata' in extras:
        stored['system_metadata'] = _set_kv(
            context, models.InstanceSystemMetadata, uuid,
            extras['system_metadata'], new)
    if 'security_groups' in extras:
        stored['security_groups'] = _set_security_groups(
            context, uuid, project_id, user_id, extras['security_groups'],
            new)
    if 'extra' in extras:
        _set_extra(context, uuid, extras['extra'], new)
        stored['extra'] = extras['extra']
    if 'info_cache' in extras:
        _set_info_cache(context, uuid, extras['info_cache'], new)
        stored['info_cache'] = extras['info_cache']
    if 'tags' in extras:
        stored['tags'] = _set_tags(context, uuid, extras['tags'], new)
    return stored


def _new_extras(uuid, stored, columns_to_join):
    """load_extras()'s answer for an instance just created with
    ``stored`` (all its rows in the other tables).  Tags come in code
    point order, not the column's collation: Instance.create keeps the
    TagList it was given anyway."""
    wanted = set(columns_to_join or ())
    extras = {}
    for name, empty in (('metadata', {}), ('system_metadata', {}),
                        ('security_groups', [])):
        if name in wanted:
            extras[name] = stored.get(name, empty)
    if 'info_cache' in wanted and 'info_cache' in stored:
        extras['info_cache'] = stored['info_cache']
    extra_cols = {EXTRA_COLUMNS[x] for x in wanted if x in EXTRA_COLUMNS}
    if extra_cols and 'extra' in stored:
        extras['extra'] = {col: stored['extra'].get(col)
                           for col in sorted(extra_cols)}
    if 'tags' in wanted:
        extras['tags'] = [{'resource_id': uuid, 'tag': name}
                          for name in sorted(stored.get('tags', ()))]
    return extras


@queries.connection_writer
def instance_create(context, values, extras, columns_to_join=()):
    row = queries.insert_row(queries.connection(context), models.Instance,
                             queries.naive_datetimes(values))
    extras = dict(extras)
    extras.setdefault('info_cache', '[]')
    extras.setdefault('extra', {})
    stored = _write_extras(context, row.uuid, row.project_id, row.user_id,
                           extras, new=True)
    return row, _new_extras(row.uuid, stored, columns_to_join)


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


_ROW_BY_UUID = queries.WideRow(
    models.Instance.__table__,
    models.Instance.__table__.c.uuid == sa.bindparam('uuid'))


@queries.connection_writer
def instance_update(context, uuid, values, extras, expected=None,
                    columns_to_join=()):
    """Update an instance; ``expected`` = {column: allowed values}.

    The compare-and-swap happens in the UPDATE's WHERE clause, so two
    services racing on a task state cannot both win.
    """
    conn = queries.connection(context)
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
        count = conn.execute(statement, params).rowcount
    else:
        table = models.Instance.__table__
        where = [table.c.uuid == uuid, table.c.deleted == 0]
        for column, allowed in allowed_by.items():
            where.append(_column_filter(table.c[column], allowed))
        count = conn.execute(
            sa.select(sa.func.count()).select_from(table).where(
                *where)).scalar()
    if not count:
        _raise_update_conflict(context, uuid, expected)
    # What the database now holds, columns the caller did not write too.
    row = _ROW_BY_UUID.first(conn, {'uuid': uuid})
    if extras:
        _write_extras(context, uuid, row.project_id, row.user_id, extras)
    return load_extras(context, [row], columns_to_join)[0]


def _raise_update_conflict(context, uuid, expected):
    table = models.Instance.__table__
    current = queries.connection(context).execute(sa.select(table).where(
        table.c.uuid == uuid, table.c.deleted == 0)).first()
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


# Deleted with an instance (not soft-deleted).
_REMOVED = ((models.Tag, 'resource_id'),
            (models.ConsoleAuthToken, 'instance_uuid'))
# What instance_destroy reads of the instance row.
_DESTROY_COLUMNS = ('id', 'vm_state', 'task_state', 'terminated_at',
                    'updated_at')


@functools.lru_cache(maxsize=None)
def _destroy_read(host_constraint):
    """The live instance row's columns destroy needs, whether it is on
    the host constrained to ("none", "host" or None for no constraint),
    and, for each table in _REMOVED then _DEPENDENTS, whether it holds a
    row to delete: only those get a statement.  (A row that another
    transaction commits after this read stays, as one it would commit
    just after the destroy does.)"""
    table = models.Instance.__table__
    uuid = sa.bindparam('uuid')
    columns = [table.c[name] for name in _DESTROY_COLUMNS]
    if host_constraint == 'none':
        columns.append(table.c.host.is_(None).label('on_host'))
    elif host_constraint == 'host':
        columns.append((table.c.host == sa.bindparam('host')).label(
            'on_host'))
    for index, (model, column) in enumerate(_REMOVED):
        dep = model.__table__
        columns.append(sa.exists().where(dep.c[column] == uuid).label(
            'removed_%d' % index))
    for index, model in enumerate(_DEPENDENTS):
        dep = model.__table__
        columns.append(sa.exists().where(
            dep.c.instance_uuid == uuid, dep.c.deleted == 0).label(
            'dependent_%d' % index))
    return sa.select(*columns).where(table.c.uuid == uuid,
                                     table.c.deleted == 0)


@functools.lru_cache(maxsize=None)
def _soft_delete_dependents(table):
    # As queries.soft_delete: updated_at left as it was.
    return sa.update(table).where(
        table.c.deleted == 0,
        table.c.instance_uuid == sa.bindparam('w_uuid')).values(
        deleted=table.c.id, deleted_at=sa.bindparam('v_now'),
        updated_at=table.c.updated_at)


@queries.connection_writer
def instance_destroy(context, uuid, host_constraint=None, hard_delete=False,
                     set_deleted_state=True):
    """Delete an instance and what goes with it; returns (row, {}) with
    the row as it is left (deleted, deleted_at, vm_state, task_state,
    terminated_at, updated_at)."""
    table = models.Instance.__table__
    conn = queries.connection(context)
    params = {'uuid': uuid}
    constraint = None
    if host_constraint is not None:
        host = host_constraint[0]
        constraint = 'none' if host is None else 'host'
        params['host'] = host
    row = conn.execute(_destroy_read(constraint), params).first()
    if row is None:
        raise exception.InstanceNotFound(instance_id=uuid)
    if constraint is not None and not row.on_host:
        raise exception.ObjectActionError(action='destroy',
                                          reason='host changed')
    now = timeutils.utcnow()
    result = {name: getattr(row, name) for name in _DESTROY_COLUMNS}
    for index, (model, column) in enumerate(_REMOVED):
        if hard_delete or getattr(row, 'removed_%d' % index):
            dep = model.__table__
            conn.execute(sa.delete(dep).where(dep.c[column] == uuid))
    if hard_delete:
        _hard_delete_dependents(conn, uuid)
        conn.execute(sa.delete(table).where(table.c.id == row.id))
        result.update(deleted=row.id, deleted_at=now)
        return queries.Row(result), {}
    for index, model in enumerate(_DEPENDENTS):
        if getattr(row, 'dependent_%d' % index):
            conn.execute(_soft_delete_dependents(model.__table__),
                         {'w_uuid': uuid, 'v_now': now})
    changes = {'deleted': row.id, 'deleted_at': now, 'updated_at': now}
    if set_deleted_state:
        changes.update(vm_state='deleted', task_state=None)
        if row.terminated_at is None:
            changes['terminated_at'] = now
    conn.execute(sa.update(table).where(table.c.id == row.id).values(
        changes))
    result.update(changes)
    return queries.Row(result), {}


def _hard_delete_dependents(conn, uuid):
    actions = models.InstanceAction.__table__
    events = models.InstanceActionEvent.__table__
    action_ids = sa.select(actions.c.id).where(
        actions.c.instance_uuid == uuid)
    conn.execute(sa.delete(events).where(
        events.c.action_id.in_(action_ids)))
    for model in _DEPENDENTS:
        dep = model.__table__
        conn.execute(sa.delete(dep).where(dep.c.instance_uuid == uuid))
    conn.execute(sa.delete(actions).where(
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
    return load_extras(context, _plain_rows(query), columns_to_join)


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
