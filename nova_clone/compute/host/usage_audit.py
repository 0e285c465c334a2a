"""The periodic instance usage audit of this host ([DEFAULT]
instance_usage_audit): once per completed period, a
compute.instance.exists notification for each instance that lived on the
host during it, and a task_log row saying how the run went."""

import time

from oslo_log import log as logging

from nova_clone.compute import audit_period
from nova_clone.compute import utils as compute_utils
from nova_clone.conf import CONF
from nova_clone import rpc

LOG = logging.getLogger(__name__)

TASK_NAME = 'instance_usage_audit'


def _iso(value):
    return value.isoformat() if value is not None else None


def notify_usage_exists(context, instance, host, begin, end):
    flavor = instance.flavor
    payload = {
        'tenant_id': instance.project_id, 'user_id': instance.user_id,
        'instance_id': instance.uuid, 'display_name': instance.display_name,
        'instance_type': flavor.name, 'instance_type_id': flavor.id,
        'memory_mb': flavor.memory_mb, 'vcpus': flavor.vcpus,
        'root_gb': flavor.root_gb, 'ephemeral_gb': flavor.ephemeral_gb,
        'disk_gb': flavor.root_gb + flavor.ephemeral_gb,
        'state': instance.vm_state, 'host': host,
        'launched_at': _iso(instance.launched_at),
        'terminated_at': _iso(instance.terminated_at),
        'audit_period_beginning': _iso(begin),
        'audit_period_ending': _iso(end),
    }
    rpc.get_notifier('compute', host).info(context, 'compute.instance.exists',
                                           payload)


def instance_usage_audit(collab, context):
    if not CONF.instance_usage_audit:
        return
    objects = compute_utils._objects()
    begin, end = audit_period.last_completed_period()
    if objects.TaskLog.get(context, TASK_NAME, begin, end, collab.host):
        return
    instances = objects.InstanceList.get_active_by_window_joined(
        context, begin, end, host=collab.host, expected_attrs=['flavor'])
    LOG.info('Running instance usage audit for host %s from %s to %s: %d '
             'instances.', collab.host, begin, end, len(instances))
    log = objects.TaskLog(context, task_name=TASK_NAME,
                          period_beginning=begin, period_ending=end,
                          host=collab.host, task_items=len(instances),
                          message='Instance usage audit started...')
    log.begin_task()
    started = time.monotonic()
    errors = 0
    for instance in instances:
        try:
            notify_usage_exists(context, instance, collab.host, begin, end)
        except Exception:
            LOG.exception('Usage audit notification of %s failed',
                          instance.uuid)
            errors += 1
    log.errors = errors
    log.message = ('Instance usage audit ran for host %s, %d instances in '
                   '%.2f seconds.' % (collab.host, len(instances),
                                      time.monotonic() - started))
    log.end_task()
