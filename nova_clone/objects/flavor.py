"""Flavor (+FlavorList): sizes offered to users, with extra specs and
per-project access for private flavors.  Stored in the API database."""

from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import utils as sqlalchemyutils
from oslo_utils import uuidutils
import sqlalchemy as sa
from sqlalchemy import orm

from nova_clone.db.api import api as api_db_api
from nova_clone.db.api import models as api_models
from nova_clone import exception
from nova_clone.objects import base
from nova_clone.objects import fields

OPTIONAL_FIELDS = ['extra_specs', 'projects']


def _query(context):
    return context.session.query(api_models.Flavors).options(
        orm.selectinload(api_models.Flavors.extra_specs))


_SELECTS = {}


def _select_one(key):
    """SELECT of the flavor whose column ``key`` equals :value (built
    once)."""
    stmt = _SELECTS.get(key)
    if stmt is None:
        flavors = api_models.Flavors.__table__
        stmt = _SELECTS[key] = sa.select(flavors).where(
            flavors.c[key] == sa.bindparam('value')).limit(1)
    return stmt


def _select_specs():
    stmt = _SELECTS.get('specs')
    if stmt is None:
        specs = api_models.FlavorExtraSpecs.__table__
        stmt = _SELECTS['specs'] = sa.select(specs.c.key, specs.c.value).where(
            specs.c.flavor_id == sa.bindparam('flavor_id'))
    return stmt


def _get_one(context, **filters):
    # Core statements: every boot reads its flavor (and its extra specs,
    # in a second query as the ORM's selectinload did).
    (key, value), = filters.items()
    row = context.connection.execute(_select_one(key),
                                     {'value': value}).mappings().first()
    if row is None:
        if 'flavorid' in filters:
            raise exception.FlavorNotFound(flavor_id=filters['flavorid'])
        if 'name' in filters:
            raise exception.FlavorNotFoundByName(flavor_name=filters['name'])
        raise exception.FlavorNotFound(flavor_id=filters.get('id'))
    values = {name: row[name] for name in _ROW_FIELDS}
    values['extra_specs'] = dict(context.connection.execute(
        _select_specs(), {'flavor_id': row['id']}).all())
    return values


def _to_dict(db_flavor):
    values = {key: getattr(db_flavor, key) for key in _ROW_FIELDS}
    values['extra_specs'] = {s.key: s.value for s in db_flavor.extra_specs}
    return values


