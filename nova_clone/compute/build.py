"""The build flow: build_and_run_instance on the chosen compute.

Order of work (each step visible in the instance's task_state): claim,
Placement allocations, networks (ports bound to this host), block devices
(Cinder attachments), spawn while waiting for network-vif-plugged, ACTIVE.

Every exit leaves the instance in a final state or hands it on:
  * retryable failure (RescheduledException) -> this host's allocation and
    networks released, task_state scheduling, conductor build_instances
    with the remaining alternates;
  * fatal failure (BuildAbortException or anything unexpected) -> ERROR
    with an instance fault, allocation and networks released;
  * instance deleted meanwhile -> clean up and stop quietly.
"""

import contextlib
import contextvars
import sys
import threading
import traceback

from oslo_log import log as logging
from oslo_utils import excutils
from oslo_utils import timeutils

from nova_clone.compute import events as compute_events
from nova_clone.compute import power_state
from nova_clone.compute import task_states
from nova_clone.compute import utils as compute_utils
from nova_clone.compute import vm_states
from nova_clone.conf import CONF
from nova_clone import exception

LOG = logging.getLogger(__name__)

ACTIVE = 'active'
RESCHEDULED = 'rescheduled'
FAILED = 'failed'

NETWORK_FAILURE = 'Failed to allocate the network(s), not rescheduling.'


class _UnlimitedSemaphore:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class InFlight:
    """Counts builds running on this host, so a stop can wait for them."""

    def __init__(self):
        self._cond = threading.Condition()
        self.count = 0

    def start(self):
        with self._cond:
            self.count += 1

    def done(self):
        with self._cond:
            self.count -= 1
            self._cond.notify_all()

    def wait_idle(self, timeout=None):
        with self._cond:
            return self._cond.wait_for(lambda: self.count == 0, timeout)


def build_semaphore():
    if CONF.max_concurrent_builds:
        return threading.BoundedSemaphore(CONF.max_concurrent_builds)
    return _UnlimitedSemaphore()


def _image_id(image):
    if not image:
        return None
    return image.get('id') if isinstance(image, dict) else getattr(
        image, 'id', None)


