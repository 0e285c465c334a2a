"""Unshelve (conductor side): a shelved server powers on where it is; an
offloaded one is scheduled again (event ``schedule_instances``) and
handed to the chosen host's ``unshelve_instance``.
"""

from oslo_log import log as logging

from nova_clone.compute import task_states
from nova_clone.compute import utils as compute_utils
from nova_clone.compute import vm_states
from nova_clone.conf import CONF
from nova_clone import context as nova_context
from nova_clone import objects

LOG = logging.getLogger(__name__)


def unshelve_instance(manager, context, instance, request_spec=None):
    mapping = objects.InstanceMapping.get_by_instance_uuid(context,
                                                           instance.uuid)
    with nova_context.target_cell(context, mapping.cell_mapping) as cctxt:
        instance._context = cctxt
        if instance.vm_state == vm_states.SHELVED:
            instance.task_state = task_states.POWERING_ON
            instance.save(expected_task_state=task_states.UNSHELVING)
            manager.compute_rpcapi.start_instance(cctxt, instance)
            return
        _schedule_and_unshelve(manager, context, cctxt, instance,
                               request_spec)


def _schedule_and_unshelve(manager, context, cctxt, instance, request_spec):
    if request_spec is None:
        request_spec = objects.RequestSpec.get_by_instance_uuid(
            context, instance.uuid)
    image = _shelved_image(cctxt, instance)
    try:
        with compute_utils.EventReporter(cctxt, 'schedule_instances',
                                         CONF.host, instance.uuid):
            host_lists = manager.query_client.select_destinations(
                context, request_spec, [instance.uuid],
                return_objects=True, return_alternates=False)
    except Exception as exc:
        LOG.warning('Unshelve of %s found no host: %s', instance.uuid, exc)
        instance.task_state = None
        instance.save()
        return
    host = host_lists[0][0]
    LOG.info('Unshelving %s on %s', instance.uuid, host.service_host)
    manager.compute_rpcapi.unshelve_instance(
        cctxt, instance, host.service_host, request_spec, image=image,
        filter_properties={}, node=host.nodename)


def _shelved_image(cctxt, instance):
    """The snapshot shelve made, or None (a server booted from volume)."""
    from nova_clone.image import glance
    image_id = instance.system_metadata.get('shelved_image_id')
    if not image_id:
        return None
    return glance.API().get(cctxt, image_id)
