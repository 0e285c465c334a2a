"""InstanceGroup (+InstanceGroupList): server groups (API DB).

A group has one policy (affinity, anti-affinity or their soft variants),
optional rules (``max_server_per_host``) and its members' instance uuids.
``hosts`` is not stored: it is read from the members' instances in their
cells when the scheduler or a compute needs it.
"""

from oslo_db import exception as db_exc
from oslo_serialization import jsonutils
from oslo_utils import uuidutils
from sqlalchemy import orm

from nova_clone import context as nova_context
from nova_clone.db.api import api as api_db_api
from nova_clone.db.api import models as api_models
from nova_clone import exception
from nova_clone.objects import base
from nova_clone.objects import fields

_RELATIONS = (orm.joinedload(api_models.InstanceGroup._policies),
              orm.joinedload(api_models.InstanceGroup._members))


def _group_query(context):
    return context.session.query(api_models.InstanceGroup).options(
        *_RELATIONS)


@api_db_api.context_manager.reader
def _get_from_db_by_uuid(context, uuid):
    row = _group_query(context).filter_by(uuid=uuid).first()
    if row is None:
        raise exception.InstanceGroupNotFound(group_uuid=uuid)
    return row


@api_db_api.context_manager.reader
def _get_from_db_by_instance(context, instance_uuid):
    member = context.session.query(api_models.InstanceGroupMember).filter_by(
        instance_uuid=instance_uuid).first()
    if member is None:
        raise exception.InstanceGroupNotFound(group_uuid='')
    return _group_query(context).filter_by(id=member.group_id).one()


@api_db_api.context_manager.reader
def _get_all_from_db(context, project_id=None):
    query = _group_query(context)
    if project_id is not None:
        query = query.filter_by(project_id=project_id)
    return query.order_by(api_models.InstanceGroup.id).all()


@api_db_api.context_manager.writer
def _create_in_db(context, values, policy, rules, members):
    group = api_models.InstanceGroup(**values)
    group._policies = [api_models.InstanceGroupPolicy(
        policy=policy, rules=jsonutils.dumps(rules) if rules else None)]
    group._members = [api_models.InstanceGroupMember(instance_uuid=m)
                      for m in members or []]
    context.session.add(group)
    try:
        context.session.flush()
    except db_exc.DBDuplicateEntry:
        raise exception.InstanceGroupIdExists(group_uuid=values['uuid'])
    return _group_query(context).filter_by(id=group.id).one()


@api_db_api.context_manager.writer
def _destroy_in_db(context, uuid):
    row = context.session.query(api_models.InstanceGroup).filter_by(
        uuid=uuid).first()
    if row is None:
        raise exception.InstanceGroupNotFound(group_uuid=uuid)
    context.session.delete(row)


@api_db_api.context_manager.writer
def _add_members_in_db(context, group_uuid, instance_uuids):
    row = context.session.query(api_models.InstanceGroup).filter_by(
        uuid=group_uuid).first()
    if row is None:
        raise exception.InstanceGroupNotFound(group_uuid=group_uuid)
    known = set(row.members)
    for uuid in instance_uuids:
        if uuid not in known:
            context.session.add(api_models.InstanceGroupMember(
                instance_uuid=uuid, group_id=row.id))
    return [u for u in instance_uuids if u not in known]


@api_db_api.context_manager.writer
def _remove_member_in_db(context, instance_uuid):
    return context.session.query(api_models.InstanceGroupMember).filter_by(
        instance_uuid=instance_uuid).delete()


def _instances_of(context, uuids):
    """The not-deleted instances among ``uuids``, from every cell."""
    from nova_clone import objects
    if not uuids:
        return []
    mappings = objects.InstanceMappingList.get_by_instance_uuids(
        context, uuids)
    cells = {}
    for mapping in mappings:
        cell = mapping.cell_mapping
        if cell is not None:
            cells.setdefault(cell.uuid, cell)
    results = nova_context.scatter_gather_cells(
        context, cells.values(), 60,
        lambda cctxt: list(objects.InstanceList.get_by_uuids(cctxt, uuids)))
    found = []
    for result in results.values():
        if isinstance(result, list):
            found.extend(i for i in result if not i.deleted)
    return found


