"""Server side of the conductor: object indirection and compute tasks.

``ConductorManager`` runs remotable object methods for services that may
not touch the database (nova-compute).  ``ComputeTaskManager`` is the
``compute_task`` endpoint; each of its methods hands the work to the flow
module in ``nova_clone.conductor.tasks`` that owns it (``build``: boot
and reschedule; ``migrate``: resize and cold migration;
``live_migrate``: live migration; ``rebuild``: rebuild on the instance's
host, and evacuate; ``image_cache``: aggregate image pre-caching;
``unshelve``: unshelving an offloaded server).
"""

import datetime
import functools

import netaddr
import oslo_messaging as messaging
from oslo_log import log as logging
from oslo_service import periodic_task
from oslo_utils import timeutils
from oslo_utils import versionutils

from nova_clone.compute import rpcapi as compute_rpcapi
from nova_clone.conductor import rpcapi
from nova_clone.conductor.tasks import build
from nova_clone.conductor.tasks import image_cache
from nova_clone.conductor.tasks import live_migrate
from nova_clone.conductor.tasks import migrate
from nova_clone.conductor.tasks import rebuild
from nova_clone.conductor.tasks import unshelve
from nova_clone.conf import CONF
from nova_clone import context as nova_context
from nova_clone import exception
from nova_clone import manager
from nova_clone import objects
from nova_clone.objects import base as objects_base
from nova_clone.placement import client as placement_client
from nova_clone.scheduler.client import query

LOG = logging.getLogger(__name__)

# Scheduling takes seconds, and a compute takes a build on as its cast
# arrives: a build request or a scheduled build untouched for this long
# will never be taken up.
LOST_REQUEST_SECONDS = 120


# Kinds of snapshot entry.
_VALUE = 'value'
_PRIMITIVE = 'primitive'
# Values that cannot change in place: the snapshot keeps the reference.
# (Datetimes go by their primitive, which is to the second: a value read
# back from the database is the one the caller has if they agree on it.)
_IMMUTABLE = (str, bytes, int, float, bool, type(None), netaddr.IPAddress)


def _snapshot(obj):
    """{field: (kind, value or primitive)} of ``obj``'s set fields, to
    tell after a method which ones it changed.

    Cheaper than a deep copy of the whole object: immutable values are
    kept as they are, anything else as its primitive (nested objects
    compare by identity, so the primitive, change list included, is what
    tells whether one changed).
    """
    snap = {}
    for name, field in obj.fields.items():
        if not obj.obj_attr_is_set(name):
            continue
        value = getattr(obj, name)
        if isinstance(value, _IMMUTABLE):
            snap[name] = (_VALUE, value)
        else:
            snap[name] = (_PRIMITIVE, field.to_primitive(obj, name, value))
    return snap


def _newer(requested, actual):
    req = versionutils.convert_version_to_tuple(requested)
    act = versionutils.convert_version_to_tuple(actual)
    return req < act or req[0] != act[0]


class ConductorManager(manager.Manager):
    """Runs versioned-object methods on behalf of other services."""

    target = messaging.Target(version=rpcapi.CONDUCTOR_VERSION)

    def __init__(self, *args, super_conductor=None, **kwargs):
        kwargs.setdefault('service_name', 'conductor')
        super().__init__(*args, **kwargs)
        # The super-conductor is the one that reads the API database's
        # build requests; a process running both kinds says which is which.
        self.super_conductor = (bool(CONF.api_database.connection)
                                if super_conductor is None
                                else super_conductor)
        self.started_at = timeutils.utcnow()
        self.compute_task_mgr = ComputeTaskManager()
        self.additional_endpoints.append(self.compute_task_mgr)

    def reset(self):
        objects.Service.clear_min_version_cache()

    def init_host(self, service_ref=None):
        if not self.super_conductor:
            return
        context = nova_context.get_admin_context()
        try:
            build.bury_abandoned_build_requests(
                self.compute_task_mgr, context, self.started_at)
        except Exception:
            LOG.exception('Could not settle the build requests left by a '
                          'stopped conductor')
        try:
            migrate.settle_abandoned_moves(self.compute_task_mgr, context,
                                           self.started_at)
        except Exception:
            LOG.exception('Could not settle the moves left by a stopped '
                          'conductor')

    @periodic_task.periodic_task(spacing=30)
    def _settle_lost_requests(self, context):
        # A build request no conductor took up, a scheduled build no
        # compute took on, or a move no destination took up, for this
        # long lost its cast on the way (the nova-api worker, a
        # conductor, a compute or the broker died with it) or was failed
        # by a conductor that could not record it: nothing would ever
        # finish it.
        if not self.super_conductor:
            return
        before = timeutils.utcnow() - datetime.timedelta(
            seconds=LOST_REQUEST_SECONDS)
        mgr = self.compute_task_mgr
        # Each check on its own: one that fails (Placement or a cell
        # away) must not keep the others from running.
        for check, args in (
                (build.bury_abandoned_build_requests,
                 (exception.BuildRequestLost(seconds=LOST_REQUEST_SECONDS),)),
                (build.fail_builds_no_compute_took, (LOST_REQUEST_SECONDS,)),
                (migrate.settle_abandoned_moves, (LOST_REQUEST_SECONDS,))):
            try:
                check(mgr, context, before, *args)
            except Exception:
                LOG.exception('%s failed; it runs again in 30 s',
                              check.__name__)

    @staticmethod
    def _dispatch(target, method, args, kwargs):
        try:
            return getattr(target, method)(*args, **kwargs)
        except Exception:
            # The caller gets the exception; the conductor log stays quiet.
            raise messaging.ExpectedException()

    def object_class_action_versions(self, context, objname, objmethod,
                                     object_versions, args, kwargs):
        wanted = object_versions[objname]
        objclass = objects_base.NovaObject.obj_class_from_name(
            objname, wanted)
        result = self._dispatch(objclass, objmethod,
                                (context,) + tuple(args), kwargs)
        # Send the caller the version it understands, not ours.
        if (isinstance(result, objects_base.NovaObject) and
                _newer(wanted, result.VERSION)):
            result = result.obj_to_primitive(
                target_version=wanted, version_manifest=object_versions)
        return result

    def object_action(self, context, objinst, objmethod, args, kwargs):
        before = _snapshot(objinst)
        result = self._dispatch(objinst, objmethod, args, kwargs)
        # Return the fields the method changed so the caller's copy of
        # the object ends up as ours is, plus its dirty-field list.
        updates = {}
        for name, field in objinst.fields.items():
            if not objinst.obj_attr_is_set(name):
                continue
            value = getattr(objinst, name)
            old = before.get(name)
            if isinstance(value, _IMMUTABLE):
                if old != (_VALUE, value):
                    updates[name] = field.to_primitive(objinst, name, value)
                continue
            primitive = field.to_primitive(objinst, name, value)
            if old != (_PRIMITIVE, primitive):
                updates[name] = primitive
        updates['obj_what_changed'] = objinst.obj_what_changed()
        return updates, result

    def object_backport_versions(self, context, objinst, object_versions):
        target = object_versions[objinst.obj_name()]
        LOG.debug('Backporting %s to %s', objinst.obj_name(), target)
        return objinst.obj_to_primitive(target_version=target,
                                        version_manifest=object_versions)


