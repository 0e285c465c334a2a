"""Client side of the conductor's RPC APIs (topic ``conductor``).

``ConductorAPI`` (version 3.0) is the indirection API of versioned objects:
a process (or, in the embedded mode, a service) that sets it with
``objects.base.set_indirection_api`` sends every remotable method to the
conductor, which runs it against the database and returns the result (and
the object's changes).

``ComputeTaskAPI`` (namespace ``compute_task``) starts the long flows the
conductor runs.  Its version follows Nova's history of the methods
implemented so far, and is raised as each flow lands with the version at
which Nova added it:
  1.2  - build_instances (the reschedule path)
  1.3  - unshelve_instance
  1.12 - unshelve_instance gets request_spec
  1.15 - live_migrate_instance
  1.16 - schedule_and_build_instances
  1.17 - schedule_and_build_instances gets tags
  1.19 - build_instances gets host_lists
  1.20 - migrate_server (cold migration and resize; live migration for
         an API before 2.34) with host_list
  1.21 - cache_images
  1.25 - rebuild_instance (with request_spec, reimage_boot_volume and
         target_state, as Nova has it at 1.25)
Next in Nova's history:
confirm/revert_snapshot_based_resize, attach_volume (1.26).

Both clients are capped at the versions the conductor serves (the
constants below, which the server side's targets use too), so a method
prepared at a version the server does not have fails in the caller.
"""

import oslo_messaging as messaging
from oslo_serialization import jsonutils
from oslo_versionedobjects import base as ovo_base

from nova_clone import exception
from nova_clone import rpc

RPC_TOPIC = 'conductor'
COMPUTE_TASK_NAMESPACE = 'compute_task'
# The versions the conductor serves (its endpoints' targets).
CONDUCTOR_VERSION = '3.0'
COMPUTE_TASK_VERSION = '1.25'


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

    def __init__(self):
        target = messaging.Target(topic=RPC_TOPIC, version='3.0')
        self.client = rpc.get_client(target, version_cap=CONDUCTOR_VERSION)

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
        versions = ovo_base.obj_tree_get_versions(objname)
        versions[objname] = objver
        return self.object_class_action_versions(
            context, objname, objmethod, versions, args, kwargs)


class ComputeTaskAPI:
    """Client of the conductor's compute_task namespace."""

    def __init__(self):
        target = messaging.Target(topic=RPC_TOPIC,
                                  namespace=COMPUTE_TASK_NAMESPACE,
                                  version='1.0')
        self.client = rpc.get_client(target,
                                     version_cap=COMPUTE_TASK_VERSION)

    def migrate_server(self, context, instance, scheduler_hint, live, rebuild,
                       flavor, block_migration, disk_over_commit,
                       reservations=None, clean_shutdown=True,
                       request_spec=None, host_list=None, do_cast=False):
        """A resize or cold migration; the API casts it, a compute casts
        a reschedule with the alternates left (``host_list``)."""
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
        return _call(cctxt, context, 'migrate_server', **kw)

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
        cctxt = self.client.prepare(version='1.12')
        cctxt.cast(context, 'unshelve_instance', instance=instance,
                   request_spec=request_spec)

    def cache_images(self, context, aggregate, image_ids):
        cctxt = self.client.prepare(version='1.21')
        cctxt.cast(context, 'cache_images', aggregate=aggregate,
                   image_ids=image_ids)

    def rebuild_instance(self, ctxt, instance, new_pass, injected_files,
                         image_ref, orig_image_ref, orig_sys_metadata, bdms,
                         recreate=False, on_shared_storage=False,
                         preserve_ephemeral=False, host=None,
                         request_spec=None, reimage_boot_volume=False,
                         target_state=None):
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
    def live_migrate_instance(self, context, instance, scheduler_hint,
                              block_migration, disk_over_commit,
                              request_spec):
        cctxt = self.client.prepare(version='1.15')
        cctxt.cast(context, 'live_migrate_instance', instance=instance,
                   scheduler_hint=scheduler_hint,
                   block_migration=block_migration,
                   disk_over_commit=disk_over_commit,
                   request_spec=request_spec)
