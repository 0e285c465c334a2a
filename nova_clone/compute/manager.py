"""nova-compute's manager: the RPC endpoint of one compute host.

The flows live in their own modules (build.py, delete.py, events.py); this
module wires them to the driver, the resource tracker and the peer
clients, and holds the start-up and periodic work.
"""


import oslo_messaging as messaging
from oslo_concurrency import lockutils
from oslo_log import log as logging
from oslo_service import periodic_task
from oslo_utils import timeutils

from nova_clone.compute import block_devices
from nova_clone.compute import build
from nova_clone.compute import delete
from nova_clone.compute import events as compute_events
from nova_clone.compute import power_state
from nova_clone.compute.host import resize
from nova_clone.compute import resource_tracker
from nova_clone.compute import rpcapi as compute_rpcapi
from nova_clone.compute import task_states
from nova_clone.compute import utils as compute_utils
from nova_clone.compute import vm_states
from nova_clone.conf import CONF
from nova_clone import context as nova_context
from nova_clone import exception
from nova_clone import manager
from nova_clone.virt import driver as virt_driver

LOG = logging.getLogger(__name__)



# Periodic task -> (option, whether 0 disables it).  Spacing is applied
# per manager from the parsed configuration (see _apply_task_intervals),
# not frozen at import time.
_TASK_INTERVALS = {
    'update_available_resource': ('update_resources_interval', False),
    '_sync_power_states': ('sync_power_state_interval', False),
    '_cleanup_running_deleted_instances': (
        'running_deleted_instance_poll_interval', True),
}


def _interval(option, zero_disables):
    value = getattr(CONF, option)
    if value < 0 or (value == 0 and zero_disables):
        return None
    return value or periodic_task.DEFAULT_INTERVAL


# Longest a stopping compute waits for running builds.
_BUILD_DRAIN_SECONDS = 30


