"""Queries on a cell's task_log table (runs of periodic audits per host)."""

from oslo_db import exception as db_exc

from nova_clone.db.main import api as main_db_api
from nova_clone.db.main import models
from nova_clone.db.main import queries
from nova_clone import exception


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


@main_db_api.pick_context_manager_writer
def task_log_begin_task(context, task_name, period_beginning, period_ending,
                        host, task_items=None, message=None):
    """A RUNNING row; TaskAlreadyRunning when the period has one."""
    row = models.TaskLog(task_name=task_name, state='RUNNING', host=host,
                         period_beginning=period_beginning,
                         period_ending=period_ending, errors=0,
                         task_items=task_items or 0, message=message or '')
    try:
        with context.session.begin_nested():
            context.session.add(row)
    except db_exc.DBDuplicateEntry:
        raise exception.TaskAlreadyRunning(task_name=task_name, host=host)


@main_db_api.pick_context_manager_writer
def task_log_end_task(context, task_name, period_beginning, period_ending,
                      host, errors, message=None):
    done = queries.model_query(context, models.TaskLog).filter_by(
        task_name=task_name, period_beginning=period_beginning,
        period_ending=period_ending, host=host).update(
            {'state': 'DONE', 'errors': errors, 'message': message or ''},
            synchronize_session=False)
    if not done:
        raise exception.TaskNotRunning(task_name=task_name, host=host)