@base.NovaObjectRegistry.register
class InstanceGroup(base.NovaPersistentObject, base.NovaObject,
                    base.NovaObjectDictCompat):
    VERSION = '1.11'

    fields = {
        'id': fields.IntegerField(),
        'user_id': fields.StringField(nullable=True),
        'project_id': fields.StringField(nullable=True),
        'uuid': fields.UUIDField(),
        'name': fields.StringField(nullable=True),
        'policy': fields.ServerGroupPolicyField(nullable=True),
        'rules': fields.DictOfIntegersField(nullable=True, default={}),
        'members': fields.ListOfStringsField(nullable=True),
        'hosts': fields.ListOfStringsField(nullable=True),
    }

    @property
    def policies(self):
        """The pre-2.64 list form of the one policy."""
        return [self.policy] if self.policy else []

    @staticmethod
    def _from_db_object(context, group, row):
        policy = row.policy
        group.id = row.id
        group.uuid = row.uuid
        group.name = row.name
        group.user_id = row.user_id
        group.project_id = row.project_id
        group.policy = policy.policy if policy is not None else None
        group.rules = (jsonutils.loads(policy.rules)
                       if policy is not None and policy.rules else {})
        group.members = list(row.members)
        group.hosts = []
        group.created_at = row.created_at
        group.updated_at = row.updated_at
        group.deleted_at = None
        group.deleted = False
        group._context = context
        group.obj_reset_changes()
        return group

    def obj_load_attr(self, attrname):
        if attrname == 'hosts':
            self.hosts = self.get_hosts()
            self.obj_reset_changes(['hosts'])
            return
        if attrname == 'rules':
            self.rules = {}
            self.obj_reset_changes(['rules'])
            return
        raise exception.ObjectActionError(
            action='obj_load_attr',
            reason='attribute %s not lazy-loadable' % attrname)

    @base.remotable_classmethod
    def get_by_uuid(cls, context, uuid):
        return cls._from_db_object(context, cls(),
                                   _get_from_db_by_uuid(context, uuid))

    @base.remotable_classmethod
    def get_by_instance_uuid(cls, context, instance_uuid):
        return cls._from_db_object(
            context, cls(), _get_from_db_by_instance(context, instance_uuid))

    @classmethod
    def get_by_hint(cls, context, hint):
        """The group named by a ``group`` scheduler hint (its uuid)."""
        return cls.get_by_uuid(context, hint)

    @base.remotable
    def create(self):
        if self.obj_attr_is_set('id'):
            raise exception.ObjectActionError(action='create',
                                              reason='already created')
        if not self.obj_attr_is_set('uuid'):
            self.uuid = uuidutils.generate_uuid()
        values = {'uuid': self.uuid,
                  'name': self.name if 'name' in self else None,
                  'user_id': self.user_id if 'user_id' in self else None,
                  'project_id': (self.project_id if 'project_id' in self
                                 else None)}
        row = _create_in_db(
            self._context, values, self.policy,
            self.rules if self.obj_attr_is_set('rules') else None,
            self.members if self.obj_attr_is_set('members') else None)
        self._from_db_object(self._context, self, row)

    @base.remotable
    def destroy(self):
        _destroy_in_db(self._context, self.uuid)

    @base.remotable_classmethod
    def add_members(cls, context, group_uuid, instance_uuids):
        return _add_members_in_db(context, group_uuid, list(instance_uuids))

    @classmethod
    def remove_member(cls, context, instance_uuid):
        """Forget a deleted server in whatever group held it."""
        _remove_member_in_db(context, instance_uuid)

    @base.remotable
    def get_hosts(self, exclude=None):
        """The host of each member placed (less ``exclude`` uuids): a host
        appears once per member it runs, so policies can count them."""
        uuids = [m for m in self.members or [] if m not in (exclude or ())]
        return sorted(i.host for i in _instances_of(self._context, uuids)
                      if i.host)

    def count_members_by_user(self, user_id):
        return len([i for i in _instances_of(self._context, self.members)
                    if i.user_id == user_id])

    def existing_members(self):
        """Members whose servers still exist (deleted ones drop out)."""
        from nova_clone import objects
        if not self.members:
            return []
        mapped = {m.instance_uuid for m in
                  objects.InstanceMappingList.get_by_instance_uuids(
                      self._context, self.members)}
        return [m for m in self.members if m in mapped]


@base.NovaObjectRegistry.register
class InstanceGroupList(base.ObjectListBase, base.NovaObject):
    VERSION = '1.8'

    fields = {
        'objects': fields.ListOfObjectsField('InstanceGroup'),
    }

    @classmethod
    def _make(cls, context, rows):
        return cls(context, objects=[
            InstanceGroup._from_db_object(context, InstanceGroup(), row)
            for row in rows])

    @base.remotable_classmethod
    def get_by_project_id(cls, context, project_id):
        return cls._make(context, _get_all_from_db(context, project_id))

    @base.remotable_classmethod
    def get_all(cls, context):
        return cls._make(context, _get_all_from_db(context))
