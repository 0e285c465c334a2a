"""The build flow: build_and_run_instance on the chosen compute.

Boot diagram, from "SC->>CMP: AMQP cast build_and_run_instance" to the
end of the "alt spawn ok / retryable failure / fatal" block.

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
import sys
import threading
import traceback

from oslo_log import log as logging
from oslo_utils import excutils
from oslo_utils import timeutils

from nova_clone.compute.host import block_devices
from nova_clone.compute.host import collaborators
from nova_clone.compute.host import events as compute_events
from nova_clone.compute.host import failure_record
from nova_clone.compute.host import group_policy
from nova_clone.compute.host import network_info as network_cache
from nova_clone.compute.host import teardown
from nova_clone.compute import power_state
from nova_clone.compute import task_states
from nova_clone.compute import utils as compute_utils
from nova_clone.compute import vm_states
from nova_clone.conf import CONF
from nova_clone import exception
from nova_clone import threads
from nova_clone.volume import release

LOG = logging.getLogger(__name__)

ACTIVE = 'active'
RESCHEDULED = 'rescheduled'
FAILED = 'failed'

NETWORK_FAILURE = 'Failed to allocate the network(s), not rescheduling.'

# The action event of a build (Nova names it after its method).
BUILD_EVENT = 'compute__do_build_and_run_instance'


class _InFlight:
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


def _build_semaphore():
    if CONF.max_concurrent_builds:
        return threading.BoundedSemaphore(CONF.max_concurrent_builds)
    return contextlib.nullcontext()


class Builds:
    """The builds running on this host, each in its own thread.

    At most max_concurrent_builds run at once; a stopping service waits
    for them (wait_idle).
    """

    def __init__(self, collab):
        self._collab = collab
        self._semaphore = _build_semaphore()
        self._in_flight = _InFlight()

    @property
    def count(self):
        return self._in_flight.count

    def wait_idle(self, timeout=None):
        return self._in_flight.wait_idle(timeout)

    def start(self, context, instance, **kwargs):
        """Start the build of ``instance`` and return at once (an RPC
        cast); ``kwargs`` are build_and_run_instance's own."""
        collab = self._collab
        kwargs['node'] = kwargs.get('node') or default_nodename(
            collab.driver, collab.host)
        try:
            if not _take_on(collab, instance, kwargs['node']):
                return
        except Exception as exc:
            LOG.exception('Could not take on the build of %s', instance.uuid)
            _last_resort_failure(collab, context, instance, exc)
            return
        # Keep network-vif-plugged events that arrive before spawn waits.
        collab.instance_events.expect_events_for(instance.uuid)

        def run():
            with self._semaphore:
                try:
                    result = _locked_build(collab, context, instance,
                                           **kwargs)
                    _count_build(collab, instance, kwargs.get('node'),
                                 result)
                except Exception as exc:
                    LOG.exception('Unexpected build failure of %s',
                                  instance.uuid)
                    _last_resort_failure(collab, context, instance, exc)
                finally:
                    collab.instance_events.clear_events_for_instance(
                        instance.uuid)
                    self._in_flight.done()

        self._in_flight.start()
        threads.spawn(run, name='build-%s' % instance.uuid)


def _take_on(collab, instance, node):
    """The instance is this host's from the moment its cast arrives,
    before it waits for a build slot: a restart of this service finds the
    build and fails it, and one still scheduling with no host after a
    while is one whose cast never arrived (the conductor fails those).
    False when it is not ours to build (deleted, or given up meanwhile)."""
    try:
        instance.vm_state = vm_states.BUILDING
        instance.task_state = None
        instance.host = collab.host
        instance.node = node
        instance.save(expected_vm_state=[vm_states.BUILDING],
                      expected_task_state=(task_states.SCHEDULING, None))
    except exception.InstanceNotFound:
        LOG.debug('Instance %s deleted before its build started',
                  instance.uuid)
        return False
    except exception.UnexpectedTaskStateError as exc:
        LOG.info('Not building %s: %s', instance.uuid, exc.format_message())
        return False
    return True


def _locked_build(collab, context, instance, **kwargs):
    # Serialized with terminate_instance of the same instance, so a
    # delete waits for the build to reach a stable point.
    with collaborators.instance_lock(instance.uuid):
        with compute_utils.EventReporter(context, BUILD_EVENT, collab.host,
                                         instance.uuid):
            return _do_build_and_run_instance(collab, context, instance,
                                              **kwargs)


