"""Instance-usage audit periods and their task logs across every cell
(for /os-instance_usage_audit_log)."""

import datetime

from oslo_utils import timeutils

from nova_clone.compute.api import host as host_api
from nova_clone.conf import CONF
from nova_clone.db.main import task_log as task_log_db

TASK_NAME = 'instance_usage_audit'


def last_completed_period(before=None):
    """(begin, end) of the last whole [DEFAULT] instance_usage_audit_period
    ('hour', 'day', 'month' or 'year') ending at or before ``before``."""
    now = before or timeutils.utcnow().replace(tzinfo=None)
    unit = CONF.instance_usage_audit_period
    if unit == 'hour':
        end = now.replace(minute=0, second=0, microsecond=0)
        return end - datetime.timedelta(hours=1), end
    if unit == 'day':
        end = now.replace(hour=0, minute=0, second=0, microsecond=0)
        return end - datetime.timedelta(days=1), end
    if unit == 'year':
        end = datetime.datetime(now.year, 1, 1)
        return datetime.datetime(now.year - 1, 1, 1), end
    end = datetime.datetime(now.year, now.month, 1)
    begin = datetime.datetime(now.year - (now.month == 1),
                              (now.month - 2) % 12 + 1, 1)
    return begin, end


def audit_report(context, before=None):
    """What the computes' audits of the last period say, in Nova's shape."""
    begin, end = last_completed_period(before)
    logs = []
    for _cell, found in host_api._gather(
            context, task_log_db.task_log_get_all, TASK_NAME, begin, end):
        logs.extend(found)
    services = host_api.HostAPI().service_get_all(
        context, filters={'topic': 'compute'})
    hosts = {s.host for s in services}
    done = {t['host'] for t in logs if t['state'] == 'DONE'}
    running = {t['host'] for t in logs if t['state'] == 'RUNNING'}
    missing = hosts - {t['host'] for t in logs}
    errors = sum(t['errors'] for t in logs)
    items = sum(t['task_items'] for t in logs)
    done_text = 'ALL' if len(done) == len(hosts) else '%d of %d' % (
        len(done), len(hosts))
    return {
        'period_beginning': str(begin), 'period_ending': str(end),
        'num_hosts': len(hosts), 'num_hosts_done': len(done),
        'num_hosts_running': len(running),
        'num_hosts_not_run': len(missing),
        'hosts_not_run': sorted(missing),
        'total_instances': items, 'total_errors': errors,
        'overall_status': '%s hosts done. %d errors.' % (done_text, errors),
        'log': {t['host']: {'state': t['state'],
                            'instances': t['task_items'],
                            'errors': t['errors'],
                            'message': t['message']} for t in logs},
    }
