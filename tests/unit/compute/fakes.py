"""In-memory stand-ins for the objects and peer clients the compute uses.

They keep just enough state for a test to look at what a user would see
afterwards: instance states, faults, action events, Placement calls,
ports and volume attachments.
"""

import threading
import types

from oslo_utils import uuidutils

from nova_clone import exception
from nova_clone.placement import provider_tree


class FakeInfoCache:
    def __init__(self):
        self.network_info = []
        self.saves = 0

    def save(self):
        self.saves += 1


class FakeInstance:
    """An instance whose ``db_task_state`` plays the database column."""

    def __init__(self, uuid=None, host='host1', node='host1', vcpus=1,
                 memory_mb=512, root_gb=1, ephemeral_gb=0,
                 vm_state='building', task_state='scheduling'):
        self.uuid = uuid or uuidutils.generate_uuid()
        self.id = 1
        self.name = 'instance-%s' % self.uuid[:8]
        self.host = host
        self.node = node
        self.vcpus = vcpus
        self.memory_mb = memory_mb
        self.root_gb = root_gb
        self.ephemeral_gb = ephemeral_gb
        self.vm_state = vm_state
        self.task_state = task_state
        self.db_task_state = task_state
        self.db_vm_state = vm_state
        self.power_state = 0
        self.launched_at = None
        self.terminated_at = None
        self.deleted = False
        self.deleted_at = None
        self.root_device_name = None
        self.availability_zone = None
        self.display_name = 'vm'
        self.project_id = 'p1'
        self.user_id = 'u1'
        self.image_ref = 'img'
        self.flavor = None
        self.info_cache = FakeInfoCache()
        self.history = []
        self.saved_hosts = []   # host as each save stored it
        self.destroyed = False

    def save(self, expected_vm_state=None, expected_task_state=None):
        if self.destroyed:
            raise exception.InstanceNotFound(instance_id=self.uuid)
        if (expected_vm_state is not None and
                self.db_vm_state not in expected_vm_state):
            raise exception.UnexpectedTaskStateError(
                expected=expected_vm_state, actual=self.db_vm_state)
        if expected_task_state is not None:
            expected = expected_task_state
            if not isinstance(expected, (list, tuple, set)):
                expected = [expected]
            if self.db_task_state not in expected:
                cls = (exception.UnexpectedDeletingTaskStateError
                       if self.db_task_state == 'deleting'
                       else exception.UnexpectedTaskStateError)
                raise cls(expected=expected, actual=self.db_task_state)
        self.db_task_state = self.task_state
        self.db_vm_state = self.vm_state
        self.history.append((self.vm_state, self.task_state))
        self.saved_hosts.append(self.host)

    def destroy(self):
        self.deleted = True
        self.destroyed = True


class FakeBDM:
    def __init__(self, volume_id=None, attachment_id=None, boot_index=0,
                 device_name=None, delete_on_termination=False,
                 source_type='volume', destination_type='volume'):
        self.volume_id = volume_id
        self.attachment_id = attachment_id
        self.boot_index = boot_index
        self.device_name = device_name
        self.delete_on_termination = delete_on_termination
        self.source_type = source_type
        self.destination_type = destination_type
        self.connection_info = None
        self.disk_bus = None
        self.device_type = 'disk'
        self.image_id = None
        self.snapshot_id = None
        self.volume_size = 1
        self.volume_type = None

    def save(self):
        pass