class BuildMixin:
    """build_and_run_instance of the compute manager."""

    def build_and_run_instance(self, context, instance, image, request_spec,
                               filter_properties, accel_uuids=None,
                               admin_password=None, injected_files=None,
                               requested_networks=None, security_groups=None,
                               block_device_mapping=None, node=None,
                               limits=None, host_list=None):
        """RPC cast: start the build in the bounded build pool and return."""
        # Keep network-vif-plugged events that arrive before spawn waits.
        self.instance_events.expect_events_for(instance.uuid)
        kwargs = dict(
            image=image, request_spec=request_spec,
            filter_properties=filter_properties,
            admin_password=admin_password, injected_files=injected_files,
            requested_networks=requested_networks,
            security_groups=security_groups,
            block_device_mapping=block_device_mapping, node=node,
            limits=limits, host_list=host_list, accel_uuids=accel_uuids)

        def run():
            with self._build_semaphore:
                try:
                    self._locked_do_build_and_run_instance(
                        context, instance, **kwargs)
                except Exception as exc:
                    LOG.exception('Unexpected build failure of %s',
                                  instance.uuid)
                    self._last_resort_failure(context, instance, exc)
                finally:
                    self.instance_events.clear_events_for_instance(
                        instance.uuid)
                    self._builds_in_flight.done()

        # The build runs with this request's context (which carries the
        # service's object indirection API); a new thread starts empty.
        thread = threading.Thread(target=contextvars.copy_context().run,
                                  args=(run,), daemon=True,
                                  name='build-%s' % instance.uuid)
        self._builds_in_flight.start()
        thread.start()

    def _locked_do_build_and_run_instance(self, context, instance, **kwargs):
        # Serialized with terminate_instance of the same instance, so a
        # delete waits for the build to reach a stable point.
        with self._instance_lock(instance.uuid):
            return self._do_build_and_run_instance(context, instance,
                                                   **kwargs)

    @compute_utils.wrap_instance_event(prefix='compute')
    def _do_build_and_run_instance(self, context, instance, image,
                                   request_spec, filter_properties,
                                   admin_password, injected_files,
                                   requested_networks, security_groups,
                                   block_device_mapping, node=None,
                                   limits=None, host_list=None,
                                   accel_uuids=None):
        try:
            instance.vm_state = vm_states.BUILDING
            instance.task_state = None
            instance.save(expected_task_state=(task_states.SCHEDULING, None))
        except exception.InstanceNotFound:
            LOG.debug('Instance %s deleted before its build started',
                      instance.uuid)
            return FAILED
        except exception.UnexpectedTaskStateError as exc:
            # Deleting, or owned by another operation: not ours to build.
            LOG.debug('Not building %s: %s', instance.uuid,
                      exc.format_message())
            return FAILED

        filter_properties = dict(filter_properties or {})
        image = image or {}
        if node is None:
            node = self._default_nodename()
        if block_device_mapping is None:
            block_device_mapping = self._get_bdms(context, instance)

        try:
            self._build_and_run_instance(
                context, instance, image, injected_files, admin_password,
                requested_networks, security_groups, block_device_mapping,
                node, limits, filter_properties, request_spec, accel_uuids)
            LOG.info('Instance %s built on %s', instance.uuid, self.host)
            return ACTIVE
        except exception.RescheduledException as exc:
            return self._reschedule_or_fail(
                context, instance, exc, image, filter_properties,
                admin_password, injected_files, requested_networks,
                security_groups, block_device_mapping, request_spec,
                host_list)
        except (exception.InstanceNotFound,
                exception.UnexpectedDeletingTaskStateError):
            LOG.info('Instance %s disappeared during build', instance.uuid)
            self._cleanup_allocated_networks(context, instance,
                                             requested_networks)
            self._delete_allocation(context, instance)
            return FAILED
        except Exception as exc:
            exc_info = sys.exc_info()
            if isinstance(exc, exception.BuildAbortException):
                LOG.error('Build of %s aborted: %s', instance.uuid,
                          exc.format_message())
            else:
                LOG.exception('Unexpected build failure of %s, not '
                              'rescheduling', instance.uuid)
            self._fail_build(context, instance, exc, exc_info,
                             requested_networks, block_device_mapping)
            return FAILED

    # -- outcomes ----------------------------------------------------------

    def _fail_build(self, context, instance, exc, exc_info,
                    requested_networks, bdms, fault_message=None):
        self._cleanup_allocated_networks(context, instance,
                                         requested_networks)
        self._cleanup_volumes(context, instance, bdms, raise_exc=False)
        compute_utils.add_instance_fault_from_exc(
            context, instance, exc, exc_info, fault_message=fault_message)
        self._delete_allocation(context, instance)
        # An instance that failed to build lives on no host.
        instance.host = None
        instance.node = None
        self._set_instance_obj_error_state(instance, clean_task_state=True)

    def _reschedule_or_fail(self, context, instance, exc, image,
                            filter_properties, admin_password,
                            injected_files, requested_networks,
                            security_groups, bdms, request_spec, host_list):
        reason = exc.kwargs.get('reason') or exc.format_message()
        retry = filter_properties.get('retry')
        if not retry and not host_list:
            LOG.warning('Build of %s failed and there is nowhere to retry: '
                        '%s', instance.uuid, reason)
            self._fail_build(context, instance, exc, sys.exc_info(),
                             requested_networks, bdms, fault_message=reason)
            return FAILED
        LOG.info('Rescheduling build of %s away from %s: %s', instance.uuid,
                 self.host, reason)
        if retry is not None:
            retry['exc'] = traceback.format_exception(*sys.exc_info())
            retry['exc_reason'] = reason
        self._cleanup_allocated_networks(context, instance,
                                         requested_networks)
        instance.host = None
        instance.node = None
        instance.task_state = task_states.SCHEDULING
        instance.save()
        # The next host claims its own allocation; ours must go first.
        self._delete_allocation(context, instance)
        try:
            self.compute_task_api.build_instances(
                context, [instance], image, filter_properties,
                admin_password, injected_files, requested_networks,
                security_groups, bdms, request_spec=request_spec,
                host_lists=[list(host_list or [])])
        except Exception as cast_exc:
            # Nobody will pick the instance up: it must not stay BUILD.
            LOG.exception('Could not hand %s back to the conductor',
                          instance.uuid)
            self._fail_build(context, instance, cast_exc, sys.exc_info(),
                             requested_networks, bdms, fault_message=reason)
            return FAILED
        return RESCHEDULED

    def _last_resort_failure(self, context, instance, exc):
        """A failure outside the flow's own handling: still end in ERROR."""
        try:
            compute_utils.add_instance_fault_from_exc(
                context, instance, exc, sys.exc_info())
            self._delete_allocation(context, instance)
            self._set_instance_obj_error_state(instance,
                                               clean_task_state=True)
        except Exception:
            LOG.exception('Could not set instance %s to ERROR',
                          instance.uuid)

    def _set_instance_obj_error_state(self, instance, clean_task_state=False):
        try:
            instance.vm_state = vm_states.ERROR
            if clean_task_state:
                instance.task_state = None
            instance.save()
        except exception.InstanceNotFound:
            LOG.debug('Instance %s gone while setting ERROR', instance.uuid)

    def _delete_allocation(self, context, instance):
        try:
            self.reportclient.delete_allocation_for_instance(
                context, instance.uuid, force=True)
        except Exception:
            LOG.exception('Could not delete the allocations of %s',
                          instance.uuid)

    # -- the build itself --------------------------------------------------

    def _build_and_run_instance(self, context, instance, image,
                                injected_files, admin_password,
                                requested_networks, security_groups, bdms,
                                node, limits, filter_properties,
                                request_spec, accel_uuids):
        compute_utils.notify_about_instance_action(
            context, instance, self.host, 'create', phase='start', bdms=bdms)
        try:
            with self.rt.instance_claim(context, instance, node, None,
                                        limits):
                with self._build_resources(context, instance,
                                           requested_networks,
                                           security_groups, image,
                                           bdms) as resources:
                    instance.vm_state = vm_states.BUILDING
                    instance.task_state = task_states.SPAWNING
                    instance.save(expected_task_state=(
                        task_states.BLOCK_DEVICE_MAPPING))
                    self._spawn(context, instance, image, injected_files,
                                admin_password, resources)
        except (exception.InstanceNotFound,
                exception.UnexpectedDeletingTaskStateError) as exc:
            self._notify_build_error(context, instance, exc)
            raise
        except exception.ComputeResourcesUnavailable as exc:
            self._notify_build_error(context, instance, exc)
            raise exception.RescheduledException(
                instance_uuid=instance.uuid, reason=exc.format_message())
        except exception.BuildAbortException as exc:
            self._notify_build_error(context, instance, exc)
            raise
        except exception.VirtualInterfaceCreateException as exc:
            LOG.error('Networking of %s failed: %s', instance.uuid,
                      exc.format_message())
            self._notify_build_error(context, instance, exc)
            raise exception.BuildAbortException(
                instance_uuid=instance.uuid, reason=NETWORK_FAILURE)
        except (exception.FlavorDiskTooSmall,
                exception.FlavorMemoryTooSmall,
                exception.ImageNotActive,
                exception.ImageUnacceptable) as exc:
            self._notify_build_error(context, instance, exc)
            raise exception.BuildAbortException(
                instance_uuid=instance.uuid, reason=exc.format_message())
        except Exception as exc:
            # Anything else the hypervisor says may well work elsewhere.
            LOG.exception('Spawn of %s failed on %s', instance.uuid,
                          self.host)
            self._notify_build_error(context, instance, exc)
            reason = (exc.format_message()
                      if isinstance(exc, exception.NovaException)
                      else str(exc) or type(exc).__name__)
            raise exception.RescheduledException(
                instance_uuid=instance.uuid, reason=reason)

        instance.power_state = self._get_power_state(instance)
        instance.vm_state = vm_states.ACTIVE
        instance.task_state = None
        instance.launched_at = timeutils.utcnow()
        instance.save(expected_task_state=task_states.SPAWNING)
        compute_utils.notify_about_instance_action(
            context, instance, self.host, 'create', phase='end', bdms=bdms)

    def _notify_build_error(self, context, instance, exc):
        compute_utils.notify_about_instance_action(
            context, instance, self.host, 'create', phase='error',
            exception=exc)

    def _spawn(self, context, instance, image, injected_files,
               admin_password, resources):
        network_info = resources['network_info']
        if self.driver.waits_for_vif_plug_events:
            wait_for = []
        else:
            wait_for = compute_events.vif_events_to_wait_for(network_info)

        def vif_failed(name, inst):
            LOG.error('Neutron reported failure on event %s for %s', name,
                      inst.uuid)
            if CONF.vif_plugging_is_fatal:
                raise exception.VirtualInterfaceCreateException()

        try:
            with self.virtapi.wait_for_instance_event(
                    instance, wait_for, deadline=CONF.vif_plugging_timeout,
                    error_callback=vif_failed):
                with timeutils.StopWatch() as watch:
                    self.driver.spawn(
                        context, instance, image, injected_files,
                        admin_password, resources['allocations'],
                        network_info=network_info,
                        block_device_info=resources['block_device_info'],
                        accel_info=[])
                LOG.info('Took %.2f seconds to spawn %s on the hypervisor',
                         watch.elapsed(), instance.uuid)
        except compute_events.EventWaitTimeout as exc:
            if CONF.vif_plugging_is_fatal:
                LOG.error('%s', exc)
                raise exception.VirtualInterfaceCreateException()
            LOG.warning('%s; continuing (vif_plugging_is_fatal=False)', exc)
        self._complete_volume_attachments(context, resources['bdms'])

    def _get_power_state(self, instance):
        try:
            return self.driver.get_info(instance).state
        except exception.InstanceNotFound:
            return power_state.NOSTATE

    @contextlib.contextmanager
    def _build_resources(self, context, instance, requested_networks,
                         security_groups, image, bdms):
        resources = {'bdms': bdms, 'network_info': [],
                     'block_device_info': None}
        try:
            resources['allocations'] = (
                self.reportclient.get_allocations_for_consumer(
                    context, instance.uuid))
        except Exception:
            LOG.exception('Failed to read the allocations of %s',
                          instance.uuid)
            raise exception.BuildAbortException(
                instance_uuid=instance.uuid,
                reason='Failed to get allocations from Placement.')

        try:
            resources['network_info'] = self._build_networks_for_instance(
                context, instance, requested_networks, security_groups)
        except (exception.InstanceNotFound,
                exception.UnexpectedDeletingTaskStateError):
            raise
        except exception.UnexpectedTaskStateError as exc:
            raise exception.BuildAbortException(
                instance_uuid=instance.uuid, reason=exc.format_message())
        except Exception:
            LOG.exception('Failed to allocate network(s) for %s',
                          instance.uuid)
            raise exception.BuildAbortException(
                instance_uuid=instance.uuid, reason=NETWORK_FAILURE)

        try:
            instance.vm_state = vm_states.BUILDING
            instance.task_state = task_states.BLOCK_DEVICE_MAPPING
            instance.save()
            resources['block_device_info'] = self._prep_block_device(
                context, instance, bdms)
        except (exception.InstanceNotFound,
                exception.UnexpectedDeletingTaskStateError):
            raise
        except exception.BuildAbortException:
            raise
        except Exception as exc:
            LOG.exception('Failure prepping block devices of %s',
                          instance.uuid)
            msg = 'Failure prepping block device.'
            if isinstance(exc, exception.NovaException):
                msg = '%s %s' % (msg, exc.format_message())
            raise exception.BuildAbortException(instance_uuid=instance.uuid,
                                                reason=msg)

        try:
            yield resources
        except Exception as exc:
            with excutils.save_and_reraise_exception():
                if not isinstance(exc, (
                        exception.InstanceNotFound,
                        exception.UnexpectedDeletingTaskStateError)):
                    LOG.debug('Tearing down the half-built guest of %s',
                              instance.uuid)
                # The guest, the volume connections: whoever takes over
                # (the next host, or the delete) starts from clean.
                self._shutdown_instance(
                    context, instance, bdms, requested_networks,
                    try_deallocate_networks=False,
                    network_info=resources['network_info'])

    def _build_networks_for_instance(self, context, instance,
                                     requested_networks, security_groups):
        if getattr(requested_networks, 'no_allocate', False):
            # networks 'none': the user asked for no network at all.
            return []
        instance.vm_state = vm_states.BUILDING
        instance.task_state = task_states.NETWORKING
        instance.save(expected_task_state=[None])
        network_info = self.network_api.allocate_for_instance(
            context, instance, requested_networks,
            security_groups=security_groups, bind_host_id=self.host,
            save_cache=False)
        network_info = network_info if network_info is not None else []
        # Stored by the block_device_mapping save that follows: one
        # conductor round trip fewer per boot.
        compute_events.set_network_info(instance, network_info)
        return network_info
