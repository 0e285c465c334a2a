"""The computes' instance-usage audits of a period, from every cell's
task_log (for /os-instance_usage_audit_log)."""

from nova_clone.compute.api import host as host_api
from nova_clone.compute import audit_period
from nova_clone.db.main import task_log as task_log_db

TASK_NAME = 'instance_usage_audit'


def audit_report(context, before=None):
    """What the computes' audits of the last period say, in Nova's shape."""
    begin, end = audit_period.last_completed_period(before)
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