class FakeObjects:
    """Plays ``nova_clone.objects`` for the compute code."""

    def __init__(self):
        self.events = []   # (instance_uuid, event, result, host)
        self.faults = []   # FakeFault
        self.instances = {}  # uuid -> FakeInstance (the host's view)
        self.compute_nodes = {}  # (host, nodename) -> FakeComputeNode
        self.bdms = {}
        self.migrations = []  # in progress, as the database lists them
        self.service = types.SimpleNamespace(disabled=False,
                                             disabled_reason=None,
                                             save=lambda: None)
        outer = self

        class InstanceActionEvent:
            @staticmethod
            def event_start(context, uuid, name, want_result=False,
                            host=None):
                outer.events.append([uuid, name, None, host])

            @staticmethod
            def event_finish_with_failure(context, uuid, name, exc_val=None,
                                          exc_tb=None, want_result=None):
                for ev in reversed(outer.events):
                    if ev[0] == uuid and ev[1] == name and ev[2] is None:
                        ev[2] = 'Error' if exc_val is not None else 'Success'
                        return
                raise exception.InstanceActionNotFound(
                    request_id='r', instance_uuid=uuid)

        class InstanceFault:
            def __init__(self, context=None):
                self.context = context

            def create(self):
                outer.faults.append(self)

        class ComputeNode(FakeComputeNode):
            @staticmethod
            def get_by_host_and_nodename(context, host, nodename):
                try:
                    return outer.compute_nodes[(host, nodename)]
                except KeyError:
                    raise exception.ComputeHostNotFound(host=host)

            def create(self):
                self.id = len(outer.compute_nodes) + 1
                outer.compute_nodes[(self.host, self.hypervisor_hostname)] = \
                    self
                self.creates += 1
                self._changed.clear()

        class ComputeNodeList:
            @staticmethod
            def get_all_by_host(context, host):
                return [cn for (h, _), cn in outer.compute_nodes.items()
                        if h == host]

        class InstanceList:
            queries = 0

            @classmethod
            def get_by_host_and_node(cls, context, host, node,
                                     expected_attrs=None):
                cls.queries += 1
                return [i for i in outer.instances.values()
                        if i.host == host and i.node == node and
                        not i.deleted]

            @classmethod
            def get_by_host(cls, context, host, expected_attrs=None):
                return [i for i in outer.instances.values()
                        if i.host == host and not i.deleted]

            @classmethod
            def get_by_filters(cls, context, filters, expected_attrs=None):
                return [i for i in outer.instances.values()
                        if i.uuid in filters.get('uuid', []) and
                        i.deleted == filters.get('deleted', False)]

        class BlockDeviceMappingList:
            @staticmethod
            def get_by_instance_uuid(context, uuid):
                return outer.bdms.get(uuid, [])

        class Service:
            @staticmethod
            def get_by_compute_host(context, host):
                return outer.service

        class Migration:
            @staticmethod
            def get_by_uuid(context, uuid):
                for migration in outer.migrations:
                    if migration.uuid == uuid:
                        return migration
                raise exception.MigrationNotFound(migration_id=uuid)

        class MigrationList:
            @staticmethod
            def get_in_progress_by_host_and_node(context, host, node):
                return [m for m in outer.migrations
                        if (m.source_compute, m.source_node) == (host, node)
                        or (m.dest_compute, m.dest_node) == (host, node)]

        self.InstanceActionEvent = InstanceActionEvent
        self.InstanceFault = InstanceFault
        self.ComputeNode = ComputeNode
        self.ComputeNodeList = ComputeNodeList
        self.InstanceList = InstanceList
        self.BlockDeviceMappingList = BlockDeviceMappingList
        self.Service = Service
        self.Migration = Migration
        self.MigrationList = MigrationList

    def events_for(self, uuid):
        return [(e[1], e[2]) for e in self.events if e[0] == uuid]


class FakeComputeNode:
    """Like a versioned object: reading a field never set is an error."""

    def __init__(self, context=None):
        object.__setattr__(self, '_changed', set())
        object.__setattr__(self, 'saves', 0)
        object.__setattr__(self, 'creates', 0)

    def obj_attr_is_set(self, name):
        return name in self.__dict__

    def __getattr__(self, name):
        if name.startswith('_'):
            raise AttributeError(name)
        raise exception.ObjectActionError(action='obj_load_attr',
                                          reason='%s cannot be loaded' % name)

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)
        self._changed.add(name)

    def obj_what_changed(self):
        return set(self._changed)

    def save(self):
        object.__setattr__(self, 'saves', self.saves + 1)
        self._changed.clear()


