"""The API side of rescue and unrescue.

Rescue boots the server from a rescue image (the one asked for, else the
server's own) with its disk attached, so a user can repair it; the
server is RESCUE until unrescue boots it from its disk again.  A
volume-backed server can be rescued from 2.87 only, with a rescue image
that says where the rescue disk goes (hw_rescue_device, hw_rescue_bus).
"""

from nova_clone.compute.api import rebuild as rebuild_flow
from nova_clone.compute import instance_actions
from nova_clone.compute import task_states
from nova_clone import exception

# What a rescue image of a volume-backed server must say.
_BFV_RESCUE_PROPERTIES = ('hw_rescue_device', 'hw_rescue_bus')


def _objects():
    from nova_clone import objects
    return objects


def _check_rescuable(compute_api, context, instance, rescue_image_ref,
                     allow_bfv_rescue):
    if not rebuild_flow.is_volume_backed(context, instance):
        return
    if not allow_bfv_rescue:
        raise exception.InstanceNotRescuable(
            instance_id=instance.uuid,
            reason='Cannot rescue a volume-backed instance')
    image = compute_api.image_api.get(context, rescue_image_ref) \
        if rescue_image_ref else {}
    properties = image.get('properties') or {}
    if not all(properties.get(p) for p in _BFV_RESCUE_PROPERTIES):
        raise exception.InstanceNotRescuable(
            instance_id=instance.uuid,
            reason='Cannot rescue a volume-backed instance without a '
                   'rescue image that sets hw_rescue_device and '
                   'hw_rescue_bus')


def _start(context, instance, task_state, action):
    instance.task_state = task_state
    instance.save(expected_task_state=[None])
    _objects().InstanceAction.action_start(context, instance.uuid, action,
                                           want_result=False)


def rescue(compute_api, context, instance, rescue_password,
           rescue_image_ref=None, allow_bfv_rescue=False):
    if rescue_image_ref:
        # ImageNotFound before anything changes.
        compute_api.image_api.get(context, rescue_image_ref)
    _check_rescuable(compute_api, context, instance, rescue_image_ref,
                     allow_bfv_rescue)
    _start(context, instance, task_states.RESCUING,
           instance_actions.RESCUE)
    compute_api.compute_rpcapi.rescue_instance(
        context, instance, rescue_password=rescue_password,
        rescue_image_ref=rescue_image_ref, clean_shutdown=True)


def unrescue(compute_api, context, instance):
    _start(context, instance, task_states.UNRESCUING,
           instance_actions.UNRESCUE)
    compute_api.compute_rpcapi.unrescue_instance(context, instance)


def set_admin_password(compute_api, context, instance, password):
    """changePassword: the compute sets it in the guest (an RPC call, so
    its refusal is the request's)."""
    _start(context, instance, task_states.UPDATING_PASSWORD,
           instance_actions.CHANGE_PASSWORD)
    compute_api.compute_rpcapi.set_admin_password(context, instance,
                                                  password)
