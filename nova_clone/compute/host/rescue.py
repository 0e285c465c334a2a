"""rescue_instance, unrescue_instance and set_admin_password on the
instance's compute.

Rescue powers the guest off and has the driver boot it from the rescue
image with the original disk attached: vm_state rescued.  A driver
failure leaves the server in ERROR (InstanceNotRescuable, recorded as
the fault).  Unrescue boots it from its own disk again: active.
set_admin_password needs a running guest; its refusals clear the task
and reach the API (an RPC call).
"""

from oslo_log import log as logging
from oslo_utils import timeutils

from nova_clone.compute.host import build
from nova_clone.compute.host import teardown
from nova_clone.compute import power_state
from nova_clone.compute import task_states
from nova_clone.compute import utils as compute_utils
from nova_clone.compute import vm_states
from nova_clone import exception

LOG = logging.getLogger(__name__)


def _rescue_image(collab, context, instance, rescue_image_ref):
    """The image asked for, else the one the server was booted from."""
    image_ref = rescue_image_ref or (instance.system_metadata or {}).get(
        'image_base_image_ref') or instance.image_ref
    if not image_ref:
        raise exception.InstanceNotRescuable(
            instance_id=instance.uuid, reason='no rescue image')
    return collab.image_api.get(context, image_ref)


def rescue_instance(collab, context, instance, rescue_password,
                    rescue_image_ref=None, clean_shutdown=True):
    admin_password = rescue_password or compute_utils.generate_password()
    network_info = collab.network_api.get_instance_nw_info(context,
                                                           instance)
    image = _rescue_image(collab, context, instance, rescue_image_ref)
    compute_utils.notify_about_instance_action(
        context, instance, collab.host, 'rescue', phase='start')
    try:
        collab.driver.power_off(instance)
        collab.driver.rescue(context, instance, network_info, image,
                             admin_password)
    except Exception as exc:
        LOG.exception('Rescue of %s failed', instance.uuid)
        teardown.set_error_state(instance)
        raise exception.InstanceNotRescuable(
            instance_id=instance.uuid, reason='Driver Error: %s' % exc)
    instance.vm_state = vm_states.RESCUED
    instance.task_state = None
    instance.power_state = build.get_power_state(collab.driver, instance)
    instance.launched_at = timeutils.utcnow()
    instance.save(expected_task_state=task_states.RESCUING)
    compute_utils.notify_about_instance_action(
        context, instance, collab.host, 'rescue', phase='end')


def unrescue_instance(collab, context, instance):
    network_info = collab.network_api.get_instance_nw_info(context,
                                                           instance)
    compute_utils.notify_about_instance_action(
        context, instance, collab.host, 'unrescue', phase='start')
    collab.driver.unrescue(context, instance, network_info)
    instance.vm_state = vm_states.ACTIVE
    instance.task_state = None
    instance.power_state = build.get_power_state(collab.driver, instance)
    instance.save(expected_task_state=task_states.UNRESCUING)
    compute_utils.notify_about_instance_action(
        context, instance, collab.host, 'unrescue', phase='end')


def set_admin_password(collab, context, instance, new_pass):
    def done():
        instance.task_state = None
        instance.save(expected_task_state=task_states.UPDATING_PASSWORD)

    if build.get_power_state(collab.driver, instance) != \
            power_state.RUNNING:
        done()
        raise exception.InstancePasswordSetFailed(
            instance=instance.uuid,
            reason='instance %s is not running' % instance.uuid)
    try:
        collab.driver.set_admin_password(instance, new_pass)
    except (exception.InstanceAgentNotEnabled,
            exception.SetAdminPasswdNotSupported, NotImplementedError):
        done()
        raise
    except exception.UnexpectedTaskStateError:
        raise
    except Exception:
        LOG.exception('Setting the admin password of %s failed',
                      instance.uuid)
        done()
        raise exception.InstancePasswordSetFailed(
            instance=instance.uuid, reason='set_admin_password failed')
    LOG.info('Admin password set on %s', instance.uuid)
    done()
