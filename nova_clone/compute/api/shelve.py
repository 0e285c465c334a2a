"""The API side of shelve, shelveOffload and unshelve.

Shelve: task_state ``shelving``; an image-backed server gets a snapshot
image in Glance (``<name>-shelved``) that the compute fills
(``shelve_instance``), a volume-backed one is offloaded directly
(``shelve_offload_instance``).  Unshelve: task_state ``unshelving``; the
request spec takes the zone (2.77) or host (2.91) asked for, and the
conductor schedules the offloaded server again (``unshelve_instance``).
"""

from nova_clone.compute.api import build
from nova_clone.compute.api import volumes
from nova_clone.compute import instance_actions
from nova_clone.compute import task_states
from nova_clone.compute import vm_states
from nova_clone import exception

# unshelve's ``availability_zone`` when the request did not name one (None
# is a request: unpin the server from its zone).
UNSET = object()


def _objects():
    from nova_clone import objects
    return objects


def _start(cctxt, instance, task_state, action):
    instance._context = cctxt
    instance.task_state = task_state
    instance.save(expected_task_state=[None])
    _objects().InstanceAction.action_start(
        cctxt, instance.uuid, action, want_result=False)


def _is_volume_backed(cctxt, instance):
    if instance.image_ref:
        return False
    bdms = _objects().BlockDeviceMappingList.get_by_instance_uuid(
        cctxt, instance.uuid)
    return any(b.is_root and b.destination_type == 'volume' for b in bdms)


def shelve(compute_api, context, instance, clean_shutdown=True):
    with volumes.in_cell(context, instance) as cctxt:
        _start(cctxt, instance, task_states.SHELVING,
               instance_actions.SHELVE)
        if _is_volume_backed(cctxt, instance):
            compute_api.compute_rpcapi.shelve_offload_instance(
                cctxt, instance, clean_shutdown=clean_shutdown)
            return
        image = compute_api.image_api.create(cctxt, {
            'name': '%s-shelved' % instance.display_name,
            'container_format': 'bare', 'disk_format': 'raw',
            'properties': {'instance_uuid': instance.uuid,
                           'image_type': 'snapshot',
                           'base_image_ref': instance.image_ref}})
        compute_api.compute_rpcapi.shelve_instance(
            cctxt, instance, image_id=image['id'],
            clean_shutdown=clean_shutdown)


def shelve_offload(compute_api, context, instance, clean_shutdown=True):
    with volumes.in_cell(context, instance) as cctxt:
        _start(cctxt, instance, task_states.SHELVING_OFFLOADING,
               instance_actions.SHELVE_OFFLOAD)
        compute_api.compute_rpcapi.shelve_offload_instance(
            cctxt, instance, clean_shutdown=clean_shutdown)


def unshelve(compute_api, context, instance, availability_zone=UNSET,
             host=None):
    offloaded = instance.vm_state == vm_states.SHELVED_OFFLOADED
    if (availability_zone is not UNSET or host) and not offloaded:
        raise exception.UnshelveInstanceInvalidState(
            state=instance.vm_state, instance_uuid=instance.uuid)
    spec = _objects().RequestSpec.get_by_instance_uuid(context,
                                                       instance.uuid)
    if availability_zone is not UNSET:
        if availability_zone is not None:
            build.parse_availability_zone(context, availability_zone)
        spec.availability_zone = availability_zone
    if host:
        try:
            compute_api.host_api.service_get_by_host_and_binary(
                context, host, 'nova-compute')
        except exception.NotFound:
            raise exception.ComputeHostNotFound(host=host)
        spec.requested_destination = _objects().Destination(host=host)
    spec.save()
    with volumes.in_cell(context, instance) as cctxt:
        _start(cctxt, instance, task_states.UNSHELVING,
               instance_actions.UNSHELVE)
        if availability_zone is not UNSET:
            instance.availability_zone = availability_zone
            instance.save()
    compute_api.compute_task_api.unshelve_instance(context, instance,
                                                   request_spec=spec)
