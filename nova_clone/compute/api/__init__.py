"""What nova-api calls to boot, find, change and delete servers.

Everything in this package runs in the nova-api process.  ``API.create``
records a boot in the API database (request spec, build request, instance
mapping in one transaction) and casts it to the conductor (``build``);
nothing exists in a cell until a host is chosen.  ``get`` and ``get_all``
read build requests and the cells (``instance_list``); ``delete`` handles
the three cases of scenario 2 (``delete``); ``resize``, ``migrate``,
``confirm_resize`` and ``revert_resize`` scenario 3 (``resize``);
``live_migration`` starts, forces, aborts and lists live migrations
(scenario 4).  ``preconditions`` holds which states each action accepts;
``host`` the services and compute nodes of every cell (HostAPI).
``volumes`` attaches and detaches volumes (scenario 5); ``shelve``
shelves and unshelves.  ``preconditions`` holds which states each action
accepts; ``host`` the services and compute nodes of every cell
(HostAPI).
"""

import contextlib
import threading

from oslo_log import log as logging
from oslo_utils import uuidutils

from nova_clone import availability_zones
from nova_clone.compute.api import build
from nova_clone.compute.api import consoles
from nova_clone.compute.api import deferred_delete
from nova_clone.compute.api import delete as delete_flow
from nova_clone.compute.api import evacuate as evacuate_flow
from nova_clone.compute.api.host import HostAPI
from nova_clone.compute.api import instance_list
from nova_clone.compute.api import interfaces
from nova_clone.compute.api import live_migration
from nova_clone.compute.api import power
from nova_clone.compute.api import preconditions
from nova_clone.compute.api import rebuild as rebuild_flow
from nova_clone.compute.api import rescue as rescue_flow
from nova_clone.compute.api import resize as resize_flow
from nova_clone.compute.api import security_groups
from nova_clone.compute.api import shelve as shelve_flow
from nova_clone.compute.api import snapshot as snapshot_flow
from nova_clone.compute.api import volume_snapshots
from nova_clone.compute.api import volumes
from nova_clone.conf import CONF
from nova_clone import context as nova_context
from nova_clone import exception
from nova_clone import quota

LOG = logging.getLogger(__name__)


def _objects():
    from nova_clone import objects
    return objects