@base.NovaObjectRegistry.register
class Flavor(base.NovaPersistentObject, base.NovaObject,
             base.NovaObjectDictCompat):
    VERSION = '1.2'

    fields = {
        'id': fields.IntegerField(),
        'name': fields.StringField(nullable=True),
        'memory_mb': fields.IntegerField(),
        'vcpus': fields.IntegerField(),
        'root_gb': fields.IntegerField(),
        'ephemeral_gb': fields.IntegerField(),
        'flavorid': fields.StringField(),
        'swap': fields.IntegerField(),
        'rxtx_factor': fields.FloatField(nullable=True, default=1.0),
        'vcpu_weight': fields.IntegerField(nullable=True),
        'disabled': fields.BooleanField(),
        'is_public': fields.BooleanField(),
        'extra_specs': fields.DictOfStringsField(),
        'projects': fields.ListOfStringsField(),
        'description': fields.StringField(nullable=True),
    }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Snapshots taken by obj_reset_changes(), so in-place edits of the
        # dict/list count as changes; None (a fresh, cloned or deserialized
        # object) means only assignments count.
        self._orig_extra_specs = None
        self._orig_projects = None

    @staticmethod
    def _from_db_object(context, flavor, db_flavor, expected_attrs=None):
        expected_attrs = expected_attrs or []
        flavor._context = context
        for name in flavor.fields:
            if name in OPTIONAL_FIELDS or name in (
                    'created_at', 'updated_at', 'deleted_at', 'deleted'):
                continue
            value = db_flavor[name]
            if name == 'rxtx_factor' and value is None:
                value = 1.0
            if name in ('disabled', 'is_public') and value is None:
                value = name == 'is_public'
            setattr(flavor, name, value)
        flavor.created_at = db_flavor.get('created_at')
        flavor.updated_at = db_flavor.get('updated_at')
        flavor.deleted_at = None
        flavor.deleted = False
        if 'extra_specs' in expected_attrs or 'extra_specs' in db_flavor:
            flavor.extra_specs = dict(db_flavor.get('extra_specs') or {})
        if 'projects' in expected_attrs:
            if 'projects' in db_flavor:
                flavor['projects'] = list(db_flavor['projects'])
            else:
                flavor._load_projects()
        flavor.obj_reset_changes()
        return flavor

    # -- reads -------------------------------------------------------------

    @staticmethod
    @api_db_api.context_manager.reader.connection
    def _flavor_get_from_db(context, **filters):
        return _get_one(context, **filters)

    @staticmethod
    @api_db_api.context_manager.reader
    def _get_projects_from_db(context, flavorid):
        db_flavor = context.session.query(api_models.Flavors).options(
            orm.selectinload(api_models.Flavors.projects)).filter_by(
            flavorid=flavorid).first()
        if not db_flavor:
            raise exception.FlavorNotFound(flavor_id=flavorid)
        return [p.project_id for p in db_flavor.projects]

    def _load_projects(self):
        self.projects = self._get_projects_from_db(self._context,
                                                   self.flavorid)
        self.obj_reset_changes(['projects'])

    def obj_load_attr(self, attrname):
        if attrname not in OPTIONAL_FIELDS:
            raise exception.ObjectActionError(
                action='obj_load_attr',
                reason='attribute %s not lazy-loadable' % attrname)
        if not self._context:
            raise exception.OrphanedObjectError(method='obj_load_attr',
                                                objtype=self.obj_name())
        if attrname == 'projects':
            self._load_projects()
        else:
            db_flavor = self._flavor_get_from_db(self._context,
                                                 flavorid=self.flavorid)
            self.extra_specs = db_flavor['extra_specs']
            self.obj_reset_changes(['extra_specs'])

    def obj_reset_changes(self, fields=None, recursive=False):
        super().obj_reset_changes(fields=fields, recursive=recursive)
        if fields is None or 'extra_specs' in fields:
            self._orig_extra_specs = (dict(self.extra_specs)
                                      if self.obj_attr_is_set('extra_specs')
                                      else {})
        if fields is None or 'projects' in fields:
            self._orig_projects = (list(self.projects)
                                   if self.obj_attr_is_set('projects')
                                   else [])

    def obj_what_changed(self):
        changes = super().obj_what_changed()
        if (self._orig_extra_specs is not None and 'extra_specs' in self and
                self.extra_specs != self._orig_extra_specs):
            changes.add('extra_specs')
        if (self._orig_projects is not None and 'projects' in self and
                self.projects != self._orig_projects):
            changes.add('projects')
        return changes

    @base.remotable_classmethod
    def get_by_id(cls, context, id):
        db_flavor = cls._flavor_get_from_db(context, id=id)
        return cls._from_db_object(context, cls(), db_flavor,
                                   expected_attrs=['extra_specs'])

    @base.remotable_classmethod
    def get_by_name(cls, context, name):
        db_flavor = cls._flavor_get_from_db(context, name=name)
        return cls._from_db_object(context, cls(), db_flavor,
                                   expected_attrs=['extra_specs'])

    @staticmethod
    @api_db_api.context_manager.reader.connection
    def _project_has_access(context, flavor_row_id, project_id):
        access = api_models.FlavorProjects.__table__
        return context.connection.execute(
            sa.select(access.c.id).where(
                access.c.flavor_id == flavor_row_id,
                access.c.project_id == project_id).limit(1)).first() \
            is not None

    @base.remotable_classmethod
    def get_by_flavor_id(cls, context, flavor_id, read_deleted=None):
        """The flavor a user names by its flavorid.  Like Nova, a private
        flavor is not found by a non-admin project without access to it
        (so a boot with it is a 400, a show a 404)."""
        db_flavor = cls._flavor_get_from_db(context, flavorid=flavor_id)
        # (is_public NULL reads as public, as _from_db_object has it.)
        if db_flavor['is_public'] in (False, 0) and not context.is_admin \
                and not \
                cls._project_has_access(context, db_flavor['id'],
                                        context.project_id):
            raise exception.FlavorNotFound(flavor_id=flavor_id)
        return cls._from_db_object(context, cls(), db_flavor,
                                   expected_attrs=['extra_specs'])

    # -- writes ------------------------------------------------------------

    @staticmethod
    @api_db_api.context_manager.writer
    def _flavor_create(context, values):
        specs = values.pop('extra_specs', {}) or {}
        projects = values.pop('projects', []) or []
        db_flavor = api_models.Flavors()
        db_flavor.update(values)
        db_flavor.extra_specs = [
            api_models.FlavorExtraSpecs(key=k, value=v)
            for k, v in specs.items()]
        db_flavor.projects = [api_models.FlavorProjects(project_id=p)
                              for p in projects]
        try:
            db_flavor.save(context.session)
        except db_exc.DBDuplicateEntry as e:
            if 'flavorid' in (e.columns or []):
                raise exception.FlavorIdExists(flavor_id=values['flavorid'])
            raise exception.FlavorExists(name=values['name'])
        result = _to_dict(db_flavor)
        result['projects'] = projects
        return result

    @base.remotable
    def create(self):
        if self.obj_attr_is_set('id'):
            raise exception.ObjectActionError(action='create',
                                              reason='already created')
        updates = self.obj_get_changes()
        if not updates.get('flavorid'):
            updates['flavorid'] = uuidutils.generate_uuid()
        for key in ('created_at', 'updated_at', 'deleted_at', 'deleted'):
            updates.pop(key, None)
        updates.setdefault('swap', 0)
        updates.setdefault('root_gb', 0)
        updates.setdefault('ephemeral_gb', 0)
        updates.setdefault('is_public', True)
        updates.setdefault('disabled', False)
        updates.setdefault('rxtx_factor', 1.0)
        db_flavor = self._flavor_create(self._context, updates)
        self._from_db_object(self._context, self, db_flavor,
                             expected_attrs=['extra_specs', 'projects'])

    @staticmethod
    @api_db_api.context_manager.writer
    def _flavor_add_project(context, flavor_id, project_id):
        try:
            context.session.add(api_models.FlavorProjects(
                flavor_id=flavor_id, project_id=project_id))
            context.session.flush()
        except db_exc.DBDuplicateEntry:
            raise exception.FlavorAccessExists(flavor_id=flavor_id,
                                               project_id=project_id)

    @staticmethod
    @api_db_api.context_manager.writer
    def _flavor_del_project(context, flavor_id, project_id):
        result = context.session.query(api_models.FlavorProjects).filter_by(
            flavor_id=flavor_id, project_id=project_id).delete()
        if not result:
            raise exception.FlavorAccessNotFound(flavor_id=flavor_id,
                                                 project_id=project_id)

    @staticmethod
    @api_db_api.context_manager.writer
    def _flavor_extra_specs_add(context, flavor_id, specs):
        existing = {s.key: s for s in context.session.query(
            api_models.FlavorExtraSpecs).filter_by(flavor_id=flavor_id)}
        for key, value in specs.items():
            if key in existing:
                existing[key].value = value
            else:
                context.session.add(api_models.FlavorExtraSpecs(
                    flavor_id=flavor_id, key=key, value=value))
        context.session.flush()

    @staticmethod
    @api_db_api.context_manager.writer
    def _flavor_extra_specs_del(context, flavor_id, key):
        result = context.session.query(api_models.FlavorExtraSpecs).filter_by(
            flavor_id=flavor_id, key=key).delete()
        if not result:
            raise exception.FlavorExtraSpecsNotFound(
                extra_specs_key=key, flavor_id=flavor_id)

    @staticmethod
    @api_db_api.context_manager.writer
    def _flavor_update_description(context, flavor_id, description):
        context.session.query(api_models.Flavors).filter_by(
            id=flavor_id).update({'description': description})

    def _add_access(self, project_id):
        self._flavor_add_project(self._context, self.id, project_id)

    @base.remotable
    def add_access(self, project_id):
        if 'projects' in self.obj_what_changed():
            raise exception.ObjectActionError(
                action='add_access', reason='projects modified')
        self._add_access(project_id)
        self._load_projects()

    @base.remotable
    def remove_access(self, project_id):
        if 'projects' in self.obj_what_changed():
            raise exception.ObjectActionError(
                action='remove_access', reason='projects modified')
        self._flavor_del_project(self._context, self.id, project_id)
        self._load_projects()

    @base.remotable
    def save_extra_specs(self, to_add=None, to_delete=None):
        """Add or update ``to_add`` (a dict), then delete the keys in
        ``to_delete``."""
        if to_add:
            self._flavor_extra_specs_add(self._context, self.id, to_add)
        for key in to_delete or []:
            self._flavor_extra_specs_del(self._context, self.id, key)
        self.obj_reset_changes(['extra_specs'])

    def save(self):
        updates = self.obj_get_changes()
        allowed = {'extra_specs', 'projects', 'description'}
        bad = set(updates) - allowed
        if bad:
            raise exception.ObjectActionError(
                action='save',
                reason='read-only fields were changed: %s'
                       % ', '.join(sorted(bad)))
        if 'extra_specs' in updates:
            orig = self._orig_extra_specs
            if orig is None:
                orig = self._flavor_get_from_db(
                    self._context, id=self.id)['extra_specs']
            added = {k: v for k, v in self.extra_specs.items()
                     if orig.get(k) != v}
            deleted = set(orig) - set(self.extra_specs)
            self.save_extra_specs(added, deleted)
        if 'projects' in updates:
            orig = self._orig_projects
            if orig is None:
                orig = self._get_projects_from_db(self._context,
                                                  self.flavorid)
            for project_id in set(self.projects) - set(orig):
                self._add_access(project_id)
            for project_id in set(orig) - set(self.projects):
                self._flavor_del_project(self._context, self.id, project_id)
            self.obj_reset_changes(['projects'])
        if 'description' in updates:
            self._flavor_update_description(self._context, self.id,
                                            self.description)
            self.obj_reset_changes(['description'])

    @staticmethod
    @api_db_api.context_manager.writer
    def _flavor_destroy(context, flavor_id=None, flavorid=None):
        query = context.session.query(api_models.Flavors)
        if flavor_id is not None:
            query = query.filter_by(id=flavor_id)
        else:
            query = query.filter_by(flavorid=flavorid)
        db_flavor = query.first()
        if not db_flavor:
            raise exception.FlavorNotFound(flavor_id=flavorid or flavor_id)
        context.session.delete(db_flavor)
        return db_flavor

    @base.remotable
    def destroy(self):
        if 'id' in self:
            self._flavor_destroy(self._context, flavor_id=self.id)
        else:
            self._flavor_destroy(self._context, flavorid=self.flavorid)


