"""/os-instance_usage_audit_log reports the task_log rows of the last
whole audit period, across the cells, against the compute services."""

import datetime

import pytest

from nova_clone.db.main import api as main_db_api
from nova_clone.db.main import models
from tests.functional.api import cellrecords
from tests.functional.api import samples


@main_db_api.pick_context_manager_writer
def _add_task_log(context, host, state, items, errors, begin, end):
    context.session.add(models.TaskLog(
        task_name='instance_usage_audit', host=host, state=state,
        period_beginning=begin, period_ending=end, task_items=items,
        errors=errors, message='Instance usage audit ran for host %s, %d '
        'instances in 0.01 seconds.' % (host, items)))


@pytest.fixture(scope='module')
def audited(bed):
    for host in ('audit-a', 'audit-b', 'audit-c'):
        cellrecords.add_compute(bed, host)
    ctx = cellrecords.cell_context(bed)
    # June 2012 audited, as in Nova's sample; audit-c never ran.
    begin, end = datetime.datetime(2012, 6, 1), datetime.datetime(2012, 7, 1)
    _add_task_log(ctx, 'audit-a', 'DONE', 2, 1, begin, end)
    _add_task_log(ctx, 'audit-b', 'RUNNING', 3, 0, begin, end)


def test_show_reports_the_period_before_a_date(audited, admin, demo):
    reply = admin.get('/os-instance_usage_audit_log/2012-07-05%2010:00:00')
    assert reply.status == 200, reply.body
    log = reply.body['instance_usage_audit_log']
    assert log['period_beginning'] == '2012-06-01 00:00:00'
    assert log['period_ending'] == '2012-07-01 00:00:00'
    assert log['num_hosts_done'] == 1 and log['num_hosts_running'] == 1
    assert 'audit-c' in log['hosts_not_run']
    assert log['total_instances'] == 5 and log['total_errors'] == 1
    assert log['log']['audit-a']['state'] == 'DONE'
    assert log['overall_status'] == '1 of %d hosts done. 1 errors.' % (
        log['num_hosts'])
    samples.assert_matches('os-instance-usage-audit-log/inst-usage-audit-'
                           'log-show-get-resp.json', reply.body,
                           free=('instance_usage_audit_log.log',))
    assert admin.get('/os-instance_usage_audit_log/yesterday').status == 400
    assert demo.get('/os-instance_usage_audit_log').status == 403


def test_index_reports_the_last_period(audited, admin):
    reply = admin.get('/os-instance_usage_audit_log')
    assert reply.status == 200
    log = reply.body['instance_usage_audit_logs']
    assert log['num_hosts_done'] == 0 and log['log'] == {}
    samples.assert_matches('os-instance-usage-audit-log/inst-usage-audit-'
                           'log-index-get-resp.json', reply.body,
                           free=('instance_usage_audit_logs.log',
                                 'instance_usage_audit_logs.hosts_not_run'))