def _count_build(collab, instance, node, result):
    # The scheduler's BuildFailureWeigher reads the count from the node's
    # stats; the service itself stays enabled.
    if CONF.compute.consecutive_build_service_disable_threshold:
        node = node or getattr(instance, 'node', None)
        if result in (FAILED, RESCHEDULED):
            collab.rt.build_failed(node)
        elif result == ACTIVE:
            collab.rt.build_succeeded(node)


def default_nodename(driver, host):
    nodes = driver.get_available_nodes()
    return nodes[0] if nodes else host


def _do_build_and_run_instance(collab, context, instance, image,
                               request_spec, filter_properties,
                               admin_password, injected_files,
                               requested_networks, security_groups,
                               block_device_mapping, node=None, limits=None,
                               host_list=None, accel_uuids=None):
    filter_properties = dict(filter_properties or {})
    image = image or {}
    if block_device_mapping is None:
        block_device_mapping = block_devices.get_bdms(context, instance)

    try:
        _build_and_run_instance(
            collab, context, instance, image, injected_files,
            admin_password, requested_networks, security_groups,
            block_device_mapping, node, limits, filter_properties,
            request_spec, accel_uuids)
        LOG.info('Instance %s built on %s', instance.uuid, collab.host)
        return ACTIVE
    except exception.RescheduledException as exc:
        return _reschedule_or_fail(
            collab, context, instance, exc, image, filter_properties,
            admin_password, injected_files, requested_networks,
            security_groups, block_device_mapping, request_spec, host_list)
    except (exception.InstanceNotFound,
            exception.UnexpectedDeletingTaskStateError):
        LOG.info('Instance %s disappeared during build', instance.uuid)
        teardown.release_networks(collab.network_api, context, instance,
                                  requested_networks)
        teardown.release_allocation(collab.reportclient, context, instance)
        return FAILED
    except Exception as exc:
        exc_info = sys.exc_info()
        if isinstance(exc, exception.BuildAbortException):
            LOG.error('Build of %s aborted: %s', instance.uuid,
                      exc.format_message())
        else:
            LOG.exception('Unexpected build failure of %s, not '
                          'rescheduling', instance.uuid)
        _fail_build(collab, context, instance, exc, exc_info,
                    requested_networks, block_device_mapping)
        return FAILED


# -- outcomes ---------------------------------------------------------------

def _fail_build(collab, context, instance, exc, exc_info,
                requested_networks, bdms, fault_message=None):
    """Boot arrow "CMP->>CELLDB: vm_state=error + instance_faults"."""
    teardown.release_networks(collab.network_api, context, instance,
                              requested_networks)
    release.release_volumes(collab.volume_api, context, instance, bdms,
                            raise_exc=False)
    compute_utils.add_instance_fault_from_exc(
        context, instance, exc, exc_info, fault_message=fault_message)
    teardown.release_allocation(collab.reportclient, context, instance)
    # An instance that failed to build lives on no host.
    instance.host = None
    instance.node = None
    teardown.set_error_state(instance, clean_task_state=True)


def _reschedule_or_fail(collab, context, instance, exc, image,
                        filter_properties, admin_password, injected_files,
                        requested_networks, security_groups, bdms,
                        request_spec, host_list):
    """Boot arrows "CMP->>PL: DELETE /allocations/{instance}" and
    "CMP->>SC: AMQP cast build_instances (next alternate)"."""
    reason = exc.kwargs.get('reason') or exc.format_message()
    retry = filter_properties.get('retry')
    if not retry and not host_list:
        LOG.warning('Build of %s failed and there is nowhere to retry: '
                    '%s', instance.uuid, reason)
        _fail_build(collab, context, instance, exc, sys.exc_info(),
                    requested_networks, bdms, fault_message=reason)
        return FAILED
    LOG.info('Rescheduling build of %s away from %s: %s', instance.uuid,
             collab.host, reason)
    if retry is not None:
        retry['exc'] = traceback.format_exception(*sys.exc_info())
        retry['exc_reason'] = reason
    teardown.release_networks(collab.network_api, context, instance,
                              requested_networks)
    instance.host = None
    instance.node = None
    instance.task_state = task_states.SCHEDULING
    instance.save()
    # The next host claims its own allocation; ours must go first.
    teardown.release_allocation(collab.reportclient, context, instance)
    try:
        collab.compute_task_api.build_instances(
            context, [instance], image, filter_properties,
            admin_password, injected_files, requested_networks,
            security_groups, bdms, request_spec=request_spec,
            host_lists=[list(host_list or [])])
    except Exception as cast_exc:
        # Nobody will pick the instance up: it must not stay BUILD.
        LOG.exception('Could not hand %s back to the conductor',
                      instance.uuid)
        _fail_build(collab, context, instance, cast_exc, sys.exc_info(),
                    requested_networks, bdms, fault_message=reason)
        return FAILED
    return RESCHEDULED


