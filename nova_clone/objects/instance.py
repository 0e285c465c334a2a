"""Instance and InstanceList: servers in a cell database.

Columns of the instances table are plain fields; ``metadata``,
``system_metadata``, ``info_cache``, ``security_groups`` (names),
``fault`` (the newest), ``flavor``/``old_flavor``/``new_flavor`` (JSON in
instance_extra, as Nova keeps them), ``tags`` and ``keypairs`` are extras,
loaded when asked for in ``expected_attrs`` or on first access.
"""

import datetime

from oslo_log import log as logging
from oslo_serialization import jsonutils
from oslo_utils import timeutils

from nova_clone.conf import CONF
from nova_clone import exception
from nova_clone.objects import base
from nova_clone.objects import fields
from nova_clone.objects import instance_info_cache
from nova_clone.objects import instance_queries as db

LOG = logging.getLogger(__name__)

# Extras loaded unless the caller asks for fewer.
INSTANCE_DEFAULT_FIELDS = ['metadata', 'system_metadata', 'info_cache',
                           'security_groups']
INSTANCE_OPTIONAL_ATTRS = list(db.EXTRAS)

_BOOL_COLUMNS = ('locked', 'auto_disk_config', 'shutdown_terminate',
                 'disable_terminate', 'hidden', 'cleaned', 'deleted')
_NOT_COLUMNS = set(db.EXTRAS)


def _expected_cols(expected_attrs):
    """Extras to join for ``expected_attrs`` (Nova accepts None)."""
    if not expected_attrs:
        return []
    return [a for a in expected_attrs if a in INSTANCE_OPTIONAL_ATTRS]