class ComputeTaskManager:
    """The ``compute_task`` endpoint: entry points of the long flows.

    It serves the methods of ``rpcapi.ComputeTaskAPI`` and nothing else;
    each hands its work to the flow module that owns it.
    """

    target = messaging.Target(namespace=rpcapi.COMPUTE_TASK_NAMESPACE,
                              version=rpcapi.COMPUTE_TASK_VERSION)

    # Clients of other services, built on first use so that a manager
    # can be created before RPC is set up; each may be assigned instead.

    @functools.cached_property
    def compute_rpcapi(self):
        return compute_rpcapi.ComputeAPI()

    @functools.cached_property
    def query_client(self):
        return query.SchedulerQueryClient()

    @functools.cached_property
    def report_client(self):
        return placement_client.SchedulerReportClient()

    def build_instances(self, context, instances, image, filter_properties,
                        admin_password, injected_files, requested_networks,
                        security_groups, block_device_mapping=None,
                        legacy_bdm=True, request_spec=None, host_lists=None):
        return build.build_instances(
            self, context, instances, image, filter_properties, admin_password,
            injected_files, requested_networks, security_groups,
            block_device_mapping=block_device_mapping, legacy_bdm=legacy_bdm,
            request_spec=request_spec, host_lists=host_lists)

    def cache_images(self, context, aggregate, image_ids):
        return image_cache.cache_images(self, context, aggregate, image_ids)

    def schedule_and_build_instances(self, context, build_requests,
                                     request_specs, image, admin_password,
                                     injected_files, requested_networks,
                                     block_device_mapping, tags=None):
        return build.schedule_and_build_instances(
            self, context, build_requests, request_specs, image,
            admin_password, injected_files, requested_networks,
            block_device_mapping, tags=tags)

    def live_migrate_instance(self, context, instance, scheduler_hint,
                              block_migration, disk_over_commit,
                              request_spec):
        live_migrate.live_migrate_instance(
            self, context, instance, scheduler_hint, block_migration,
            disk_over_commit, request_spec)

    @messaging.expected_exceptions(
        exception.NoValidHost, exception.ComputeServiceUnavailable,
        exception.InstanceInvalidState, exception.Invalid,
        exception.MigrationError, exception.HypervisorUnavailable,
        exception.Forbidden, exception.NotFound, exception.Conflict)
    def migrate_server(self, context, instance, scheduler_hint, live, rebuild,
                       flavor, block_migration, disk_over_commit,
                       reservations=None, clean_shutdown=True,
                       request_spec=None, host_list=None):
        """Resize and cold migration (the API casts them), or a live
        migration an API before 2.34 waits for (a call)."""
        if live:
            return live_migrate.live_migrate_instance(
                self, context, instance, scheduler_hint, block_migration,
                disk_over_commit, request_spec)
        return migrate.migrate_server(
            self, context, instance, scheduler_hint, live, rebuild, flavor,
            block_migration, disk_over_commit, reservations=reservations,
            clean_shutdown=clean_shutdown, request_spec=request_spec,
            host_list=host_list)

    def rebuild_instance(self, context, instance, orig_image_ref, image_ref,
                         injected_files, new_pass, orig_sys_metadata,
                         bdms, recreate, on_shared_storage,
                         preserve_ephemeral=False, host=None,
                         request_spec=None, reimage_boot_volume=False,
                         target_state=None):
        return rebuild.rebuild_instance(
            self, context, instance, orig_image_ref, image_ref,
            injected_files, new_pass, orig_sys_metadata, bdms, recreate,
            on_shared_storage, preserve_ephemeral=preserve_ephemeral,
            host=host, request_spec=request_spec,
            reimage_boot_volume=reimage_boot_volume,
            target_state=target_state)
    def unshelve_instance(self, context, instance, request_spec=None):
        unshelve.unshelve_instance(self, context, instance,
                                   request_spec=request_spec)