def _last_resort_failure(collab, context, instance, exc):
    """A failure outside the flow's own handling, often the database or
    Placement away while the flow handled its failure: the server still
    ends in ERROR with a fault, its allocation freed."""
    exc_info = sys.exc_info()

    def fault():
        compute_utils.add_instance_fault_from_exc(
            context, instance, exc, exc_info, raise_exc=True)

    def allocation():
        collab.reportclient.delete_allocation_for_instance(
            context, instance.uuid, force=True)

    def error_state():
        teardown.set_error_state(instance, clean_task_state=True)

    failure_record.record(instance, [fault, allocation, error_state],
                          'failed build')


# -- the build itself -------------------------------------------------------

def _build_and_run_instance(collab, context, instance, image,
                            injected_files, admin_password,
                            requested_networks, security_groups, bdms, node,
                            limits, filter_properties, request_spec,
                            accel_uuids):
    compute_utils.notify_about_instance_action(
        context, instance, collab.host, 'create', phase='start', bdms=bdms)
    try:
        with collab.rt.instance_claim(context, instance, node, None,
                                      limits):
            group_policy.validate(context, instance, request_spec,
                                  filter_properties)
            with _build_resources(collab, context, instance,
                                  requested_networks, security_groups,
                                  bdms) as resources:
                instance.vm_state = vm_states.BUILDING
                instance.task_state = task_states.SPAWNING
                instance.save(expected_task_state=(
                    task_states.BLOCK_DEVICE_MAPPING))
                spawn_guest(collab, context, instance, image,
                            injected_files, admin_password, resources)
    except (exception.InstanceNotFound,
            exception.UnexpectedDeletingTaskStateError) as exc:
        _notify_build_error(collab, context, instance, exc)
        raise
    except exception.ComputeResourcesUnavailable as exc:
        _notify_build_error(collab, context, instance, exc)
        raise exception.RescheduledException(
            instance_uuid=instance.uuid, reason=exc.format_message())
    except (exception.BuildAbortException,
            exception.RescheduledException) as exc:
        _notify_build_error(collab, context, instance, exc)
        raise
    except exception.VirtualInterfaceCreateException as exc:
        LOG.error('Networking of %s failed: %s', instance.uuid,
                  exc.format_message())
        _notify_build_error(collab, context, instance, exc)
        raise exception.BuildAbortException(
            instance_uuid=instance.uuid, reason=NETWORK_FAILURE)
    except (exception.FlavorDiskTooSmall,
            exception.FlavorMemoryTooSmall,
            exception.ImageNotActive,
            exception.ImageUnacceptable) as exc:
        _notify_build_error(collab, context, instance, exc)
        raise exception.BuildAbortException(
            instance_uuid=instance.uuid, reason=exc.format_message())
    except Exception as exc:
        # Anything else the hypervisor says may well work elsewhere.
        LOG.exception('Spawn of %s failed on %s', instance.uuid, collab.host)
        _notify_build_error(collab, context, instance, exc)
        reason = (exc.format_message()
                  if isinstance(exc, exception.NovaException)
                  else str(exc) or type(exc).__name__)
        raise exception.RescheduledException(
            instance_uuid=instance.uuid, reason=reason)

    # Boot arrow "CMP->>CELLDB: vm_state=active, launched_at".
    instance.power_state = get_power_state(collab.driver, instance)
    instance.vm_state = vm_states.ACTIVE
    instance.task_state = None
    instance.launched_at = timeutils.utcnow()
    instance.save(expected_task_state=task_states.SPAWNING)
    compute_utils.notify_about_instance_action(
        context, instance, collab.host, 'create', phase='end', bdms=bdms)


