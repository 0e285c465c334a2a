"""The API side of evacuate: rebuild a server elsewhere when its host is
down (or forced down).

The server takes task_state rebuilding, the action ``evacuate`` is
recorded, a Migration of type evacuation (status accepted) is left for
the source compute to find when it comes back, and the conductor gets
``rebuild_instance`` with recreate semantics.  A host asked for becomes
the request's destination: the scheduler still checks it.
"""

from oslo_log import log as logging

from nova_clone.compute import instance_actions
from nova_clone.compute import task_states
from nova_clone import exception

LOG = logging.getLogger(__name__)


def _objects():
    from nova_clone import objects
    return objects


def evacuate(compute_api, context, instance, host, on_shared_storage,
             admin_password, target_state=None):
    objects = _objects()
    if compute_api.host_api.compute_is_up(context, instance.host):
        LOG.error('Instance %s: compute %s expected down for an evacuate '
                  'but it is up', instance.uuid, instance.host)
        raise exception.ComputeServiceInUse(host=instance.host)
    spec = objects.RequestSpec.get_by_instance_uuid(context, instance.uuid)
    instance.task_state = task_states.REBUILDING
    instance.save(expected_task_state=[None])
    objects.InstanceAction.action_start(
        context, instance.uuid, instance_actions.EVACUATE, want_result=False)
    migration = objects.Migration(
        context=context, source_compute=instance.host,
        source_node=instance.node, instance_uuid=instance.uuid,
        status='accepted',
        migration_type='evacuation', dest_compute=host,
        project_id=instance.project_id, user_id=instance.user_id)
    migration.create()
    if host:
        spec.requested_destination = objects.Destination(host=host)
    LOG.info('Evacuating instance %s from %s', instance.uuid, instance.host)
    compute_api.compute_task_api.rebuild_instance(
        context, instance=instance, new_pass=admin_password,
        injected_files=None, image_ref=None, orig_image_ref=None,
        orig_sys_metadata=None, bdms=None, recreate=True,
        on_shared_storage=on_shared_storage, host=None, request_spec=spec,
        target_state=target_state)