# The fields a flavors row holds.
_ROW_FIELDS = tuple(key for key in Flavor.fields
                    if key not in OPTIONAL_FIELDS and
                    key not in ('deleted_at', 'deleted'))


@api_db_api.context_manager.reader
def _flavor_get_all_from_db(context, inactive, filters, sort_key, sort_dir,
                            limit, marker):
    filters = filters or {}
    query = _query(context)
    if 'min_memory_mb' in filters:
        query = query.filter(
            api_models.Flavors.memory_mb >= filters['min_memory_mb'])
    if 'min_root_gb' in filters:
        query = query.filter(
            api_models.Flavors.root_gb >= filters['min_root_gb'])
    if 'disabled' in filters:
        query = query.filter(
            api_models.Flavors.disabled == filters['disabled'])
    if filters.get('name'):
        query = query.filter(api_models.Flavors.name == filters['name'])
    if filters.get('is_public') is not None:
        visible = [api_models.Flavors.is_public == filters['is_public']]
        if filters['is_public'] and context.project_id is not None:
            visible.append(api_models.Flavors.projects.any(
                project_id=context.project_id))
        query = query.filter(sa.or_(*visible))
    marker_row = None
    if marker is not None:
        marker_row = context.session.query(api_models.Flavors).filter_by(
            flavorid=marker).first()
        if not marker_row:
            raise exception.MarkerNotFound(marker=marker)
    try:
        query = sqlalchemyutils.paginate_query(
            query, api_models.Flavors, limit,
            [sort_key] + (['id'] if sort_key != 'id' else []),
            marker=marker_row, sort_dir=sort_dir)
    except sqlalchemyutils.InvalidSortKey as e:
        raise exception.InvalidSortKey(sort_key=sort_key) from e
    return [_to_dict(f) for f in query.all()]


@base.NovaObjectRegistry.register
class FlavorList(base.ObjectListBase, base.NovaObject):
    VERSION = '1.1'

    fields = {
        'objects': fields.ListOfObjectsField('Flavor'),
    }

    @base.remotable_classmethod
    def get_all(cls, context, inactive=False, filters=None,
                sort_key='flavorid', sort_dir='asc', limit=None, marker=None):
        db_flavors = _flavor_get_all_from_db(
            context, inactive=inactive, filters=filters, sort_key=sort_key,
            sort_dir=sort_dir, limit=limit, marker=marker)
        return base.obj_make_list(context, cls(context), Flavor, db_flavors,
                                  expected_attrs=['extra_specs'])
