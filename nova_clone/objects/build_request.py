"""BuildRequest: a server that the API accepted but no cell holds yet.

The instance (and its block device mappings and tags) is kept as a
serialized versioned object until the conductor creates it in a cell, so
the API can show and list the server meanwhile.
"""

import re

from oslo_log import log as logging
from oslo_serialization import jsonutils
from oslo_utils import timeutils

from nova_clone.db.api import api as api_db_api
from nova_clone.db.api import models as api_models
from nova_clone import exception
from nova_clone.objects import base
from nova_clone.objects import fields

LOG = logging.getLogger(__name__)

# Instance attributes that only exist once a host has been picked: a
# filter on them can never match a build request.
_HOST_ONLY_FILTERS = ('host', 'node', 'ip', 'ip6', 'compute_host',
                      'launched_at', 'terminated_at')


def _dump(obj):
    return jsonutils.dumps(obj.obj_to_primitive()) if obj is not None else None


def _load(text):
    if not text:
        return None
    return base.NovaObject.obj_from_primitive(jsonutils.loads(text))


@base.NovaObjectRegistry.register
class BuildRequest(base.NovaObject):
    VERSION = '1.3'

    fields = {
        'id': fields.IntegerField(),
        'instance_uuid': fields.UUIDField(),
        'project_id': fields.StringField(),
        'instance': fields.ObjectField('Instance'),
        'block_device_mappings': fields.ObjectField('BlockDeviceMappingList'),
        'tags': fields.ObjectField('TagList'),
        'created_at': fields.DateTimeField(nullable=True),
        'updated_at': fields.DateTimeField(nullable=True),
    }

    @staticmethod
    def _from_db_object(context, req, db_req, written=None):
        """``written``: {column: object} of the objects whose
        serializations ``db_req`` was just written from; they serve as
        they are instead of being read back from their text."""
        written = written or {}
        req.id = db_req.id
        req.instance_uuid = db_req.instance_uuid
        req.project_id = db_req.project_id
        req.created_at = db_req.created_at
        req.updated_at = db_req.updated_at
        try:
            instance = (written['instance'] if 'instance' in written
                        else _load(db_req.instance))
        except Exception as exc:
            # An object this process cannot read (a newer version): treat
            # the request as gone rather than failing every listing.
            LOG.warning('Could not read build request %s: %s',
                        db_req.instance_uuid, exc)
            raise exception.BuildRequestNotFound(uuid=db_req.instance_uuid)
        if instance is not None:
            instance._context = context
            # Not on any host and never in a cell yet: fill in what a
            # scheduled instance would have, so API views need no lazy load.
            unset = {'deleted': False, 'disable_terminate': False,
                     'terminated_at': None, 'host': None, 'node': None,
                     'launched_at': None, 'launched_on': None,
                     'cell_name': None, 'locked_by': None}
            for name, value in unset.items():
                if name in instance.fields and (
                        name == 'deleted' or
                        not instance.obj_attr_is_set(name)):
                    setattr(instance, name, value)
            if 'created_at' in instance.fields:
                instance.created_at = db_req.created_at
            if 'updated_at' in instance.fields:
                instance.updated_at = db_req.updated_at
            instance.obj_reset_changes()
            req.instance = instance
        bdms = (written['block_device_mappings']
                if 'block_device_mappings' in written
                else _load(db_req.block_device_mappings))
        if bdms is not None:
            req.block_device_mappings = bdms
        tags = written['tags'] if 'tags' in written else _load(db_req.tags)
        if tags is not None:
            req.tags = tags
        req._context = context
        req.obj_reset_changes()
        return req

    @staticmethod
    def _get_by_instance_uuid_from_db(context, instance_uuid):
        # Core (api_db_api.select_rows): every show of a server being
        # scheduled reads its build request.
        rows = api_db_api.select_rows(context, api_models.BuildRequest,
                                      {'instance_uuid': instance_uuid})
        if not rows:
            raise exception.BuildRequestNotFound(uuid=instance_uuid)
        return rows[0]

    @base.remotable_classmethod
    def get_by_instance_uuid(cls, context, instance_uuid):
        db_req = cls._get_by_instance_uuid_from_db(context, instance_uuid)
        return cls._from_db_object(context, cls(), db_req)

    def _get_update_primitives(self):
        updates = {}
        for name in self.obj_get_changes():
            if name in ('instance', 'block_device_mappings', 'tags'):
                updates[name] = _dump(getattr(self, name))
            elif name not in ('id', 'created_at', 'updated_at'):
                updates[name] = getattr(self, name)
        if 'instance' in updates and 'instance_uuid' not in updates:
            updates['instance_uuid'] = self.instance.uuid
        if 'instance' in updates and 'project_id' not in updates:
            updates['project_id'] = self.instance.project_id
        return updates

    @staticmethod
    def _create_in_db(context, updates):
        return api_db_api.insert_row(
            context, api_models.BuildRequest, updates,
            duplicate=exception.BuildRequestAlreadyExists(
                uuid=updates.get('instance_uuid')))

    @base.remotable
    def create(self):
        if self.obj_attr_is_set('id'):
            raise exception.ObjectActionError(action='create',
                                              reason='already created')
        if not self.obj_attr_is_set('instance_uuid'):
            if not self.obj_attr_is_set('instance'):
                raise exception.ObjectActionError(
                    action='create', reason='instance_uuid must be set')
        updates = self._get_update_primitives()
        db_req = self._create_in_db(self._context, updates)
        # The objects just serialized are what reading the row back would
        # give (a boot would otherwise deserialize its instance again).
        written = {name: getattr(self, name) for name in
                   ('instance', 'block_device_mappings', 'tags')
                   if name in updates}
        self._from_db_object(self._context, self, db_req, written)

    @staticmethod
    @api_db_api.context_manager.writer
    def _destroy_in_db(context, instance_uuid):
        result = context.session.query(api_models.BuildRequest).filter_by(
            instance_uuid=instance_uuid).delete()
        if not result:
            raise exception.BuildRequestNotFound(uuid=instance_uuid)

    @base.remotable
    def destroy(self):
        self._destroy_in_db(self._context, self.instance_uuid)

    @staticmethod
    @api_db_api.context_manager.writer
    def _save_in_db(context, req_id, updates):
        db_req = context.session.query(api_models.BuildRequest).filter_by(
            id=req_id).first()
        if not db_req:
            raise exception.BuildRequestNotFound(uuid=updates.get(
                'instance_uuid', req_id))
        db_req.update(updates)
        context.session.add(db_req)
        return db_req

    @base.remotable
    def save(self):
        updates = self._get_update_primitives()
        db_req = self._save_in_db(self._context, self.id, updates)
        self._from_db_object(self._context, self, db_req)

    def get_new_instance(self, context):
        """A fresh Instance with every value of the build request's one
        marked as changed, ready for ``create()`` in a cell."""
        instance = type(self.instance)(context)
        for name in self.instance.obj_fields:
            if name != 'id' and self.instance.obj_attr_is_set(name):
                setattr(instance, name, getattr(self.instance, name))
        return instance