@base.NovaObjectRegistry.register
class Instance(base.NovaPersistentObject, base.NovaObject,
               base.NovaObjectDictCompat):
    VERSION = '2.9'

    fields = {
        'id': fields.IntegerField(),
        'user_id': fields.StringField(nullable=True),
        'project_id': fields.StringField(nullable=True),
        'image_ref': fields.StringField(nullable=True),
        'kernel_id': fields.StringField(nullable=True),
        'ramdisk_id': fields.StringField(nullable=True),
        'hostname': fields.StringField(nullable=True),
        'launch_index': fields.IntegerField(nullable=True),
        'key_name': fields.StringField(nullable=True),
        'key_data': fields.StringField(nullable=True),
        'power_state': fields.IntegerField(nullable=True),
        'vm_state': fields.StringField(nullable=True),
        'task_state': fields.StringField(nullable=True),
        'memory_mb': fields.IntegerField(nullable=True),
        'vcpus': fields.IntegerField(nullable=True),
        'root_gb': fields.IntegerField(nullable=True),
        'ephemeral_gb': fields.IntegerField(nullable=True),
        'ephemeral_key_uuid': fields.UUIDField(nullable=True),
        'host': fields.StringField(nullable=True),
        'node': fields.StringField(nullable=True),
        'compute_id': fields.IntegerField(nullable=True),
        'instance_type_id': fields.IntegerField(nullable=True),
        'user_data': fields.StringField(nullable=True),
        'reservation_id': fields.StringField(nullable=True),
        'launched_at': fields.DateTimeField(nullable=True),
        'terminated_at': fields.DateTimeField(nullable=True),
        'availability_zone': fields.StringField(nullable=True),
        'display_name': fields.StringField(nullable=True),
        'display_description': fields.StringField(nullable=True),
        'launched_on': fields.StringField(nullable=True),
        'locked': fields.BooleanField(default=False),
        'locked_by': fields.StringField(nullable=True),
        'os_type': fields.StringField(nullable=True),
        'architecture': fields.StringField(nullable=True),
        'vm_mode': fields.StringField(nullable=True),
        'uuid': fields.UUIDField(),
        'root_device_name': fields.StringField(nullable=True),
        'default_ephemeral_device': fields.StringField(nullable=True),
        'default_swap_device': fields.StringField(nullable=True),
        'config_drive': fields.StringField(nullable=True),
        'access_ip_v4': fields.IPV4AddressField(nullable=True),
        'access_ip_v6': fields.IPV6AddressField(nullable=True),
        'auto_disk_config': fields.BooleanField(default=False),
        'progress': fields.IntegerField(nullable=True),
        'shutdown_terminate': fields.BooleanField(default=False),
        'disable_terminate': fields.BooleanField(default=False),
        'cell_name': fields.StringField(nullable=True),
        'cleaned': fields.BooleanField(default=False),
        'hidden': fields.BooleanField(default=False),
        # extras
        'metadata': fields.DictOfStringsField(),
        'system_metadata': fields.DictOfNullableStringsField(),
        'info_cache': fields.ObjectField('InstanceInfoCache',
                                         nullable=True),
        'security_groups': fields.ListOfStringsField(),
        'fault': fields.ObjectField('InstanceFault', nullable=True),
        'tags': fields.ObjectField('TagList'),
        'flavor': fields.ObjectField('Flavor'),
        'old_flavor': fields.ObjectField('Flavor', nullable=True),
        'new_flavor': fields.ObjectField('Flavor', nullable=True),
        'keypairs': fields.ObjectField('KeyPairList'),
    }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._reset_metadata_tracking()

    # -- change tracking of the two dicts, which change in place ----------

    def _reset_metadata_tracking(self, fields=None):
        if fields is None or 'metadata' in fields:
            self._orig_metadata = (dict(self.metadata)
                                   if 'metadata' in self else {})
        if fields is None or 'system_metadata' in fields:
            self._orig_system_metadata = (dict(self.system_metadata)
                                          if 'system_metadata' in self
                                          else {})

    def obj_reset_changes(self, fields=None, recursive=False):
        super().obj_reset_changes(fields, recursive=recursive)
        self._reset_metadata_tracking(fields=fields)

    @classmethod
    def _obj_from_primitive(cls, context, objver, primitive):
        # The sender's change list already says whether the dicts changed;
        # what arrived is the baseline on this side.
        self = super()._obj_from_primitive(context, objver, primitive)
        self._reset_metadata_tracking()
        return self

    def obj_what_changed(self):
        changes = set(super().obj_what_changed())
        if 'metadata' in self and self.metadata != getattr(
                self, '_orig_metadata', {}):
            changes.add('metadata')
        if 'system_metadata' in self and self.system_metadata != getattr(
                self, '_orig_system_metadata', {}):
            changes.add('system_metadata')
        return changes

    # -- rows to objects ---------------------------------------------------

    @property
    def name(self):
        try:
            return CONF.instance_name_template % self.id
        except (TypeError, KeyError, ValueError):
            return 'instance-%08x' % self.id

    @staticmethod
    def _from_db_object(context, instance, db_inst, expected_attrs=None,
                        flavors=None):
        """``flavors``: a dict shared by the instances of one list, so that
        each stored flavor text is parsed once."""
        row, extras = db_inst
        instance._context = context
        # Boolean columns stored as integers (deleted) go through the
        # field's coercion, which makes them booleans.
        base.set_stored_fields(instance, row, _COLUMN_FIELDS)
        instance._set_extras(context, extras, expected_attrs or (), flavors)
        instance.obj_reset_changes()
        return instance

    def _set_extras(self, context, extras, wanted, flavors=None):
        from nova_clone import objects
        if 'metadata' in extras:
            self.metadata = extras['metadata']
        if 'system_metadata' in extras:
            self.system_metadata = extras['system_metadata']
        if 'info_cache' in wanted:
            cache = instance_info_cache.InstanceInfoCache.new(context,
                                                              self.uuid)
            cache.network_info = extras.get('info_cache') or '[]'
            cache.obj_reset_changes()
            self.info_cache = cache
        if 'security_groups' in extras:
            self.security_groups = extras['security_groups']
        if 'fault' in wanted:
            row = extras.get('fault')
            self.fault = (objects.InstanceFault._from_db_object(
                context, objects.InstanceFault(), row) if row else None)
        if 'tags' in extras:
            self.tags = objects.TagList.from_rows(context, extras['tags'])
        stored = extras.get('extra') or {}
        if {'flavor', 'old_flavor', 'new_flavor'} & set(wanted):
            self._set_flavors(stored.get('flavor'), flavors)
        if 'keypairs' in wanted:
            raw = stored.get('keypairs')
            self.keypairs = (objects.KeyPairList.obj_from_primitive(
                jsonutils.loads(raw)) if raw else
                objects.KeyPairList(objects=[]))
            self.keypairs.obj_reset_changes(recursive=True)

    def _set_flavors(self, raw, parsed=None):
        from nova_clone import objects
        if parsed is None:
            parsed = {}
        data = parsed.get(raw)
        if data is None:
            data = parsed[raw] = jsonutils.loads(raw) if raw else {}
        for name, key in (('flavor', 'cur'), ('old_flavor', 'old'),
                          ('new_flavor', 'new')):
            prim = data.get(key)
            value = objects.Flavor.obj_from_primitive(prim) if prim else None
            if value is None and name == 'flavor':
                continue  # an instance always has one once created
            setattr(self, name, value)
            if value is not None:
                value.obj_reset_changes(recursive=True)

    # -- objects to rows ---------------------------------------------------

    def _flavor_json(self):
        def prim(name):
            if not self.obj_attr_is_set(name):
                return None
            value = getattr(self, name)
            return value.obj_to_primitive() if value is not None else None
        return jsonutils.dumps({'cur': prim('flavor'),
                                'old': prim('old_flavor'),
                                'new': prim('new_flavor')})

    def _split_changes(self, changes):
        """(column values, extras to write) of the changed fields."""
        values, extras = {}, {}
        for name in changes:
            if name in _NOT_COLUMNS:
                continue
            value = getattr(self, name)
            if name == 'cleaned':
                value = 1 if value else 0
            elif name in ('access_ip_v4', 'access_ip_v6') and value:
                value = str(value)
            values[name] = value
        if 'metadata' in changes:
            extras['metadata'] = dict(self.metadata)
        if 'system_metadata' in changes:
            extras['system_metadata'] = dict(self.system_metadata)
        if 'security_groups' in changes:
            extras['security_groups'] = list(self.security_groups)
        if 'info_cache' in changes and self.info_cache is not None:
            extras['info_cache'] = instance_info_cache.network_info_json(
                self.info_cache.network_info) or '[]'
        if 'tags' in changes:
            extras['tags'] = [t.tag for t in self.tags]
        extra = {}
        if {'flavor', 'old_flavor', 'new_flavor'} & set(changes):
            extra['flavor'] = self._flavor_json()
        if 'keypairs' in changes:
            extra['keypairs'] = jsonutils.dumps(
                self.keypairs.obj_to_primitive())
        if extra:
            extras['extra'] = extra
        return values, extras

    def _loaded_extras(self):
        return [name for name in INSTANCE_OPTIONAL_ATTRS
                if self.obj_attr_is_set(name)]

    # -- remotable API -----------------------------------------------------

    @base.remotable_classmethod
    def get_by_uuid(cls, context, uuid, expected_attrs=None, use_slave=False):
        if expected_attrs is None:
            expected_attrs = ['info_cache']
        cols = _expected_cols(expected_attrs)
        db_inst = db.instance_get_by_uuid(context, uuid, columns_to_join=cols)
        return cls._from_db_object(context, cls(), db_inst, cols)

    @base.remotable_classmethod
    def get_by_id(cls, context, inst_id, expected_attrs=None):
        if expected_attrs is None:
            expected_attrs = ['info_cache']
        cols = _expected_cols(expected_attrs)
        db_inst = db.instance_get(context, inst_id, columns_to_join=cols)
        return cls._from_db_object(context, cls(), db_inst, cols)

    @base.remotable
    def create(self):
        if self.obj_attr_is_set('id'):
            raise exception.ObjectActionError(action='create',
                                              reason='already created')
        if self.obj_attr_is_set('deleted') and self.deleted:
            raise exception.ObjectActionError(action='create',
                                              reason='already deleted')
        changes = self.obj_what_changed()
        if 'uuid' not in self:
            from oslo_utils import uuidutils
            self.uuid = uuidutils.generate_uuid()
            changes.add('uuid')
        values, extras = self._split_changes(changes)
        values.pop('id', None)
        values['deleted'] = 0
        for name in ('metadata', 'system_metadata'):
            extras.setdefault(name, dict(getattr(self, name))
                              if name in self else {})
        extras.setdefault('extra', {})
        if 'flavor' not in extras['extra']:
            extras['extra']['flavor'] = self._flavor_json()
        wanted = self._loaded_extras() + ['info_cache', 'security_groups',
                                          'metadata', 'system_metadata']
        db_inst = db.instance_create(self._context, values, extras,
                                     columns_to_join=_expected_cols(wanted))
        keep = {n: getattr(self, n) for n in ('flavor', 'old_flavor',
                                              'new_flavor', 'keypairs',
                                              'fault', 'tags')
                if self.obj_attr_is_set(n)}
        self._from_db_object(self._context, self, db_inst,
                             expected_attrs=['info_cache'])
        for name, value in keep.items():
            setattr(self, name, value)
        self.obj_reset_changes(recursive=True)

    @base.remotable
    def save(self, expected_vm_state=None, expected_task_state=None,
             admin_state_reset=False):
        changes = self.obj_what_changed()
        if not changes and expected_task_state is None and (
                expected_vm_state is None):
            return
        values, extras = self._split_changes(changes)
        for name in ('id', 'uuid'):
            values.pop(name, None)
        expected = {}
        if expected_task_state is not None:
            expected['task_state'] = _as_list(expected_task_state)
        if expected_vm_state is not None:
            expected['vm_state'] = _as_list(expected_vm_state)
        db_inst = db.instance_update(self._context, self.uuid, values,
                                     extras, expected=expected or None)
        row = db_inst[0]
        # Take back what the database decided (updated_at, etc.), and what
        # other writers changed.  Setting a field coerces its value: only
        # the values that differ from ours are set.
        stored = self.__dict__
        for name in self.fields:
            if name in _NOT_COLUMNS or name in changes:
                continue
            current = stored.get('_obj_' + name, _UNSET)
            if current is _UNSET:
                continue
            value = getattr(row, name)
            if name in _BOOL_COLUMNS:
                value = bool(value)
            if not _same_value(current, value):
                setattr(self, name, value)
        self.updated_at = row.updated_at
        if 'info_cache' in changes and self.info_cache is not None:
            self.info_cache.obj_reset_changes()
        self.obj_reset_changes(recursive=True)

    @base.remotable
    def destroy(self, hard_delete=False):
        if not self.obj_attr_is_set('id'):
            raise exception.ObjectActionError(action='destroy',
                                              reason='already destroyed')
        if not self.obj_attr_is_set('uuid'):
            raise exception.ObjectActionError(action='destroy',
                                              reason='no uuid')
        host = (self.host,) if self.obj_attr_is_set('host') else None
        row, _ = db.instance_destroy(self._context, self.uuid,
                                     host_constraint=host,
                                     hard_delete=hard_delete)
        for name in ('deleted', 'deleted_at', 'vm_state', 'task_state',
                     'terminated_at', 'updated_at'):
            value = getattr(row, name)
            setattr(self, name, bool(value) if name == 'deleted' else value)
        self.obj_reset_changes()

    @base.remotable
    def refresh(self, use_slave=False):
        extras = [a for a in self._loaded_extras()
                  if a in INSTANCE_OPTIONAL_ATTRS]
        current = self.__class__.get_by_uuid(self._context, uuid=self.uuid,
                                             expected_attrs=extras)
        for name in self.fields:
            if not current.obj_attr_is_set(name):
                continue
            if name == 'info_cache' and self.obj_attr_is_set('info_cache') \
                    and self.info_cache is not None:
                self.info_cache.network_info = (
                    current.info_cache.network_info)
                continue
            setattr(self, name, getattr(current, name))
        self.obj_reset_changes(recursive=True)

    @base.remotable
    def delete_metadata_key(self, key):
        """Remove one metadata item now, leaving other changes pending."""
        self.update_metadata({}, delete_keys=[key])

    @base.remotable
    def update_metadata(self, updates, delete_keys=(), replace=False,
                        max_items=None):
        """Merge ``updates`` into the stored metadata now (all of it when
        ``replace``), ``delete_keys`` removed, at most ``max_items`` keys
        (MetadataLimitExceeded): a read-modify-write in the database, so
        concurrent updates lose no key.  ``metadata`` becomes what is
        stored; other changes stay pending."""
        stored = db.instance_metadata_update(
            self._context, self.uuid, updates, delete_keys=delete_keys,
            replace=replace, max_items=max_items)
        self.metadata = stored
        self.obj_reset_changes(['metadata'])

    def obj_load_attr(self, attrname):
        if attrname not in INSTANCE_OPTIONAL_ATTRS:
            defaults = {'hidden': False, 'cleaned': False, 'locked': False}
            if attrname in defaults:
                setattr(self, attrname, defaults[attrname])
                self.obj_reset_changes([attrname])
                return
            raise exception.ObjectActionError(
                action='obj_load_attr',
                reason='attribute %s not lazy-loadable' % attrname)
        if not self._context:
            raise exception.OrphanedObjectError(method='obj_load_attr',
                                                objtype=self.obj_name())
        LOG.debug('Lazy-loading %s on Instance %s', attrname, self.uuid)
        wanted = [attrname]
        if attrname in ('flavor', 'old_flavor', 'new_flavor'):
            wanted = ['flavor', 'old_flavor', 'new_flavor']
        loaded = self.__class__.get_by_uuid(
            self._context, uuid=self.uuid, expected_attrs=wanted)
        for name in wanted:
            if loaded.obj_attr_is_set(name):
                setattr(self, name, getattr(loaded, name))
            elif name in ('old_flavor', 'new_flavor'):
                setattr(self, name, None)
        if not self.obj_attr_is_set(attrname):
            raise exception.ObjectActionError(
                action='obj_load_attr',
                reason='instance %s has no %s' % (self.uuid, attrname))
        self.obj_reset_changes(wanted)

    # -- helpers callers use -----------------------------------------------

    def get_flavor(self, namespace=None):
        name = '%s_flavor' % namespace if namespace else 'flavor'
        return getattr(self, name)

    def get_network_info(self):
        if self.info_cache is None:
            return instance_info_cache.hydrate_network_info([])
        return self.info_cache.network_info

    def apply_flavor(self, flavor):
        """Copy a flavor's sizes onto the instance (resize, build)."""
        self.flavor = flavor
        self.instance_type_id = flavor.id
        self.memory_mb = flavor.memory_mb
        self.vcpus = flavor.vcpus
        self.root_gb = flavor.root_gb
        self.ephemeral_gb = flavor.ephemeral_gb


