"""Queries on a cell's task_log table (runs of periodic audits per host)."""

from nova_clone.db.main import api as main_db_api
from nova_clone.db.main import models
from nova_clone.db.main import queries


@main_db_api.pick_context_manager_reader
def task_log_get_all(context, task_name, period_beginning, period_ending,
                     host=None, state=None):
    """Rows of ``task_name`` for exactly that period, as dicts."""
    model = models.TaskLog
    query = queries.model_query(context, model).filter_by(
        task_name=task_name, period_beginning=period_beginning,
        period_ending=period_ending)
    if host is not None:
        query = query.filter_by(host=host)
    if state is not None:
        query = query.filter_by(state=state)
    return [{'host': row.host, 'state': row.state,
             'task_items': row.task_items or 0, 'errors': row.errors or 0,
             'message': row.message} for row in query]