class FakeReportClient:
    """Placement as seen through the report client, with a real tree."""

    def __init__(self):
        self.tree = provider_tree.ProviderTree()
        self.pushes = []
        self.allocations = {}
        self.deleted_allocations = []
        self.lock = threading.Lock()

    def get_provider_tree_and_ensure_root(self, context, rp_uuid, name=None,
                                          parent_provider_uuid=None):
        if not self.tree.exists(rp_uuid):
            self.tree.new_root(name or rp_uuid, rp_uuid, generation=0)
        return self.tree.copy()

    def update_from_provider_tree(self, context, new_tree, allocations=None):
        self.pushes.append(new_tree)
        self.tree = new_tree.copy()

    def get_allocations_for_consumer(self, context, consumer):
        return self.allocations.get(consumer, {})

    def get_allocations_for_resource_provider(self, context, rp_uuid):
        return {consumer: alloc[rp_uuid]
                for consumer, alloc in self.allocations.items()
                if rp_uuid in alloc}

    def delete_allocation_for_instance(self, context, uuid,
                                       consumer_type='instance', force=True):
        with self.lock:
            self.deleted_allocations.append(uuid)
            self.allocations.pop(uuid, None)
        return True


class FakeNetworkAPI:
    def __init__(self, ports=1, active=False):
        self.nports = ports
        self.active = active
        self.allocated = {}
        self.deallocated = []
        self.refreshed = []
        self.fail = None

    def allocate_for_instance(self, context, instance, requested_networks,
                              security_groups=None, bind_host_id=None,
                              **kwargs):
        if self.fail:
            raise self.fail
        nw_info = [{'id': uuidutils.generate_uuid(), 'active': self.active,
                    'binding:host_id': bind_host_id}
                   for _ in range(self.nports)]
        self.allocated[instance.uuid] = nw_info
        return nw_info

    def deallocate_for_instance(self, context, instance,
                                requested_networks=None, save_cache=True):
        self.deallocated.append(instance.uuid)

    def get_instance_nw_info(self, context, instance, refresh_vif_id=None):
        self.refreshed.append((instance.uuid, refresh_vif_id))
        return self.allocated.get(instance.uuid, [])


class FakeVolumeAPI:
    def __init__(self):
        self.attachments = {}
        self.deleted_volumes = []
        self.calls = []

    def attachment_create(self, context, volume_id, instance_id,
                          connector=None, mountpoint=None):
        aid = uuidutils.generate_uuid()
        self.attachments[aid] = {'volume_id': volume_id, 'status': 'reserved'}
        self.calls.append(('create', volume_id))
        return {'id': aid}

    def attachment_update(self, context, attachment_id, connector,
                          mountpoint=None):
        att = self.attachments[attachment_id]
        att.update(status='attaching', connector=connector,
                   mountpoint=mountpoint)
        self.calls.append(('update', attachment_id))
        return {'id': attachment_id,
                'connection_info': {'driver_volume_type': 'fake',
                                    'data': {'volume_id': att['volume_id']}}}

    def attachment_complete(self, context, attachment_id):
        self.attachments[attachment_id]['status'] = 'attached'
        self.calls.append(('complete', attachment_id))

    def attachment_delete(self, context, attachment_id):
        self.attachments.pop(attachment_id, None)
        self.calls.append(('delete', attachment_id))

    def delete(self, context, volume_id):
        self.deleted_volumes.append(volume_id)


class FakeComputeTaskAPI:
    def __init__(self):
        self.builds = []

    def build_instances(self, context, instances, image, filter_properties,
                        admin_password, injected_files, requested_networks,
                        security_groups, block_device_mapping,
                        legacy_bdm=True, request_spec=None, host_lists=None):
        self.builds.append({'instances': instances, 'host_lists': host_lists,
                            'filter_properties': filter_properties})
