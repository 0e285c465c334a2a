"""TaskLog: one host's run of a periodic audit over a period (a cell's
task_log row); computes write it through the conductor."""

from nova_clone.db.main import task_log as task_log_db
from nova_clone.objects import base
from nova_clone.objects import fields


@base.NovaObjectRegistry.register
class TaskLog(base.NovaObject):
    VERSION = '1.0'

    fields = {
        'task_name': fields.StringField(),
        'state': fields.StringField(nullable=True),
        'host': fields.StringField(),
        'period_beginning': fields.DateTimeField(),
        'period_ending': fields.DateTimeField(),
        'message': fields.StringField(nullable=True),
        'task_items': fields.IntegerField(nullable=True),
        'errors': fields.IntegerField(nullable=True),
    }

    @base.remotable_classmethod
    def get(cls, context, task_name, period_beginning, period_ending, host,
            state=None):
        """The run of ``host`` for the period, or None."""
        rows = task_log_db.task_log_get_all(
            context, task_name, period_beginning, period_ending, host=host,
            state=state)
        if not rows:
            return None
        row = rows[0]
        log = cls(context, task_name=task_name,
                  period_beginning=period_beginning,
                  period_ending=period_ending, host=host,
                  state=row['state'], message=row['message'],
                  task_items=row['task_items'], errors=row['errors'])
        log.obj_reset_changes()
        return log

    @base.remotable
    def begin_task(self):
        task_log_db.task_log_begin_task(
            self._context, self.task_name, self.period_beginning,
            self.period_ending, self.host, task_items=self.task_items,
            message=self.message)
        self.state = 'RUNNING'
        self.obj_reset_changes()

    @base.remotable
    def end_task(self):
        task_log_db.task_log_end_task(
            self._context, self.task_name, self.period_beginning,
            self.period_ending, self.host, self.errors or 0,
            message=self.message)
        self.state = 'DONE'
        self.obj_reset_changes()