_UNSET = object()


def _same_value(current, value):
    """Whether a field holding ``current`` would hold it still once set
    to the column value ``value`` (a naive datetime becomes UTC)."""
    if isinstance(value, datetime.datetime) and value.tzinfo is None:
        value = value.replace(tzinfo=datetime.timezone.utc)
    return type(current) is type(value) and current == value


def _as_list(value):
    if isinstance(value, (list, tuple, set)):
        return list(value)
    return [value]


_COLUMN_FIELDS = tuple(name for name in Instance.fields
                       if name not in _NOT_COLUMNS)


@base.NovaObjectRegistry.register
class InstanceList(base.ObjectListBase, base.NovaObject):
    VERSION = '2.6'

    fields = {
        'objects': fields.ListOfObjectsField('Instance'),
    }

    @classmethod
    def _make(cls, context, db_insts, expected_attrs):
        cols = _expected_cols(expected_attrs)
        result = cls(context, objects=[])
        flavors = {}
        for db_inst in db_insts:
            result.objects.append(Instance._from_db_object(
                context, Instance(), db_inst, cols, flavors))
        result.obj_reset_changes()
        return result

    @base.remotable_classmethod
    def get_by_filters(cls, context, filters, sort_key='created_at',
                       sort_dir='desc', limit=None, marker=None,
                       expected_attrs=None, use_slave=False, sort_keys=None,
                       sort_dirs=None):
        db_insts = db.instance_get_all_by_filters(
            context, filters, sort_key=sort_key, sort_dir=sort_dir,
            limit=limit, marker=marker,
            columns_to_join=_expected_cols(expected_attrs),
            sort_keys=sort_keys, sort_dirs=sort_dirs)
        return cls._make(context, db_insts, expected_attrs)

    @base.remotable_classmethod
    def get_by_host(cls, context, host, expected_attrs=None,
                    use_slave=False):
        # The context's read_deleted decides; soft-deleted ones are kept.
        return cls.get_by_filters(context, {'host': host},
                                  sort_keys=['id'], sort_dirs=['asc'],
                                  expected_attrs=expected_attrs)

    @base.remotable_classmethod
    def get_by_host_and_node(cls, context, host, node, expected_attrs=None):
        return cls.get_by_filters(
            context, {'host': host, 'node': [node]},
            sort_keys=['id'], sort_dirs=['asc'],
            expected_attrs=expected_attrs)

    @base.remotable_classmethod
    def get_uuids_by_host(cls, context, host):
        return db.instance_uuids_by_host(context, host)

    @base.remotable_classmethod
    def get_uuids_by_host_and_node(cls, context, host, node):
        return db.instance_uuids_by_host(context, host, node=node)

    @base.remotable_classmethod
    def get_all(cls, context, expected_attrs=None):
        return cls.get_by_filters(context, {},
                                  expected_attrs=expected_attrs)

    @base.remotable_classmethod
    def get_by_uuids(cls, context, uuids, expected_attrs=None):
        db_insts = db.instance_get_all_by_uuids(
            context, list(uuids), columns_to_join=_expected_cols(
                expected_attrs))
        return cls._make(context, db_insts, expected_attrs)

    @base.remotable_classmethod
    def get_hung_in_rebooting(cls, context, reboot_window,
                              expected_attrs=None):
        limit = timeutils.utcnow() - datetime.timedelta(
            seconds=reboot_window)
        found = cls.get_by_filters(
            context, {'task_state': ['rebooting', 'reboot_pending',
                                     'reboot_started'],
                      'deleted': False},
            expected_attrs=expected_attrs)
        found.objects = [i for i in found.objects
                         if i.updated_at and
                         i.updated_at.replace(tzinfo=None) <= limit]
        return found

    @base.remotable_classmethod
    def get_active_by_window_joined(cls, context, begin, end=None,
                                    project_id=None, host=None,
                                    expected_attrs=None, use_slave=False,
                                    limit=None, marker=None):
        begin = timeutils.normalize_time(_to_datetime(begin))
        end = timeutils.normalize_time(_to_datetime(end)) if end else None
        db_insts = db.instance_get_active_by_window(
            context, begin, end=end, project_id=project_id, host=host,
            columns_to_join=_expected_cols(expected_attrs), limit=limit,
            marker=marker)
        return cls._make(context, db_insts, expected_attrs)

    @base.remotable_classmethod
    def get_counts(cls, context, project_id, user_id=None):
        return db.instance_counts(context, project_id, user_id=user_id)

    @base.remotable_classmethod
    def get_count_by_hosts(cls, context, hosts):
        found = cls.get_by_filters(context, {'host': list(hosts),
                                             'deleted': False})
        return len(found)

    def fill_faults(self):
        """Set ``fault`` on every instance with one query."""
        from nova_clone import objects
        uuids = [inst.uuid for inst in self]
        faults = objects.InstanceFaultList.get_latest_for_instances(
            self._context, uuids)
        by_uuid = {fault.instance_uuid: fault for fault in faults}
        for inst in self:
            inst.fault = by_uuid.get(inst.uuid)
            inst.obj_reset_changes(['fault'])
        return [f.instance_uuid for f in faults]


def _to_datetime(value):
    if isinstance(value, str):
        return timeutils.parse_isotime(value)
    return value

