"""The delete flow (terminate_instance) and the teardown steps it shares
with failed builds and the reaping of deleted-but-running guests."""

from oslo_log import log as logging
from oslo_utils import excutils
from oslo_utils import timeutils

from nova_clone.compute import block_devices
from nova_clone.compute import events as compute_events
from nova_clone.compute import power_state
from nova_clone.compute import utils as compute_utils
from nova_clone.compute import vm_states
from nova_clone import exception

LOG = logging.getLogger(__name__)



class DeleteMixin:
    """terminate_instance of the compute manager."""

    @compute_utils.wrap_instance_event(prefix='compute')
    @compute_utils.wrap_instance_fault
    def terminate_instance(self, context, instance, bdms):
        # A build of this instance waiting for Neutron events gives up now
        # instead of holding the delete until vif_plugging_timeout.
        self._cancel_event_waiters(instance)
        with self._instance_lock(instance.uuid):
            try:
                self._delete_instance(context, instance, bdms)
            except exception.InstanceNotFound:
                LOG.info('Instance %s disappeared during terminate',
                         instance.uuid)
            except Exception:
                with excutils.save_and_reraise_exception():
                    LOG.exception('Delete of instance %s failed',
                                  instance.uuid)
                    self._set_instance_obj_error_state(instance)

    def _cancel_event_waiters(self, instance):
        waiters = self.instance_events.clear_events_for_instance(
            instance.uuid)
        for waiter in waiters.values():
            waiter.send({'name': waiter.name, 'tag': waiter.tag,
                         'status': compute_events.CANCELLED})

    def _get_bdms(self, context, instance):
        bdm_list = compute_utils._objects().BlockDeviceMappingList
        return bdm_list.get_by_instance_uuid(context, instance.uuid)

    def _delete_instance(self, context, instance, bdms):
        if bdms is None:
            bdms = self._get_bdms(context, instance)
        compute_utils.notify_about_instance_action(
            context, instance, self.host, 'delete', phase='start', bdms=bdms)
        # The emptied network info cache goes with the DELETED save below.
        self._shutdown_instance(context, instance, bdms,
                                save_network_cache=False)
        self._cleanup_volumes(context, instance, bdms, raise_exc=False)
        # The guest is gone: the record says so whatever task_state the
        # API left on it.
        instance.vm_state = vm_states.DELETED
        instance.task_state = None
        instance.power_state = power_state.NOSTATE
        instance.terminated_at = timeutils.utcnow()
        instance.save()
        self._complete_deletion(context, instance)
        # Only once Placement forgot the allocation: otherwise a retry of
        # the delete must still find the instance.
        instance.destroy()
        compute_utils.notify_about_instance_action(
            context, instance, self.host, 'delete', phase='end', bdms=bdms)

    def _complete_deletion(self, context, instance):
        self.rt.remove_instance(context, instance)
        self.reportclient.delete_allocation_for_instance(
            context, instance.uuid, force=True)

    def _shutdown_instance(self, context, instance, bdms,
                           requested_networks=None, notify=True,
                           try_deallocate_networks=True, network_info=None,
                           save_network_cache=True):
        """Destroy the guest, release its networks and volume connections.

        ``save_network_cache=False``: the caller's next instance.save()
        stores the emptied network info cache.
        """
        if network_info is None:
            network_info = compute_events._cached_network_info(instance)
        block_device_info = block_devices.block_device_info_from_bdms(
            instance, bdms)
        LOG.info('Destroying guest of instance %s on %s', instance.uuid,
                 self.host)
        self.driver.destroy(context, instance, network_info,
                            block_device_info)
        if try_deallocate_networks:
            self._cleanup_allocated_networks(context, instance,
                                             requested_networks,
                                             raise_exc=True,
                                             save_cache=save_network_cache)
        for bdm in bdms or []:
            if not block_devices.is_volume_bdm(bdm) or not bdm.attachment_id:
                continue
            try:
                self.volume_api.attachment_delete(context, bdm.attachment_id)
            except exception.NotFound:
                pass
            except Exception:
                LOG.exception('Could not delete attachment %s of volume %s',
                              bdm.attachment_id, bdm.volume_id)
                continue
            if not try_deallocate_networks:
                # A failed build: the next attempt makes its own attachment.
                bdm.attachment_id = None
                try:
                    bdm.save()
                except Exception:
                    LOG.debug('Could not save BDM of %s', instance.uuid,
                              exc_info=True)

    def _cleanup_allocated_networks(self, context, instance,
                                    requested_networks, raise_exc=False,
                                    save_cache=True):
        try:
            self.network_api.deallocate_for_instance(
                context, instance, requested_networks=requested_networks,
                save_cache=save_cache)
        except Exception:
            if raise_exc:
                raise
            LOG.exception('Failed to deallocate networks of %s',
                          instance.uuid)
        if save_cache:
            compute_events._save_network_info(instance, [])
        else:
            compute_events.set_network_info(instance, [])
