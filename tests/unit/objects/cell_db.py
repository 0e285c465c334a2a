"""A migrated SQLite cell database for the cell-object tests."""

import datetime

import sqlalchemy as sa

from nova_clone import context as nova_context
from nova_clone.db.main import api as main_db_api
from nova_clone.db import migration
from nova_clone import objects


def make_cell_db(path):
    """Migrate a fresh SQLite cell DB; returns (url, context manager)."""
    objects.register_all()
    url = 'sqlite:///%s' % path
    migration.db_sync('main', url=url)
    return url, main_db_api.create_context_manager(url)


def admin_ctx(manager):
    ctx = nova_context.get_admin_context()
    ctx.db_connection = manager
    return ctx


def user_ctx(manager, project_id='p1', user_id='u1'):
    ctx = nova_context.RequestContext(user_id=user_id, project_id=project_id,
                                      roles=['member'])
    ctx.db_connection = manager
    return ctx


class StatementCounter:
    """Counts SQL statements run on the engine of ``manager``."""

    def __init__(self, manager):
        self.engine = manager.reader.get_engine()
        self.count = 0

    def _on_execute(self, *args, **kwargs):
        self.count += 1

    def __enter__(self):
        self.count = 0
        sa.event.listen(self.engine, 'before_cursor_execute',
                        self._on_execute)
        return self

    def __exit__(self, *exc):
        sa.event.remove(self.engine, 'before_cursor_execute',
                        self._on_execute)


def assert_read_back_as_coerced(ctx, make_instance):
    """Instances read back (one, and a list) hold exactly the values and
    types that setting each field (its coercion) gives; instances of a
    list sharing a flavor do not share the Flavor object."""
    import netaddr
    from nova_clone.objects import instance as instance_obj
    launched = datetime.datetime(2026, 1, 2, 3, 4, 5)
    first = make_instance(launched_at=launched, locked=True,
                          access_ip_v4='10.0.0.5', access_ip_v6='fd00::5',
                          progress=40, key_data=None)
    second = make_instance(project_id=first.project_id)
    read = [objects.Instance.get_by_uuid(ctx, first.uuid,
                                         expected_attrs=['flavor'])]
    listed = objects.InstanceList.get_by_filters(
        ctx, {'uuid': [first.uuid, second.uuid]}, expected_attrs=['flavor'])
    read += list(listed)
    for got in read:
        for name in instance_obj._COLUMN_FIELDS:
            if not got.obj_attr_is_set(name):
                continue
            ref = objects.Instance()
            value = getattr(got, name)
            setattr(ref, name, value)
            assert getattr(ref, name) == value, name
            assert type(getattr(ref, name)) is type(value), name
        assert got.deleted is False
        assert got.created_at.tzinfo is not None
    by_uuid = {i.uuid: i for i in listed}
    got = by_uuid[first.uuid]
    assert got.launched_at == launched.replace(tzinfo=datetime.timezone.utc)
    assert got.locked is True
    assert isinstance(got.access_ip_v4, netaddr.IPAddress)
    assert got.access_ip_v6 == netaddr.IPAddress('fd00::5')
    other = by_uuid[second.uuid]
    assert got.flavor.obj_to_primitive() == other.flavor.obj_to_primitive()
    assert got.flavor is not other.flavor
    got.flavor.extra_specs['changed'] = 'yes'
    assert 'changed' not in other.flavor.extra_specs
    assert not other.obj_what_changed()
