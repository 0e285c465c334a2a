"""Online data migrations run by ``nova-manage db online_data_migrations``.

Each function takes (admin context, max_count) and returns (found, done):
how many rows needed the migration in this batch and how many it fixed.
They fill in instance-mapping columns that older rows may lack from the
instances in the cells.
"""

import sqlalchemy as sa

from nova_clone.db.api import api as api_db_api
from nova_clone.db.api import models as api_models
from nova_clone.db.main import api as main_db_api
from nova_clone.db.main import models as main_models


def _cell_context(context, database_connection):
    import copy
    cctxt = copy.copy(context)
    cctxt.db_connection = main_db_api.create_context_manager(
        database_connection)
    return cctxt


def _instances_by_uuid(context, database_connection, uuids):
    cctxt = _cell_context(context, database_connection)
    manager = main_db_api.get_context_manager(cctxt)
    with manager.reader.using(cctxt):
        rows = cctxt.session.query(
            main_models.Instance.uuid, main_models.Instance.deleted,
            main_models.Instance.user_id).filter(
            main_models.Instance.uuid.in_(list(uuids))).all()
    return {row.uuid: row for row in rows}


def _fill_mapping_column(context, max_count, column):
    """Set ``column`` of instance mappings where it is NULL, from the
    instance row in the mapping's cell."""
    with api_db_api.context_manager.reader.using(context):
        rows = context.session.query(
            api_models.InstanceMapping.id,
            api_models.InstanceMapping.instance_uuid,
            api_models.CellMapping.database_connection).outerjoin(
            api_models.CellMapping).filter(
            getattr(api_models.InstanceMapping, column).is_(None)).limit(
            max_count).all()
    by_cell = {}
    for row in rows:
        by_cell.setdefault(row.database_connection, []).append(row)
    updates = {}
    for url, mappings in by_cell.items():
        if url is None:
            # Never scheduled: nothing deleted, no instance to read from.
            for m in mappings:
                if column == 'queued_for_delete':
                    updates[m.id] = False
            continue
        instances = _instances_by_uuid(context, url,
                                       [m.instance_uuid for m in mappings])
        for m in mappings:
            inst = instances.get(m.instance_uuid)
            if column == 'queued_for_delete':
                updates[m.id] = inst is None or bool(inst.deleted)
            elif inst is not None and inst.user_id:
                updates[m.id] = inst.user_id
    if updates:
        with api_db_api.context_manager.writer.using(context):
            for mapping_id, value in updates.items():
                context.session.execute(
                    sa.update(api_models.InstanceMapping).where(
                        api_models.InstanceMapping.id == mapping_id).values(
                        {column: value}))
    return len(rows), len(updates)


def populate_queued_for_delete(context, max_count):
    return _fill_mapping_column(context, max_count, 'queued_for_delete')


def populate_user_id(context, max_count):
    return _fill_mapping_column(context, max_count, 'user_id')


ONLINE_MIGRATIONS = (
    ('populate_queued_for_delete', populate_queued_for_delete),
    ('populate_user_id', populate_user_id),
)