def _matches(instance, filters):
    for key, value in filters.items():
        if key in ('deleted', 'cleaned', 'soft_deleted'):
            continue
        if key in _HOST_ONLY_FILTERS:
            return False
        if key in ('changes-since', 'changes-before'):
            updated = getattr(instance, 'updated_at', None) or getattr(
                instance, 'created_at', None)
            if isinstance(value, str):
                value = timeutils.parse_isotime(value)
            if updated is None:
                return False
            updated = timeutils.normalize_time(updated)
            value = timeutils.normalize_time(value)
            if key == 'changes-since' and updated < value:
                return False
            if key == 'changes-before' and updated > value:
                return False
            continue
        if key == 'name':
            name = getattr(instance, 'display_name', None) or ''
            try:
                if not re.search(value, name):
                    return False
            except re.error:
                return False
            continue
        if key == 'tags' or key == 'tags-any' or key.startswith('not-tags'):
            continue
        attr = {'image': 'image_ref'}.get(key, key)
        if attr not in instance.fields or not instance.obj_attr_is_set(attr):
            if value in (None, [], ()):
                continue
            return False
        actual = getattr(instance, attr)
        if isinstance(value, (list, tuple, set)):
            if actual not in value:
                return False
        elif actual != value:
            return False
    return True


def _sort_key(keys, dirs):
    def key_fn(req):
        result = []
        for key in keys:
            value = getattr(req.instance, key, None) if (
                key in req.instance.fields and
                req.instance.obj_attr_is_set(key)) else None
            result.append((value is not None, value))
        return result
    return key_fn


@base.NovaObjectRegistry.register
class BuildRequestList(base.ObjectListBase, base.NovaObject):
    VERSION = '1.0'

    fields = {
        'objects': fields.ListOfObjectsField('BuildRequest'),
    }

    @staticmethod
    def _get_all_from_db(context):
        # Core: every server list reads them.
        filters = {} if context.is_admin else {
            'project_id': context.project_id}
        return api_db_api.select_rows(context, api_models.BuildRequest,
                                      filters)

    @classmethod
    def _load_all(cls, context):
        reqs = []
        for db_req in cls._get_all_from_db(context):
            try:
                reqs.append(BuildRequest._from_db_object(
                    context, BuildRequest(), db_req))
            except exception.BuildRequestNotFound:
                continue
        return reqs

    @base.remotable_classmethod
    def get_all(cls, context):
        return cls(context, objects=cls._load_all(context))

    @classmethod
    def get_by_filters(cls, context, filters, limit=None, marker=None,
                       sort_keys=None, sort_dirs=None):
        """Build requests whose instance matches ``filters`` (the server
        list filters), sorted and paged like instances are."""
        filters = dict(filters or {})
        if filters.get('deleted') or filters.get('cleaned'):
            return cls(context, objects=[])
        if limit is not None and limit == 0:
            return cls(context, objects=[])
        reqs = [r for r in cls._load_all(context)
                if r.obj_attr_is_set('instance') and
                _matches(r.instance, filters)]
        sort_keys = list(sort_keys or ['created_at'])
        sort_dirs = list(sort_dirs or ['desc'] * len(sort_keys))
        while len(sort_dirs) < len(sort_keys):
            sort_dirs.append(sort_dirs[-1] if sort_dirs else 'desc')
        # Stable sorts applied from the least significant key.
        for key, direction in reversed(list(zip(sort_keys, sort_dirs))):
            reqs.sort(key=_sort_key([key], [direction]),
                      reverse=(direction == 'desc'))
        if marker is not None:
            uuids = [r.instance_uuid for r in reqs]
            if marker not in uuids:
                raise exception.MarkerNotFound(marker=marker)
            reqs = reqs[uuids.index(marker) + 1:]
        if limit is not None:
            reqs = reqs[:limit]
        return cls(context, objects=reqs)
