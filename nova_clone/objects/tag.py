"""Tag and TagList: the tags of a server (resource_id = instance uuid)."""

from oslo_db import exception as db_exc

from nova_clone.db.main import api as main_db_api
from nova_clone.db.main import models
from nova_clone.db.main import queries
from nova_clone import exception
from nova_clone.objects import base
from nova_clone.objects import fields

MAX_TAG_LENGTH = 60


def _check_instance(context, instance_uuid):
    found = queries.model_query(context, models.Instance,
                                models.Instance.id).filter_by(
        uuid=instance_uuid).first()
    if found is None:
        raise exception.InstanceNotFound(instance_id=instance_uuid)


@queries.writer
def _tag_add(context, resource_id, tag):
    _check_instance(context, resource_id)
    exists = context.session.query(models.Tag).filter_by(
        resource_id=resource_id, tag=tag).first()
    if exists is None:
        row = models.Tag(resource_id=resource_id, tag=tag)
        try:
            with context.session.begin_nested():
                context.session.add(row)
        except db_exc.DBDuplicateEntry:
            pass  # added concurrently: the outcome is the same
    return {'resource_id': resource_id, 'tag': tag}


@queries.writer
def _tag_set(context, resource_id, tags):
    _check_instance(context, resource_id)
    wanted = list(dict.fromkeys(tags))
    current = {row.tag for row in context.session.query(models.Tag).filter_by(
        resource_id=resource_id)}
    stale = current - set(wanted)
    if stale:
        context.session.query(models.Tag).filter(
            models.Tag.resource_id == resource_id,
            models.Tag.tag.in_(stale)).delete(synchronize_session=False)
    for tag in wanted:
        if tag not in current:
            context.session.add(models.Tag(resource_id=resource_id, tag=tag))
    context.session.flush()
    return [{'resource_id': resource_id, 'tag': t} for t in sorted(wanted)]


@queries.writer
def _tag_delete(context, resource_id, tag):
    _check_instance(context, resource_id)
    deleted = context.session.query(models.Tag).filter_by(
        resource_id=resource_id, tag=tag).delete(synchronize_session=False)
    if not deleted:
        raise exception.TagNotFound(tag=tag, instance_id=resource_id)


@queries.writer
def _tag_delete_all(context, resource_id):
    _check_instance(context, resource_id)
    context.session.query(models.Tag).filter_by(
        resource_id=resource_id).delete(synchronize_session=False)


@main_db_api.pick_context_manager_reader
def _tag_exists(context, resource_id, tag):
    _check_instance(context, resource_id)
    return context.session.query(models.Tag).filter_by(
        resource_id=resource_id, tag=tag).first() is not None


@main_db_api.pick_context_manager_reader
def _tags_get(context, resource_ids):
    rows = []
    for chunk in queries.chunks(resource_ids):
        rows.extend(context.session.query(models.Tag).filter(
            models.Tag.resource_id.in_(chunk)).order_by(models.Tag.tag))
    return [{'resource_id': r.resource_id, 'tag': r.tag} for r in rows]


def tags_by_resource(context, resource_ids):
    """{resource_id: [tag rows]} in one query (for instance lists)."""
    result = {rid: [] for rid in resource_ids}
    for row in _tags_get(context, list(resource_ids)):
        result.setdefault(row['resource_id'], []).append(row)
    return result


@base.NovaObjectRegistry.register
class Tag(base.NovaObject):
    VERSION = '1.1'

    fields = {
        'resource_id': fields.StringField(),
        'tag': fields.StringField(),
    }

    @staticmethod
    def _from_db_object(context, tag, row):
        tag.resource_id = row['resource_id']
        tag.tag = row['tag']
        tag._context = context
        tag.obj_reset_changes()
        return tag

    @base.remotable
    def create(self):
        row = _tag_add(self._context, self.resource_id, self.tag)
        self._from_db_object(self._context, self, row)

    @base.remotable_classmethod
    def destroy(cls, context, resource_id, name):
        _tag_delete(context, resource_id, name)

    @base.remotable_classmethod
    def exists(cls, context, resource_id, name):
        return _tag_exists(context, resource_id, name)


@base.NovaObjectRegistry.register
class TagList(base.ObjectListBase, base.NovaObject):
    VERSION = '1.1'

    fields = {
        'objects': fields.ListOfObjectsField('Tag'),
    }

    @classmethod
    def from_rows(cls, context, rows):
        return base.obj_make_list(context, cls(context), Tag, rows)

    @base.remotable_classmethod
    def get_by_resource_id(cls, context, resource_id):
        return cls.from_rows(context, _tags_get(context, [resource_id]))

    @base.remotable_classmethod
    def create(cls, context, resource_id, tags):
        return cls.from_rows(context, _tag_set(context, resource_id, tags))

    @base.remotable_classmethod
    def destroy(cls, context, resource_id):
        _tag_delete_all(context, resource_id)
