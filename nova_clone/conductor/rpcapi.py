"""Client side of the conductor's RPC APIs (topic ``conductor``).

``ConductorAPI`` (version 3.0) is the indirection API of versioned objects:
a process (or, in the embedded mode, a service) that sets it with
``objects.base.set_indirection_api`` sends every remotable method to the
conductor, which runs it against the database and returns the result (and
the object's changes).

``ComputeTaskAPI`` (namespace ``compute_task``, version 1.26) starts the
long flows the conductor runs: builds, moves, unshelve, rebuild, attach.

Version history of ComputeTaskAPI kept here (as Nova's):
  1.0  - initial
  1.1  - migrate_server
  1.2  - build_instances
  1.3  - unshelve_instance
  1.8  - rebuild_instance
  1.15 - live_migrate_instance
  1.16 - schedule_and_build_instances
  1.17 - schedule_and_build_instances gets tags
  1.19 - build_instances gets host_lists
  1.20 - migrate_server gets host_list
  1.21 - cache_images
  1.22 - confirm_snapshot_based_resize
  1.23 - revert_snapshot_based_resize
  1.24 - rebuild_instance gets reimage_boot_volume
  1.25 - rebuild_instance gets target_state
  1.26 - attach_volume
"""

import oslo_messaging as messaging
from oslo_serialization import jsonutils

from nova_clone.conf import CONF
from nova_clone import exception
from nova_clone import rpc

RPC_TOPIC = 'conductor'
COMPUTE_TASK_NAMESPACE = 'compute_task'


def _version_cap(aliases):
    levels = getattr(CONF, 'upgrade_levels', None)
    level = getattr(levels, 'conductor', None) if levels else None
    return aliases.get(level, level)


def _local_exception(remote):
    """Our exception class for a RemoteError naming one, else the error.

    Object methods raise NotFound, UnexpectedTaskStateError and the like
    on purpose; the caller must be able to catch them by class even when
    the transport hands back a RemoteError.
    """
    cls = getattr(exception, remote.exc_type or '', None)
    if isinstance(cls, type) and issubclass(cls, exception.NovaException):
        message = (remote.value or '').split('\n')[0]
        try:
            return cls(message=message)
        except Exception:
            return remote
    return remote


def _call(cctxt, context, method, **kwargs):
    try:
        return cctxt.call(context, method, **kwargs)
    except messaging.RemoteError as remote:
        raise _local_exception(remote) from None


class ConductorAPI:
    """Client of the conductor's object indirection API (3.0)."""

    VERSION_ALIASES = {}

    def __init__(self):
        target = messaging.Target(topic=RPC_TOPIC, version='3.0')
        self.client = rpc.get_client(
            target, version_cap=_version_cap(self.VERSION_ALIASES))

    # The three methods oslo.versionedobjects' indirection protocol calls.

    def object_class_action_versions(self, context, objname, objmethod,
                                     object_versions, args, kwargs):
        cctxt = self.client.prepare()
        return _call(cctxt, context, 'object_class_action_versions',
                          objname=objname, objmethod=objmethod,
                          object_versions=object_versions,
                          args=args, kwargs=kwargs)

    def object_action(self, context, objinst, objmethod, args, kwargs):
        cctxt = self.client.prepare()
        return _call(cctxt, context, 'object_action', objinst=objinst,
                          objmethod=objmethod, args=args, kwargs=kwargs)

    def object_backport_versions(self, context, objinst, object_versions):
        cctxt = self.client.prepare()
        return _call(cctxt, context, 'object_backport_versions',
                          objinst=objinst, object_versions=object_versions)

    def object_class_action(self, context, objname, objmethod, objver,
                            args, kwargs):
        """Convenience for callers knowing only one object's version."""
        from oslo_versionedobjects import base as ovo_base
        versions = ovo_base.obj_tree_get_versions(objname)
        versions[objname] = objver
        return self.object_class_action_versions(
            context, objname, objmethod, versions, args, kwargs)