class API:
    """One per nova-api process; every method takes the request context."""

    def __init__(self, image_api=None, network_api=None, volume_api=None,
                 compute_task_api=None, compute_rpcapi=None,
                 report_client=None, servicegroup_api=None, host_api=None):
        self._clients = {
            'image_api': image_api, 'network_api': network_api,
            'volume_api': volume_api, 'compute_task_api': compute_task_api,
            'compute_rpcapi': compute_rpcapi,
            'report_client': report_client,
            'servicegroup_api': servicegroup_api, 'host_api': host_api,
        }
        self._lock = threading.Lock()

    # Clients are built on first use: the API process imports this module
    # before messaging and the peers' settings are ready.
    def _client(self, name, factory):
        client = self._clients.get(name)
        if client is None:
            with self._lock:
                client = self._clients.get(name)
                if client is None:
                    client = factory()
                    self._clients[name] = client
        return client

    @property
    def image_api(self):
        from nova_clone.image import glance
        return self._client('image_api', glance.API)

    @property
    def network_api(self):
        from nova_clone.network import neutron
        return self._client('network_api', neutron.API)

    @property
    def volume_api(self):
        from nova_clone.volume import cinder
        return self._client('volume_api', cinder.API)

    @property
    def compute_task_api(self):
        from nova_clone.conductor import rpcapi
        return self._client('compute_task_api', rpcapi.ComputeTaskAPI)

    @property
    def compute_rpcapi(self):
        from nova_clone.compute import rpcapi
        return self._client('compute_rpcapi', rpcapi.ComputeAPI)

    @property
    def report_client(self):
        from nova_clone.placement import client
        return self._client('report_client', client.SchedulerReportClient)

    @property
    def servicegroup_api(self):
        from nova_clone.servicegroup import api as sg_api
        return self._client('servicegroup_api', sg_api.API)

    @property
    def host_api(self):
        servicegroup_api = self.servicegroup_api
        return self._client('host_api', lambda: HostAPI(
            servicegroup_api=servicegroup_api))

    # -- create ------------------------------------------------------------
    def _get_image(self, context, image_href):
        if not image_href:
            return None
        return self.image_api.get(context, image_href)

    def _get_keypair(self, context, key_name):
        if not key_name:
            return None
        return _objects().KeyPair.get_by_name(context, context.user_id,
                                              key_name)

    def _check_zone(self, context, zone):
        """A zone to boot into is one of the enabled computes' zones."""
        hosts = [s.host for s in self.host_api.service_get_all(
            context.elevated(), {'binary': 'nova-compute',
                                 'disabled': False})]
        if zone not in availability_zones.zone_names(context, hosts):
            raise exception.InvalidRequest(
                message='The requested availability zone is not available')

    @staticmethod
    def _requested_group(context, scheduler_hints):
        """The server group a ``group`` scheduler hint names."""
        hint = (scheduler_hints or {}).get('group')
        if not hint:
            return None
        return _objects().InstanceGroup.get_by_hint(context, hint)

    def create(self, context, flavor, image_href, *, display_name,
               display_description=None, min_count=1, max_count=1,
               requested_networks=None, key_name=None,
               availability_zone=None, metadata=None, user_data=None,
               admin_password=None, block_device_mapping=None,
               scheduler_hints=None, tags=None, hostname=None,
               access_ip_v4=None, access_ip_v6=None, config_drive=None,
               security_groups=None, supports_multiattach=False,
               return_reservation_id=False, injected_files=None):
        objects = _objects()
        min_count = min_count or 1
        max_count = max_count or min_count
        if min_count > max_count:
            raise exception.InvalidInput(
                reason='min_count must be <= max_count')
        if getattr(flavor, 'disabled', False):
            raise exception.FlavorNotFound(flavor_id=flavor.flavorid)

        image = self._get_image(context, image_href)
        block_device_mapping = build.merge_image_bdms(image,
                                                      block_device_mapping)
        is_bfv = build.is_volume_backed(image_href, block_device_mapping)
        build.check_flavor_extra_specs(flavor)
        build.check_flavor_and_image(flavor, image, is_bfv=is_bfv)
        key_pair = self._get_keypair(context, key_name)
        zone, forced_host, forced_node = build.parse_availability_zone(
            context, availability_zone)
        if zone and not forced_host:
            self._check_zone(context, zone)
        max_count = min(max_count, self.network_api.validate_networks(
            context, requested_networks, max_count))
        if max_count < min_count:
            raise exception.TooManyInstances(
                overs='ports', req=min_count, used=0, allowed=max_count)

        if metadata:
            quota.check_metadata_items(context, metadata)
        count = quota.check_server_create(context, flavor, min_count,
                                          max_count)
        count = max(min_count, min(count or max_count, max_count))
        group = self._requested_group(context, scheduler_hints)
        if group is not None:
            quota.check_server_group_members(context, group, count)

        bdm_template = build.build_bdm_list(
            context, image_href, image, flavor, block_device_mapping,
            volume_api=self.volume_api if any(
                (b.get('source_type') == 'volume')
                for b in block_device_mapping or []) else None)

        reservation_id = 'r-%s' % uuidutils.generate_uuid()[:8]
        names = build.display_names(display_name or '', count)
        filter_properties = {'scheduler_hints': scheduler_hints or {}}
        if forced_host:
            filter_properties['force_hosts'] = [forced_host]
        if forced_node:
            filter_properties['force_nodes'] = [forced_node]
        sg_names = [g.get('name') if isinstance(g, dict) else g
                    for g in (security_groups or [])] or ['default']
        # Like Nova, an unknown group is the request's 400, not a failed
        # build on a compute.
        self.network_api.validate_security_groups(context, sg_names)

        instances, build_requests, request_specs, mappings = [], [], [], []
        for index in range(count):
            uuid = uuidutils.generate_uuid()
            name = names[index]
            if hostname and count == 1:
                host_name = hostname
            else:
                host_name = build.sanitize_hostname(
                    name, default='Server-%s' % uuid)
            instance = build.new_instance(
                context, flavor, image_href, image, uuid=uuid, index=index,
                display_name=name, display_description=display_description,
                hostname=host_name, key_pair=key_pair,
                availability_zone=zone, metadata=metadata,
                user_data=user_data, config_drive=config_drive,
                access_ip_v4=access_ip_v4, access_ip_v6=access_ip_v6,
                reservation_id=reservation_id, launch_index=index,
                security_groups=sg_names)
            spec = objects.RequestSpec.from_components(
                context, uuid, image or {}, flavor, None, None,
                filter_properties, group, zone, security_groups=sg_names,
                project_id=context.project_id, user_id=context.user_id)
            spec.num_instances = count
            spec.is_bfv = is_bfv
            if isinstance(requested_networks, list) or \
                    requested_networks in ('auto', 'none'):
                spec.requested_networks = requested_networks
            # Each server gets its own copies; the last can take the
            # template's objects themselves.
            bdms = objects.BlockDeviceMappingList(objects=[
                b.obj_clone() if index < count - 1 else b
                for b in bdm_template])
            for bdm in bdms:
                bdm.uuid = uuidutils.generate_uuid()
                bdm.instance_uuid = uuid
            tag_list = objects.TagList(objects=[
                objects.Tag(resource_id=uuid, tag=t) for t in (tags or [])])
            build_request = objects.BuildRequest(
                context, instance=instance, instance_uuid=uuid,
                project_id=context.project_id, block_device_mappings=bdms,
                tags=tag_list)
            mapping = objects.InstanceMapping(
                context, instance_uuid=uuid, cell_mapping=None,
                project_id=context.project_id, user_id=context.user_id,
                queued_for_delete=False)
            instances.append(instance)
            build_requests.append(build_request)
            request_specs.append(spec)
            mappings.append(mapping)

        self._record_in_api_db(context, request_specs, build_requests,
                               mappings)
        if CONF.quota.recheck_quota:
            try:
                quota.recheck_server_create(context, flavor, count)
            except exception.TooManyInstances:
                self._forget_in_api_db(context, build_requests)
                raise
        if group is not None:
            objects.InstanceGroup.add_members(
                context, group.uuid, [i.uuid for i in instances])
        bdm_objects = build_requests[0].block_device_mappings
        self.compute_task_api.schedule_and_build_instances(
            context, build_requests=build_requests,
            request_specs=request_specs, image=image or {},
            admin_password=admin_password,
            injected_files=injected_files or [],
            requested_networks=requested_networks,
            block_device_mapping=bdm_objects, tags=list(tags or []))
        return instances, reservation_id

    @staticmethod
    def _record_in_api_db(context, request_specs, build_requests, mappings):
        """The three records of every instance in one API-DB transaction
        (connection-level: the records are written with Core)."""
        from nova_clone.db.api import api as api_db
        with api_db.context_manager.writer.connection.using(context):
            for spec, br, mapping in zip(request_specs, build_requests,
                                         mappings):
                spec.create()
                br.create()
                mapping.create()

    @staticmethod
    def _forget_in_api_db(context, build_requests):
        """Undo _record_in_api_db for a boot refused after recording."""
        from nova_clone import objects
        uuids = [br.instance_uuid for br in build_requests]
        for br in build_requests:
            br.destroy()
        objects.RequestSpec.destroy_bulk(context, uuids)
        objects.InstanceMappingList.destroy_bulk(context, uuids)

    # -- read ----------------------------------------------------------------
    def get(self, context, instance_id, expected_attrs=None,
            cell_down_support=False):
        if not uuidutils.is_uuid_like(instance_id):
            raise exception.InstanceNotFound(instance_id=instance_id)
        instance = instance_list.get_one(
            context, instance_id, expected_attrs=expected_attrs,
            cell_down_support=cell_down_support)
        return self._visible(context, instance, instance_id)

    def get_for_delete(self, context, instance_id):
        """(instance, mapping) as ``delete`` uses them: read once for the
        API's checks and the delete itself."""
        if not uuidutils.is_uuid_like(instance_id):
            raise exception.InstanceNotFound(instance_id=instance_id)
        instance, mapping = instance_list.get_one_and_mapping(
            context, instance_id, list(delete_flow.INSTANCE_ATTRS))
        return self._visible(context, instance, instance_id), mapping

    @staticmethod
    def _visible(context, instance, instance_id):
        if not context.is_admin and \
                instance.project_id != context.project_id:
            raise exception.InstanceNotFound(instance_id=instance_id)
        return instance

    def get_all(self, context, search_opts=None, limit=None, marker=None,
                expected_attrs=None, sort_keys=None, sort_dirs=None,
                cell_down_support=False):
        return instance_list.get_all(
            context, search_opts or {}, limit=limit, marker=marker,
            expected_attrs=expected_attrs, sort_keys=sort_keys,
            sort_dirs=sort_dirs, cell_down_support=cell_down_support)

    def update_instance(self, context, instance, updates):
        """Change name, description, hostname... of a server."""
        objects = _objects()
        mapping = instance_list.get_mapping(context, instance.uuid)
        if mapping.cell_mapping is None:
            try:
                br = objects.BuildRequest.get_by_instance_uuid(
                    context, instance.uuid)
                for key, value in updates.items():
                    setattr(br.instance, key, value)
                br.save()
                for key, value in updates.items():
                    setattr(instance, key, value)
                return br.instance
            except exception.BuildRequestNotFound:
                mapping = instance_list.get_scheduled_mapping(
                    context, instance.uuid)
        cell = mapping.cell_mapping
        with nova_context.target_cell(context, cell) as cctxt:
            cell_instance = objects.Instance.get_by_uuid(cctxt, instance.uuid)
            for key, value in updates.items():
                setattr(cell_instance, key, value)
            cell_instance.save()
        return cell_instance

    # -- delete --------------------------------------------------------------
    @preconditions.checked('delete')
    def delete(self, context, instance, mapping=None):
        """``mapping``: the instance's, when read with it by
        get_for_delete."""
        delete_flow.delete(self, context, instance, mapping=mapping)

    # -- power and state actions (power.py) ---------------------------------
    @preconditions.checked('os-stop')
    def stop(self, context, instance, clean_shutdown=True):
        power.stop(self, context, instance, clean_shutdown)

    @preconditions.checked('os-start')
    def start(self, context, instance):
        power.start(self, context, instance)

    def reboot(self, context, instance, reboot_type):
        preconditions.check(context, instance, 'reboot' if reboot_type ==
                            power.SOFT else 'reboot:HARD')
        power.reboot(self, context, instance, reboot_type)

    @preconditions.checked('pause')
    def pause(self, context, instance):
        power.simple_action(self, context, instance, 'pause')

    @preconditions.checked('unpause')
    def unpause(self, context, instance):
        power.simple_action(self, context, instance, 'unpause')

    @preconditions.checked('suspend')
    def suspend(self, context, instance):
        power.simple_action(self, context, instance, 'suspend')

    @preconditions.checked('resume')
    def resume(self, context, instance):
        power.simple_action(self, context, instance, 'resume')

    @preconditions.checked('trigger_crash_dump')
    def trigger_crash_dump(self, context, instance):
        power.trigger_crash_dump(self, context, instance)

    @preconditions.checked('lock')
    def lock(self, context, instance, reason=None):
        power.lock(context, instance, reason)

    @preconditions.checked('unlock')
    def unlock(self, context, instance):
        power.unlock(context, instance)

    def reset_state(self, context, instance, state):
        power.reset_state(context, instance, state)

    def get_console_output(self, context, instance, tail_length=None):
        return power.get_console_output(self, context, instance,
                                        tail_length)

    def get_diagnostics(self, context, instance, structured=False):
        return power.get_diagnostics(self, context, instance, structured)

    # -- resize and cold migration -----------------------------------------
    @preconditions.checked('resize')
    def resize(self, context, instance, flavor_id, auto_disk_config=None):
        resize_flow.resize(self, context, instance.uuid, flavor_id=flavor_id,
                           auto_disk_config=auto_disk_config)

    @preconditions.checked('migrate')
    def migrate(self, context, instance, host_name=None):
        """A cold migration (to ``host_name`` when given)."""
        resize_flow.resize(self, context, instance.uuid, host_name=host_name)

    @preconditions.checked('confirmResize')
    def confirm_resize(self, context, instance):
        resize_flow.confirm_resize(self, context, instance.uuid)

    @preconditions.checked('revertResize')
    def revert_resize(self, context, instance):
        resize_flow.revert_resize(self, context, instance.uuid)

    # -- live migration ------------------------------------------------------
    @preconditions.checked('os-migrateLive')
    def live_migrate(self, context, instance, block_migration,
                     disk_over_commit, host_name, force=None, async_=False):
        live_migration.live_migrate(self, context, instance, block_migration,
                                    disk_over_commit, host_name, force=force,
                                    async_=async_)

    @preconditions.checked('force_complete')
    def live_migrate_force_complete(self, context, instance, migration_id):
        live_migration.force_complete(self, context, instance, migration_id)

    @preconditions.checked('abort live migration')
    def live_migrate_abort(self, context, instance, migration_id,
                           support_abort_in_queue=False):
        live_migration.abort(self, context, instance, migration_id,
                             support_abort_in_queue=support_abort_in_queue)

    def get_migrations_in_progress_by_instance(self, context, instance):
        return live_migration.in_progress(context, instance)

    def get_migration_by_id_and_instance(self, context, instance,
                                         migration_id):
        return live_migration.get_in_progress(context, instance,
                                              migration_id)

    # -- Cinder-assisted volume snapshots ---------------------------------
    def volume_snapshot_create(self, context, volume_id, create_info):
        instance = volume_snapshots.attached_instance(
            context, self.volume_api, volume_id)
        self._volume_snapshot(context, instance,
                              self.compute_rpcapi.volume_snapshot_create,
                              volume_id=volume_id, create_info=create_info)
        return {'snapshot': {'id': create_info.get('id'),
                             'volumeId': volume_id}}

    def volume_snapshot_delete(self, context, volume_id, snapshot_id,
                               delete_info):
        instance = volume_snapshots.attached_instance(
            context, self.volume_api, volume_id)
        self._volume_snapshot(context, instance,
                              self.compute_rpcapi.volume_snapshot_delete,
                              volume_id=volume_id, snapshot_id=snapshot_id,
                              delete_info=delete_info)

    @preconditions.checked('volume_snapshot')
    def _volume_snapshot(self, context, instance, cast, **kwargs):
        if not instance.host:
            raise exception.InstanceNotReady(instance_id=instance.uuid)
        cast(context, instance, **kwargs)

    # -- multinic ---------------------------------------------------------
    @preconditions.checked('addFixedIp')
    def add_fixed_ip(self, context, instance, network_id):
        self.compute_rpcapi.add_fixed_ip_to_instance(
            context, instance=instance, network_id=network_id)

    @preconditions.checked('removeFixedIp')
    def remove_fixed_ip(self, context, instance, address):
        self.compute_rpcapi.remove_fixed_ip_from_instance(
            context, instance=instance, address=address)
    @staticmethod
    @contextlib.contextmanager
    def cell_context(context, instance):
        """``context`` targeted at the cell of ``instance`` (which is in
        one: the preconditions of every action refuse a build request)."""
        mapping = instance_list.get_scheduled_mapping(context, instance.uuid)
        with nova_context.target_cell(context,
                                      mapping.cell_mapping) as cctxt:
            yield cctxt

    # -- server actions ----------------------------------------------------
    @preconditions.checked('rebuild')
    def rebuild(self, context, instance, image_href, admin_password,
                **kwargs):
        """Re-image the server on its host (see rebuild.rebuild)."""
        with self.cell_context(context, instance) as cctxt:
            rebuild_flow.rebuild(self, cctxt, instance, image_href,
                                 admin_password, **kwargs)

    @preconditions.checked('createImage')
    def snapshot(self, context, instance, name, extra_properties=None):
        """createImage of an image-backed server; the image record."""
        with self.cell_context(context, instance) as cctxt:
            return snapshot_flow.snapshot(self, cctxt, instance, name,
                                          extra_properties)

    @preconditions.checked('createImage')
    def snapshot_volume_backed(self, context, instance, name,
                               extra_properties=None):
        """createImage of a volume-backed server; the image record."""
        with self.cell_context(context, instance) as cctxt:
            return snapshot_flow.snapshot_volume_backed(
                self, cctxt, instance, name, extra_properties)

    @preconditions.checked('createBackup')
    def backup(self, context, instance, name, backup_type, rotation,
               extra_properties=None):
        """createBackup; the image record."""
        with self.cell_context(context, instance) as cctxt:
            return snapshot_flow.backup(self, cctxt, instance, name,
                                        backup_type, rotation,
                                        extra_properties)

    @preconditions.checked('rescue')
    def rescue(self, context, instance, rescue_password=None,
               rescue_image_ref=None, allow_bfv_rescue=False):
        with self.cell_context(context, instance) as cctxt:
            rescue_flow.rescue(self, cctxt, instance, rescue_password,
                               rescue_image_ref=rescue_image_ref,
                               allow_bfv_rescue=allow_bfv_rescue)

    @preconditions.checked('unrescue')
    def unrescue(self, context, instance):
        with self.cell_context(context, instance) as cctxt:
            rescue_flow.unrescue(self, cctxt, instance)

    @preconditions.checked('changePassword')
    def set_admin_password(self, context, instance, password):
        with self.cell_context(context, instance) as cctxt:
            rescue_flow.set_admin_password(self, cctxt, instance, password)

    @preconditions.checked('attach_interface')
    def attach_interface(self, context, instance, network_id, port_id,
                         requested_ip, tag=None):
        """The attached port's VIF (the compute's answer)."""
        with self.cell_context(context, instance) as cctxt:
            return interfaces.attach_interface(
                self, cctxt, instance, network_id, port_id, requested_ip,
                tag=tag)

    @preconditions.checked('detach_interface')
    def detach_interface(self, context, instance, port_id):
        with self.cell_context(context, instance) as cctxt:
            interfaces.detach_interface(self, cctxt, instance, port_id)

    def get_console(self, context, instance, protocol, console_type):
        """{'url': ...} of a new remote console of the server."""
        if not instance.host:
            # Not on a host (yet): no console to reach.
            raise exception.InstanceNotReady(instance_id=instance.uuid)
        with self.cell_context(context, instance) as cctxt:
            return consoles.get_console(self, cctxt, instance, protocol,
                                        console_type)

    @staticmethod
    def validate_console_token(context, token):
        return consoles.validate_token(context, token)

    @preconditions.checked('injectNetworkInfo')
    def inject_network_info(self, context, instance):
        with self.cell_context(context, instance) as cctxt:
            self.compute_rpcapi.inject_network_info(cctxt, instance)

    def add_security_group(self, context, instance, name):
        with self.cell_context(context, instance) as cctxt:
            security_groups.add_to_instance(self, cctxt, instance, name)

    def remove_security_group(self, context, instance, name):
        with self.cell_context(context, instance) as cctxt:
            security_groups.remove_from_instance(self, cctxt, instance,
                                                 name)

    def is_volume_backed(self, context, instance):
        with self.cell_context(context, instance) as cctxt:
            return rebuild_flow.is_volume_backed(cctxt, instance)

    @preconditions.checked('evacuate')
    def evacuate(self, context, instance, host, on_shared_storage,
                 admin_password, target_state=None):
        """Rebuild the server elsewhere; its host must be down."""
        with self.cell_context(context, instance) as cctxt:
            evacuate_flow.evacuate(self, cctxt, instance, host,
                                   on_shared_storage, admin_password,
                                   target_state=target_state)

    @preconditions.checked('restore')
    def restore(self, context, instance):
        """Undo a soft delete."""
        with self.cell_context(context, instance) as cctxt:
            deferred_delete.restore(self, cctxt, instance)

    @preconditions.checked('forceDelete')
    def force_delete(self, context, instance):
        """Delete now, soft-deleted or not."""
        delete_flow.delete(self, context, instance, allow_soft=False)

    # -- volumes -------------------------------------------------------------
    @preconditions.checked('attach_volume')
    def attach_volume(self, context, instance, volume_id, device=None,
                      disk_bus=None, device_type=None, tag=None,
                      supports_multiattach=False,
                      delete_on_termination=False):
        """The new BDM (None for a shelved-offloaded server)."""
        return volumes.attach_volume(
            self, context, instance, volume_id, device=device,
            disk_bus=disk_bus, device_type=device_type, tag=tag,
            supports_multiattach=supports_multiattach,
            delete_on_termination=delete_on_termination)

    @preconditions.checked('detach_volume')
    def detach_volume(self, context, instance, volume):
        volumes.detach_volume(self, context, instance, volume)

    @preconditions.checked('swap_volume')
    def swap_volume(self, context, instance, old_volume, new_volume):
        volumes.swap_volume(self, context, instance, old_volume, new_volume)

    # -- shelve --------------------------------------------------------------
    @preconditions.checked('shelve')
    def shelve(self, context, instance, clean_shutdown=True):
        shelve_flow.shelve(self, context, instance,
                           clean_shutdown=clean_shutdown)

    @preconditions.checked('shelveOffload')
    def shelve_offload(self, context, instance, clean_shutdown=True):
        shelve_flow.shelve_offload(self, context, instance,
                                   clean_shutdown=clean_shutdown)

    @preconditions.checked('unshelve')
    def unshelve(self, context, instance,
                 availability_zone=shelve_flow.UNSET, host=None):
        shelve_flow.unshelve(self, context, instance,
                             availability_zone=availability_zone, host=host)

    # -- events -----------------------------------------------------------
    def external_instance_event(self, context, instances, events,
                                mappings=None):
        """Deliver events to the computes of their instances.

        One cast per (cell, host) with that host's instances and events, on
        the compute-alt topic.  ``mappings`` ({uuid: InstanceMapping}) are
        the instances' mappings when the caller has them already.
        """
        objects = _objects()
        by_uuid = {i.uuid: i for i in instances}
        if mappings is None:
            mappings = {m.instance_uuid: m for m in
                        objects.InstanceMappingList.get_by_instance_uuids(
                            context, list(by_uuid))}
        groups = {}
        for event in events:
            uuid = event['server_uuid'] if isinstance(event, dict) else \
                event.instance_uuid
            instance = by_uuid.get(uuid)
            if instance is None or not getattr(instance, 'host', None):
                LOG.debug('Not delivering event %s: instance %s has no host',
                          event, uuid)
                continue
            mapping = mappings.get(uuid)
            cell = mapping.cell_mapping if mapping is not None else None
            key = (cell.uuid if cell is not None else None, instance.host)
            group = groups.setdefault(key, (cell, {}, []))
            group[1][uuid] = instance
            group[2].append(event)
        for (cell_uuid, host), (cell, insts, evs) in groups.items():
            if cell is not None:
                with nova_context.target_cell(context, cell) as cctxt:
                    self.compute_rpcapi.external_instance_event(
                        cctxt, list(insts.values()), evs, host=host)
            else:
                self.compute_rpcapi.external_instance_event(
                    context, list(insts.values()), evs, host=host)
