"""/os-instance_usage_audit_log: how the computes' instance-usage audits
of the last whole period went (from each cell's task_log)."""

import datetime

from nova_clone.api import auth
from nova_clone.api import common
from nova_clone.compute.api import audit
from nova_clone.policies import instance_usage_audit_log as audit_policies

_FORMATS = ('%Y-%m-%d %H:%M:%S.%f', '%Y-%m-%d %H:%M:%S')


class InstanceUsageAuditLogController(object):

    def index(self, req):
        context = auth.get_context(req)
        context.can(audit_policies.AUDIT % 'list', target={})
        return {'instance_usage_audit_logs': audit.audit_report(context)}

    def show(self, req, before_timestamp):
        context = auth.get_context(req)
        context.can(audit_policies.AUDIT % 'show', target={})
        for fmt in _FORMATS:
            try:
                before = datetime.datetime.strptime(before_timestamp, fmt)
                break
            except ValueError:
                continue
        else:
            raise common.bad_request('Invalid timestamp for date %s'
                                     % before_timestamp)
        return {'instance_usage_audit_log': audit.audit_report(context,
                                                               before)}