class ComputeTaskAPI:
    """Client of the conductor's compute_task namespace (1.26)."""

    VERSION_ALIASES = {}

    def __init__(self):
        target = messaging.Target(topic=RPC_TOPIC,
                                  namespace=COMPUTE_TASK_NAMESPACE,
                                  version='1.0')
        self.client = rpc.get_client(
            target, version_cap=_version_cap(self.VERSION_ALIASES))

    def migrate_server(self, context, instance, scheduler_hint, live, rebuild,
                       flavor, block_migration, disk_over_commit,
                       reservations=None, clean_shutdown=True,
                       request_spec=None, host_list=None, do_cast=False):
        kw = {'instance': instance, 'scheduler_hint': scheduler_hint,
              'live': live, 'rebuild': rebuild, 'flavor': flavor,
              'block_migration': block_migration,
              'disk_over_commit': disk_over_commit,
              'reservations': reservations,
              'clean_shutdown': clean_shutdown,
              'request_spec': request_spec, 'host_list': host_list}
        cctxt = self.client.prepare(version='1.20')
        if do_cast:
            return cctxt.cast(context, 'migrate_server', **kw)
        return cctxt.call(context, 'migrate_server', **kw)

    def live_migrate_instance(self, context, instance, scheduler_hint,
                              block_migration, disk_over_commit,
                              request_spec):
        cctxt = self.client.prepare(version='1.15')
        cctxt.cast(context, 'live_migrate_instance', instance=instance,
                   scheduler_hint=scheduler_hint,
                   block_migration=block_migration,
                   disk_over_commit=disk_over_commit,
                   request_spec=request_spec)

    def build_instances(self, context, instances, image, filter_properties,
                        admin_password, injected_files, requested_networks,
                        security_groups, block_device_mapping,
                        legacy_bdm=True, request_spec=None, host_lists=None):
        cctxt = self.client.prepare(version='1.19')
        cctxt.cast(context, 'build_instances', instances=instances,
                   image=image, filter_properties=filter_properties,
                   admin_password=admin_password,
                   injected_files=injected_files,
                   requested_networks=requested_networks,
                   security_groups=security_groups,
                   block_device_mapping=block_device_mapping,
                   legacy_bdm=legacy_bdm, request_spec=request_spec,
                   host_lists=host_lists)

    def schedule_and_build_instances(self, context, build_requests,
                                     request_specs, image, admin_password,
                                     injected_files, requested_networks,
                                     block_device_mapping, tags=None):
        cctxt = self.client.prepare(version='1.17')
        cctxt.cast(context, 'schedule_and_build_instances',
                   build_requests=build_requests,
                   request_specs=request_specs,
                   image=jsonutils.to_primitive(image),
                   admin_password=admin_password,
                   injected_files=injected_files,
                   requested_networks=requested_networks,
                   block_device_mapping=block_device_mapping, tags=tags)

    def unshelve_instance(self, context, instance, request_spec=None):
        cctxt = self.client.prepare(version='1.14')
        cctxt.cast(context, 'unshelve_instance', instance=instance,
                   request_spec=request_spec)

    def rebuild_instance(self, ctxt, instance, new_pass, injected_files,
                         image_ref, orig_image_ref, orig_sys_metadata, bdms,
                         recreate=False, on_shared_storage=False, host=None,
                         preserve_ephemeral=False, request_spec=None,
                         reimage_boot_volume=False, target_state=None):
        cctxt = self.client.prepare(version='1.25')
        cctxt.cast(ctxt, 'rebuild_instance', instance=instance,
                   new_pass=new_pass, injected_files=injected_files,
                   image_ref=image_ref, orig_image_ref=orig_image_ref,
                   orig_sys_metadata=orig_sys_metadata, bdms=bdms,
                   recreate=recreate, on_shared_storage=on_shared_storage,
                   preserve_ephemeral=preserve_ephemeral, host=host,
                   request_spec=request_spec,
                   reimage_boot_volume=reimage_boot_volume,
                   target_state=target_state)

    def cache_images(self, ctxt, aggregate, image_ids):
        cctxt = self.client.prepare(version='1.21')
        cctxt.cast(ctxt, 'cache_images', aggregate=aggregate,
                   image_ids=image_ids)

    def confirm_snapshot_based_resize(self, ctxt, instance, migration,
                                      do_cast=True):
        cctxt = self.client.prepare(version='1.22')
        method = cctxt.cast if do_cast else cctxt.call
        return method(ctxt, 'confirm_snapshot_based_resize',
                      instance=instance, migration=migration)

    def revert_snapshot_based_resize(self, ctxt, instance, migration):
        cctxt = self.client.prepare(version='1.23')
        cctxt.cast(ctxt, 'revert_snapshot_based_resize', instance=instance,
                   migration=migration)

    def attach_volume(self, ctxt, instance, volume_id, device=None,
                      disk_bus=None, device_type=None, tag=None,
                      supports_multiattach=False,
                      delete_on_termination=False, do_cast=True):
        # Below 2.101 the API waits (call) for the reserved device name.
        kw = {'instance': instance, 'volume_id': volume_id,
              'device': device, 'disk_bus': disk_bus,
              'device_type': device_type, 'tag': tag,
              'supports_multiattach': supports_multiattach,
              'delete_on_termination': delete_on_termination}
        if do_cast:
            cctxt = self.client.prepare(version='1.26')
            return cctxt.cast(ctxt, 'attach_volume', **kw)
        cctxt = self.client.prepare(version='1.26',
                                    timeout=CONF.long_rpc_timeout)
        return cctxt.call(ctxt, 'attach_volume', **kw)