class ComputeManager(build.BuildMixin, block_devices.BlockDeviceMixin,
                     delete.DeleteMixin,
                     compute_events.ExternalEventsMixin, manager.Manager):
    """Builds, deletes and watches the guests of one compute host."""

    target = messaging.Target(version='6.5')

    def __init__(self, compute_driver=None, *args, **kwargs):
        super().__init__(*args, service_name='compute', **kwargs)
        self.virtapi = compute_events.ComputeVirtAPI(self)
        self.instance_events = compute_events.InstanceEvents()
        self.driver = virt_driver.load_compute_driver(self.virtapi,
                                                      compute_driver)
        self._network_api = None
        self._volume_api = None
        self._reportclient = None
        self._compute_task_api = None
        self.rt = resource_tracker.ResourceTracker(self.host, self.driver)
        self._build_semaphore = build.build_semaphore()
        self._builds_in_flight = build.InFlight()
        self._apply_task_intervals()

    def _apply_task_intervals(self):
        spacing = dict(self._periodic_spacing)
        tasks = []
        for name, task in self._periodic_tasks:
            option = _TASK_INTERVALS.get(name)
            if option is not None:
                interval = _interval(*option)
                if interval is None:
                    LOG.info('Periodic task %s disabled by %s', name,
                             option[0])
                    continue
                spacing[name] = interval
            tasks.append((name, task))
        self._periodic_spacing = spacing
        self._periodic_tasks = tasks

    # -- peers, loaded on first use so tests can put fakes in first --------

    @property
    def network_api(self):
        if self._network_api is None:
            from nova_clone.network import neutron
            self._network_api = neutron.API()
        return self._network_api

    @network_api.setter
    def network_api(self, value):
        self._network_api = value

    @property
    def volume_api(self):
        if self._volume_api is None:
            from nova_clone.volume import cinder
            self._volume_api = cinder.API()
        return self._volume_api

    @volume_api.setter
    def volume_api(self, value):
        self._volume_api = value

    @property
    def reportclient(self):
        if self._reportclient is None:
            self._reportclient = self.rt.reportclient
        return self._reportclient

    @reportclient.setter
    def reportclient(self, value):
        self._reportclient = value
        self.rt._reportclient = value

    @property
    def compute_task_api(self):
        if self._compute_task_api is None:
            from nova_clone.conductor import api as conductor_api
            self._compute_task_api = conductor_api.ComputeTaskAPI()
        return self._compute_task_api

    @compute_task_api.setter
    def compute_task_api(self, value):
        self._compute_task_api = value

    # -- helpers -----------------------------------------------------------

    @staticmethod
    def _instance_lock(instance_uuid):
        return lockutils.lock('instance-%s' % instance_uuid)

    def _default_nodename(self):
        nodes = self.driver.get_available_nodes()
        return nodes[0] if nodes else self.host

    def wait_for_builds(self, timeout=None):
        """Block until no build runs here (tests, graceful stop)."""
        return self._builds_in_flight.wait_idle(timeout)

    def _locked_do_build_and_run_instance(self, context, instance, **kwargs):
        result = super()._locked_do_build_and_run_instance(
            context, instance, **kwargs)
        # The scheduler's BuildFailureWeigher reads the count from the
        # node's stats; the service itself stays enabled.
        if CONF.compute.consecutive_build_service_disable_threshold:
            node = kwargs.get('node') or getattr(instance, 'node', None)
            if result in (build.FAILED, build.RESCHEDULED):
                self.rt.build_failed(node)
            elif result == build.ACTIVE:
                self.rt.build_succeeded(node)
        return result

    # -- resize / cold migration (compute/host/resize.py) -------------------

    def _resize_flow(self):
        return resize.ResizeFlow(
            self.host, self.driver, self.rt, self.network_api,
            self.reportclient, compute_rpcapi.get_compute_rpcapi(),
            self.compute_task_api)

    @compute_utils.wrap_instance_event(prefix='compute')
    def prep_resize(self, context, image, instance, flavor, request_spec,
                    filter_properties, node, clean_shutdown, migration,
                    host_list=None):
        with self._instance_lock(instance.uuid):
            self._resize_flow().prep_resize(
                context, image, instance, flavor, request_spec,
                filter_properties, node, clean_shutdown, migration, host_list)

    @compute_utils.wrap_instance_event(prefix='compute')
    def resize_instance(self, context, instance, image, migration, flavor,
                        clean_shutdown=True, request_spec=None):
        with self._instance_lock(instance.uuid):
            self._resize_flow().resize_instance(
                context, instance, image, migration, flavor,
                clean_shutdown=clean_shutdown, request_spec=request_spec)

    @compute_utils.wrap_instance_event(prefix='compute')
    def finish_resize(self, context, disk_info, image, instance, migration,
                      request_spec=None):
        with self._instance_lock(instance.uuid):
            self._resize_flow().finish_resize(context, disk_info, image,
                                              instance, migration,
                                              request_spec)

    @compute_utils.wrap_instance_event(prefix='compute')
    def confirm_resize(self, context, instance, migration):
        with self._instance_lock(instance.uuid):
            self._resize_flow().confirm_resize(context, instance, migration)

    @compute_utils.wrap_instance_event(prefix='compute')
    def revert_resize(self, context, instance, migration, request_spec=None):
        with self._instance_lock(instance.uuid):
            self._resize_flow().revert_resize(context, instance, migration,
                                              request_spec)

    @compute_utils.wrap_instance_event(prefix='compute')
    def finish_revert_resize(self, context, instance, migration,
                             request_spec=None):
        with self._instance_lock(instance.uuid):
            self._resize_flow().finish_revert_resize(
                context, instance, migration, request_spec)

    # -- service hooks -----------------------------------------------------

    def init_host(self, service_ref=None):
        self.driver.init_host(host=self.host)
        context = nova_context.get_admin_context()
        try:
            instances = compute_utils._objects().InstanceList.get_by_host(
                context, self.host, expected_attrs=['info_cache'])
        except Exception:
            LOG.exception('Could not list the instances of %s at start-up',
                          self.host)
            return
        for instance in instances:
            try:
                self._init_instance(context, instance)
            except Exception:
                LOG.exception('Failed to restore the state of instance %s',
                              instance.uuid)

    def _init_instance(self, context, instance):
        """Finish or fail work a previous run of this service left."""
        if instance.vm_state in (vm_states.DELETED,
                                 vm_states.SOFT_DELETED):
            return
        if instance.task_state == task_states.DELETING:
            LOG.info('Completing the interrupted delete of %s',
                     instance.uuid)
            self._delete_instance(context, instance, None)
            return
        if (instance.vm_state == vm_states.BUILDING or
                instance.task_state in task_states.BUILD_STATES):
            LOG.warning('Instance %s was building when this service '
                        'stopped; setting it to ERROR', instance.uuid)
            self._set_instance_obj_error_state(instance,
                                               clean_task_state=True)
            return
        if instance.task_state in resize.INTERRUPTED:
            resize.settle_interrupted_move(context, instance, self.host,
                                           self.driver, self.reportclient)
            return
        self._sync_instance_power_state(context, instance)

    def pre_start_hook(self, service_ref=None):
        # Compute nodes and providers exist before the service takes work.
        self.update_available_resource(nova_context.get_admin_context(),
                                       startup=True)

    def cleanup_host(self):
        # Builds in flight get a bounded chance to finish; one stuck on a
        # Neutron event must not hold the stop for vif_plugging_timeout.
        if not self.wait_for_builds(min(CONF.graceful_shutdown_timeout,
                                        _BUILD_DRAIN_SECONDS)):
            LOG.warning('Stopping with %d build(s) still running',
                        self._builds_in_flight.count)
        self.instance_events.cancel_all_events()
        # Usage changed by the last builds and deletes reaches the record.
        self.rt.flush_node_saves()
        try:
            self.driver.cleanup_host(host=self.host)
        except NotImplementedError:
            pass

    # -- periodic tasks ----------------------------------------------------

    @periodic_task.periodic_task
    def update_available_resource(self, context, startup=False):
        """Refresh every node's record and Placement view."""
        try:
            nodenames = set(self.driver.get_available_nodes())
        except exception.VirtDriverNotReady:
            LOG.info('Virt driver not ready; skipping resource update')
            return
        self.rt.refresh_service_disabled(context)
        for nodename in nodenames:
            try:
                self.rt.update_available_resource(context, nodename,
                                                  startup=startup)
            except Exception:
                LOG.exception('Error updating resources for node %s',
                              nodename)
        self.rt.clean_compute_node_cache(nodenames)
        self._delete_orphan_compute_nodes(context, nodenames)

    def set_host_enabled(self, context, enabled):
        """RPC call from the API when the service is enabled or disabled.

        Placement learns it at once (COMPUTE_STATUS_DISABLED on every node
        of this host) instead of at the next periodic run.
        """
        self.rt.service_disabled = not enabled
        for nodename in list(self.rt.compute_nodes):
            self._sync_provider_tree(context, nodename)
        return 'enabled' if enabled else 'disabled'

    def get_host_uptime(self, context):
        """RPC call from the API: GET /os-hypervisors/{id}/uptime."""
        return self.driver.get_host_uptime()

    def _sync_provider_tree(self, context, nodename, attempts=3):
        # Every allocation bumps the provider's generation, so the cached
        # one is often stale: a failed sync drops the cache and the next
        # attempt starts from what Placement has now.
        for attempt in range(1, attempts + 1):
            cn = self.rt.compute_nodes.get(nodename)
            if cn is None:
                return
            try:
                tree, changed = self.rt.build_provider_tree(context, cn)
                if changed:
                    self.reportclient.update_from_provider_tree(context,
                                                                tree)
                return
            except exception.ResourceProviderSyncFailed:
                if attempt == attempts:
                    LOG.exception('Could not update the status trait of '
                                  '%s; the next update_available_resource '
                                  'run will', nodename)
            except Exception:
                LOG.exception('Could not update the status trait of %s',
                              nodename)
                return

    def _delete_orphan_compute_nodes(self, context, nodenames):
        try:
            known = compute_utils._objects().ComputeNodeList.get_all_by_host(
                context, self.host)
        except exception.NotFound:
            return
        except Exception:
            LOG.debug('Could not list compute nodes of %s', self.host,
                      exc_info=True)
            return
        for cn in known:
            if cn.hypervisor_hostname in nodenames:
                continue
            LOG.info('Deleting orphan compute node %s (%s)',
                     cn.hypervisor_hostname, cn.uuid)
            try:
                cn.destroy()
                self.reportclient.delete_resource_provider(context, cn,
                                                           cascade=True)
            except Exception:
                LOG.exception('Could not delete orphan compute node %s',
                              cn.uuid)

    @periodic_task.periodic_task
    def _poll_unconfirmed_resizes(self, context):
        resize.poll_unconfirmed_resizes(
            context, self.host, CONF.resize_confirm_window,
            compute_rpcapi.get_compute_rpcapi())

    @periodic_task.periodic_task
    def _sync_power_states(self, context):
        """Record the hypervisor's power state of each guest here."""
        instances = compute_utils._objects().InstanceList.get_by_host(
            context, self.host, expected_attrs=[])
        for instance in instances:
            try:
                self._sync_instance_power_state(context, instance)
            except Exception:
                LOG.exception('Power state sync of %s failed', instance.uuid)

    def _sync_instance_power_state(self, context, instance):
        if instance.task_state is not None:
            # Some operation owns the instance; it sets the state itself.
            return
        try:
            vm_power = self.driver.get_info(instance).state
        except exception.InstanceNotFound:
            vm_power = power_state.NOSTATE
        changed = instance.power_state != vm_power
        if changed:
            instance.power_state = vm_power
        if instance.vm_state == vm_states.ACTIVE and \
                vm_power == power_state.NOSTATE:
            # Gone from the hypervisor behind our back: recorded, left to
            # the operator (as Nova does).
            LOG.warning('Guest of ACTIVE instance %s not found on the '
                        'hypervisor', instance.uuid)
        elif (instance.vm_state == vm_states.ACTIVE and
                vm_power in (power_state.SHUTDOWN, power_state.CRASHED)):
            LOG.warning('Instance %s is ACTIVE but its guest is %s; '
                        'recording it as stopped', instance.uuid,
                        power_state.name(vm_power))
            instance.vm_state = vm_states.STOPPED
            changed = True
        if changed:
            instance.save()

    @periodic_task.periodic_task
    def _cleanup_running_deleted_instances(self, context):
        """Act on guests still running for instances deleted in the DB."""
        action = CONF.running_deleted_instance_action
        if action == 'noop':
            return
        with _read_deleted(context) as ctxt:
            for instance in self._running_deleted_instances(ctxt):
                if action == 'log':
                    LOG.warning('Guest %s of deleted instance %s is still '
                                'on the hypervisor', instance.name,
                                instance.uuid)
                elif action == 'shutdown':
                    LOG.info('Powering off the guest of deleted instance %s',
                             instance.uuid)
                    try:
                        self.driver.power_off(instance)
                    except Exception:
                        LOG.exception('Power off of %s failed',
                                      instance.uuid)
                elif action == 'reap':
                    LOG.info('Destroying the guest of deleted instance %s',
                             instance.uuid)
                    try:
                        bdms = self._get_bdms(ctxt, instance)
                        self._shutdown_instance(ctxt, instance, bdms,
                                                notify=False)
                        self._cleanup_volumes(ctxt, instance, bdms,
                                              raise_exc=False)
                    except Exception:
                        LOG.exception('Reaping the guest of %s failed',
                                      instance.uuid)

    def _running_deleted_instances(self, context):
        uuids = self.driver.list_instance_uuids()
        if not uuids:
            return []
        instances = compute_utils._objects().InstanceList.get_by_filters(
            context, {'uuid': uuids, 'deleted': True, 'soft_deleted': False},
            expected_attrs=['info_cache'])
        timeout = CONF.running_deleted_instance_timeout
        return [inst for inst in instances
                if not inst.deleted_at or
                timeutils.is_older_than(inst.deleted_at, timeout)]


class _read_deleted:
    """A copy of the context that also sees deleted rows."""

    def __init__(self, context):
        self._ctxt = context.elevated(read_deleted='yes')

    def __enter__(self):
        return self._ctxt

    def __exit__(self, *exc):
        return False


