"""Soft delete, restore and reclaim on the instance's compute.

With [DEFAULT] reclaim_instance_interval > 0 a DELETE only powers the
guest off (soft_delete_instance: vm_state soft-delete); restore powers it
on again (active).  The periodic reclaim deletes, as a delete would, the
soft-deleted instances of this host older than the interval.
"""

from oslo_log import log as logging
from oslo_utils import timeutils

from nova_clone.compute.host import block_devices
from nova_clone.compute.host import build
from nova_clone.compute.host import collaborators
from nova_clone.compute.host import delete
from nova_clone.compute import task_states
from nova_clone.compute import utils as compute_utils
from nova_clone.compute import vm_states
from nova_clone.conf import CONF

LOG = logging.getLogger(__name__)


def _settle(collab, instance, vm_state, expected_task_state):
    instance.power_state = build.get_power_state(collab.driver, instance)
    instance.vm_state = vm_state
    instance.task_state = None
    instance.save(expected_task_state=[expected_task_state])


def soft_delete_instance(collab, context, instance):
    compute_utils.notify_about_instance_action(
        context, instance, collab.host, 'soft_delete', phase='start')
    with collaborators.instance_lock(instance.uuid):
        collab.driver.power_off(instance)
        _settle(collab, instance, vm_states.SOFT_DELETED,
                task_states.SOFT_DELETING)
    compute_utils.notify_about_instance_action(
        context, instance, collab.host, 'soft_delete', phase='end')


def restore_instance(collab, context, instance):
    compute_utils.notify_about_instance_action(
        context, instance, collab.host, 'restore', phase='start')
    with collaborators.instance_lock(instance.uuid):
        network_info = collab.network_api.get_instance_nw_info(context,
                                                               instance)
        collab.driver.power_on(context, instance, network_info)
        _settle(collab, instance, vm_states.ACTIVE, task_states.RESTORING)
    compute_utils.notify_about_instance_action(
        context, instance, collab.host, 'restore', phase='end')


def reclaim_queued_deletes(collab, context):
    interval = CONF.reclaim_instance_interval
    if interval <= 0:
        return
    instances = compute_utils._objects().InstanceList.get_by_filters(
        context, {'vm_state': vm_states.SOFT_DELETED, 'task_state': None,
                  'host': collab.host},
        expected_attrs=['info_cache', 'system_metadata', 'flavor'])
    for instance in instances:
        if not instance.deleted_at or \
                not timeutils.is_older_than(instance.deleted_at, interval):
            continue
        LOG.info('Reclaiming soft-deleted instance %s', instance.uuid)
        try:
            with collaborators.instance_lock(instance.uuid):
                delete.delete_instance(
                    collab, context, instance,
                    block_devices.get_bdms(context, instance))
        except Exception:
            LOG.exception('Reclaiming instance %s failed', instance.uuid)