def _notify_build_error(collab, context, instance, exc):
    compute_utils.notify_about_instance_action(
        context, instance, collab.host, 'create', phase='error',
        exception=exc)


def spawn_guest(collab, context, instance, image, injected_files,
                admin_password, resources):
    """Boot arrows "CMP->>GL: GET /v2/images/{id}/file" (inside the
    driver's spawn) and "CMP->>CMP: driver.spawn (wait
    network-vif-plugged)"; a rebuild spawns its new guest with it too.

    ``resources``: network_info, allocations, block_device_info, bdms.
    """
    network_info = resources['network_info']

    def spawn():
        with timeutils.StopWatch() as watch:
            collab.driver.spawn(
                context, instance, image, injected_files, admin_password,
                resources['allocations'], network_info=network_info,
                block_device_info=resources['block_device_info'],
                accel_info=[])
        LOG.info('Took %.2f seconds to spawn %s on the hypervisor',
                 watch.elapsed(), instance.uuid)

    compute_events.plug_and_wait(collab, instance, network_info, spawn)
    block_devices.complete_volume_attachments(collab.volume_api, context,
                                              resources['bdms'])


def get_power_state(driver, instance):
    try:
        return driver.get_info(instance).state
    except exception.InstanceNotFound:
        return power_state.NOSTATE


@contextlib.contextmanager
def _build_resources(collab, context, instance, requested_networks,
                     security_groups, bdms):
    """Allocations, ports and volume attachments of the build; torn down
    if the body fails."""
    resources = {'bdms': bdms, 'network_info': [],
                 'block_device_info': None}
    try:
        # Boot arrow "CMP->>PL: GET /allocations/{instance}".
        resources['allocations'] = (
            collab.reportclient.get_allocations_for_consumer(
                context, instance.uuid))
    except Exception:
        LOG.exception('Failed to read the allocations of %s', instance.uuid)
        raise exception.BuildAbortException(
            instance_uuid=instance.uuid,
            reason='Failed to get allocations from Placement.')

    try:
        resources['network_info'] = _build_networks_for_instance(
            collab, context, instance, requested_networks, security_groups)
    except (exception.InstanceNotFound,
            exception.UnexpectedDeletingTaskStateError):
        raise
    except exception.UnexpectedTaskStateError as exc:
        raise exception.BuildAbortException(
            instance_uuid=instance.uuid, reason=exc.format_message())
    except Exception:
        LOG.exception('Failed to allocate network(s) for %s', instance.uuid)
        raise exception.BuildAbortException(
            instance_uuid=instance.uuid, reason=NETWORK_FAILURE)

    try:
        instance.vm_state = vm_states.BUILDING
        instance.task_state = task_states.BLOCK_DEVICE_MAPPING
        instance.save()
        resources['block_device_info'] = block_devices.prep_block_device(
            collab.driver, collab.volume_api, context, instance, bdms)
    except (exception.InstanceNotFound,
            exception.UnexpectedDeletingTaskStateError):
        raise
    except exception.BuildAbortException:
        raise
    except Exception as exc:
        LOG.exception('Failure prepping block devices of %s', instance.uuid)
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
            # The guest, the volume connections: whoever takes over (the
            # next host, or the delete) starts from clean.
            teardown.shutdown_instance(
                collab, context, instance, bdms, requested_networks,
                deallocate_networks=False,
                network_info=resources['network_info'])


def _build_networks_for_instance(collab, context, instance,
                                 requested_networks, security_groups):
    """Boot arrow "CMP->>NEU: POST/PUT ports (binding:host_id)"."""
    if getattr(requested_networks, 'no_allocate', False):
        # networks 'none': the user asked for no network at all.
        return []
    instance.vm_state = vm_states.BUILDING
    instance.task_state = task_states.NETWORKING
    instance.save(expected_task_state=[None])
    network_info = collab.network_api.allocate_for_instance(
        context, instance, requested_networks,
        security_groups=security_groups, bind_host_id=collab.host,
        save_cache=False)
    network_info = network_info if network_info is not None else []
    # Stored by the block_device_mapping save that follows: one conductor
    # round trip fewer per boot.
    network_cache.set_unsaved(instance, network_info)
    return network_info
