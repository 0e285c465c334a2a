"""The conductor's part of a boot: schedule, create in a cell, hand over.

``schedule_and_build_instances`` (super-conductor, API DB + cells) asks the
scheduler for hosts, creates each instance in its host's cell, records the
``create`` action there, repoints the instance mapping, deletes the build
request and casts build_and_run_instance to the compute.  When scheduling
fails every instance is buried in cell0 in ERROR with a fault.

``build_instances`` (cell conductor) is the reschedule path a compute
casts after a retryable failure: it claims the next alternate host in
Placement and casts the build there, or puts the instance in ERROR when the
alternates or attempts are spent.  It touches only the cell database.
"""

import functools
import time

from oslo_db import exception as db_exc
from oslo_log import log as logging
from oslo_serialization import jsonutils
from oslo_utils import uuidutils

from nova_clone import availability_zones
from nova_clone.compute import instance_actions
from nova_clone.compute import task_states
from nova_clone.compute import utils as compute_utils
from nova_clone.compute import vm_states
from nova_clone.conf import CONF
from nova_clone import context as nova_context
from nova_clone import exception
from nova_clone import objects
from nova_clone.scheduler import utils as scheduler_utils

LOG = logging.getLogger(__name__)

SCHEDULE_EVENT = 'conductor_schedule_and_build_instances'


# -- helpers ---------------------------------------------------------------

def _record_failed_create(cctxt, instance, exc, event_name):
    """The create action with one Error event, as the user will see it."""
    try:
        objects.InstanceAction.action_start(
            cctxt, instance.uuid, instance_actions.CREATE, want_result=False)
        objects.InstanceActionEvent.event_start(
            cctxt, instance.uuid, event_name, want_result=False,
            host=CONF.host)
        objects.InstanceActionEvent.event_finish_with_failure(
            cctxt, instance.uuid, event_name, exc_val=exc, exc_tb=None,
            want_result=False)
    except Exception:
        LOG.exception('Could not record the failed create action of %s',
                      instance.uuid)


def _create_tags(cctxt, instance_uuid, tags):
    if not tags:
        return objects.TagList(objects=[])
    names = [t.tag if hasattr(t, 'tag') else t for t in tags]
    return objects.TagList.create(cctxt, instance_uuid, names)


def _create_block_device_mapping(cctxt, instance_uuid, bdms):
    """Copy the build request's BDMs into the cell."""
    created = []
    for bdm in bdms or []:
        bdm = bdm.obj_clone()
        bdm._context = cctxt
        # Each instance of a multi-create gets its own rows.
        bdm.uuid = uuidutils.generate_uuid()
        bdm.instance_uuid = instance_uuid
        if 'id' in bdm.fields and bdm.obj_attr_is_set('id'):
            delattr(bdm, 'id')
        bdm.create()
        created.append(bdm)
    return objects.BlockDeviceMappingList(objects=created)


def _set_instance_error(ctxt, instance, exc):
    instance.vm_state = vm_states.ERROR
    instance.task_state = None
    try:
        instance.save()
    except exception.InstanceNotFound:
        LOG.debug('Instance %s was deleted before it could be put in ERROR',
                  instance.uuid)
        return
    compute_utils.add_instance_fault_from_exc(ctxt, instance, exc)


def _legacy_filter_properties(request_spec, host):
    """The filter_properties dict a compute expects with a build."""
    props = request_spec.to_legacy_filter_properties_dict()
    props['retry'] = {'num_attempts': 1,
                      'hosts': [[host.service_host, host.nodename]]}
    props['limits'] = {}
    return props


# -- the main path ---------------------------------------------------------

def _bury_in_cell0(manager, context, request_spec, exc, build_requests=(),
                   instances=(), tags=None):
    """Create every instance in cell0 in ERROR; map them there."""
    cell0 = objects.CellMapping.get_by_uuid(context,
                                            objects.CellMapping.CELL0_UUID)
    by_uuid = {i.uuid: i for i in instances}
    requests = {br.instance_uuid: br for br in build_requests}
    for uuid, br in requests.items():
        if uuid not in by_uuid:
            by_uuid[uuid] = br.get_new_instance(context)
    for uuid, instance in by_uuid.items():
        try:
            mapping = objects.InstanceMapping.get_by_instance_uuid(context,
                                                                   uuid)
        except exception.InstanceMappingNotFound:
            # The user deleted the server meanwhile: nothing to bury.
            LOG.debug('Instance %s was deleted while scheduling', uuid)
            continue
        with nova_context.target_cell(context, cell0) as cctxt:
            instance._context = cctxt
            instance.vm_state = vm_states.ERROR
            instance.task_state = None
            instance.create()
            _record_failed_create(cctxt, instance, exc, SCHEDULE_EVENT)
            compute_utils.add_instance_fault_from_exc(cctxt, instance, exc)
            try:
                _create_tags(cctxt, uuid, tags)
            except Exception:
                LOG.exception('Could not store the tags of %s in cell0', uuid)
        mapping.cell_mapping = cell0
        try:
            mapping.save()
        except exception.InstanceMappingNotFound:
            # The user's delete took the mapping since we read it: a cell0
            # row left now would be listed but answer 404 to GET/DELETE.
            _drop_from_cell0(context, cell0, instance)
            continue
        br = requests.get(uuid)
        if br is not None:
            try:
                br.destroy()
            except exception.BuildRequestNotFound:
                # Deleted by the user after all: drop the buried record too.
                _drop_from_cell0(context, cell0, instance)
                continue
        LOG.info('Instance %s buried in cell0: %s', uuid, exc)


def _drop_from_cell0(context, cell0, instance):
    LOG.info('Instance %s was deleted while being buried in cell0',
             instance.uuid)
    with nova_context.target_cell(context, cell0) as cctxt:
        instance._context = cctxt
        try:
            instance.destroy()
        except exception.InstanceNotFound:
            pass


def bury_abandoned_build_requests(manager, context, before, exc=None):
    """Every build request created before ``before`` with no cell yet was
    taken by a conductor that died (at a super-conductor's start: RPC
    casts are not redelivered once taken), or its cast never reached one
    (the periodic check, with an older ``before``), so nobody would ever
    finish it and the server would stay BUILD with no fault.  Each goes to
    cell0 in ERROR with a fault saying why (``exc``), its allocation
    freed.  A cast still queued for one of them finds the build request
    gone and only frees the allocation (as for a delete during
    scheduling).  This assumes one super-conductor per deployment, as the
    stack and embedded modes run.
    """
    exc = exc or exception.ConductorStoppedWhileScheduling()
    for br in objects.BuildRequestList.get_all(context):
        if br.created_at is None or \
                br.created_at.replace(tzinfo=None) >= before:
            continue
        try:
            mapping = objects.InstanceMapping.get_by_instance_uuid(
                context, br.instance_uuid)
        except exception.InstanceMappingNotFound:
            continue
        if mapping.cell_mapping is not None:
            continue
        LOG.warning('Build request of %s was left by a stopped conductor',
                    br.instance_uuid)
        try:
            _bury_abandoned(manager, context, br, exc)
        except Exception:
            LOG.exception('Could not bury the build request of %s yet',
                          br.instance_uuid)


def _bury_abandoned(manager, context, br, exc):
    _forget_unmapped_rows(context, br.instance_uuid)
    manager.report_client.delete_allocation_for_instance(
        context, br.instance_uuid)
    spec = objects.RequestSpec.get_by_instance_uuid(context,
                                                    br.instance_uuid)
    _bury_in_cell0(manager, context, spec, exc, build_requests=[br])


def _forget_unmapped_rows(context, instance_uuid):
    """The stopped conductor may have created the instance in its host's
    cell already: with the mapping still unset no compute was asked to
    build it, and the row would list as a BUILD server nobody owns."""
    for cell, cctxt in nova_context.each_cell(context):
        try:
            objects.Instance.get_by_uuid(cctxt, instance_uuid,
                                         expected_attrs=[]).destroy()
        except exception.InstanceNotFound:
            continue
        LOG.info('Dropped the unmapped row of %s from cell %s',
                 instance_uuid, cell.name)


def fail_builds_no_compute_took(manager, context, before, seconds):
    """Servers scheduled before ``before`` that are still scheduling with
    no host: a compute takes a build on (its host recorded) as soon as the
    cast arrives, so theirs never did.  Each goes to ERROR with a fault
    saying so, its allocation freed; a cast arriving after all finds it
    given up."""
    exc = exception.BuildLostOnItsWayToCompute(seconds=seconds)
    for _cell, cctxt in nova_context.each_cell(context):
        for instance in objects.InstanceList.get_by_filters(
                cctxt, {'vm_state': [vm_states.BUILDING],
                        'task_state': [task_states.SCHEDULING]},
                expected_attrs=[]):
            if instance.host or (
                    instance.updated_at or instance.created_at).replace(
                        tzinfo=None) >= before:
                continue
            try:
                _fail_lost_build(manager, cctxt, instance, exc)
            except Exception:
                LOG.exception('Could not fail the lost build of %s yet',
                              instance.uuid)


def _fail_lost_build(manager, context, instance, exc):
    # The fault first, so whoever sees ERROR sees why; should a compute
    # take the build on after all, the guarded save below fails and the
    # fault is never shown (a server shows its fault only in ERROR).
    compute_utils.add_instance_fault_from_exc(context, instance, exc)
    instance.vm_state = vm_states.ERROR
    instance.task_state = None
    try:
        instance.save(expected_vm_state=[vm_states.BUILDING],
                      expected_task_state=[task_states.SCHEDULING])
    except (exception.InstanceNotFound, exception.UnexpectedTaskStateError):
        return  # deleted, or a compute took it on after all
    LOG.warning('Build of %s never reached a compute; failed it',
                instance.uuid)
    manager.report_client.delete_allocation_for_instance(context,
                                                         instance.uuid)


def schedule_and_build_instances(manager, context, build_requests,
                                 request_specs, image, admin_password,
                                 injected_files, requested_networks,
                                 block_device_mapping, tags=None):
    uuids = [spec.instance_uuid for spec in request_specs]
    try:
        scheduler_utils.setup_instance_group(context, request_specs[0])
        host_lists = manager.query_client.select_destinations(
            context, request_specs[0], uuids, return_objects=True,
            return_alternates=True)
    except Exception as exc:
        LOG.warning('Failed to schedule instances %(uuids)s: %(exc)s',
                    {'uuids': uuids, 'exc': exc})
        for br in build_requests:
            _retrying(functools.partial(
                _bury_in_cell0, manager, context, request_specs[0], exc,
                build_requests=[br], tags=tags),
                'burying %s in cell0' % br.instance_uuid)
        return

    cells_by_host = {}
    created = []
    for br, spec, host_list in zip(build_requests, request_specs,
                                   host_lists):
        try:
            placed = _create_in_cell(manager, context, br, spec, host_list,
                                     cells_by_host, tags)
        except Exception as exc:
            # Whatever went wrong, the claim must not outlive the build.
            LOG.exception('Could not create instance %s in its cell',
                          br.instance_uuid)
            _retrying(functools.partial(
                manager.report_client.delete_allocation_for_instance,
                context, br.instance_uuid),
                'removing the allocation of %s' % br.instance_uuid)
            _retrying(functools.partial(
                _bury_in_cell0, manager, context, spec, exc,
                build_requests=[br], tags=tags),
                'burying %s in cell0' % br.instance_uuid)
            continue
        if placed is not None:
            created.append(placed)

    for br, spec, host_list, instance, cell in created:
        bdms = block_device_mapping
        if br.obj_attr_is_set('block_device_mappings') and \
                br.block_device_mappings:
            bdms = br.block_device_mappings
        try:
            _build_in_cell(manager, context, br, spec, host_list, instance,
                           cell, image, admin_password, injected_files,
                           requested_networks, bdms, tags)
        except Exception as exc:
            # Never leave a server in BUILD because of us.
            LOG.exception('Could not hand instance %s to its host',
                          instance.uuid)
            _abandon(manager, context, br, instance, cell, exc)


def _retrying(fn, what, attempts=3):
    """Run a small DB step again after a transient failure."""
    for attempt in range(attempts):
        try:
            return fn()
        except exception.NotFound:
            return None
        except Exception:
            if attempt == attempts - 1:
                LOG.exception('Giving up on %s', what)
                return None
            time.sleep(0.2 * (attempt + 1))


def _abandon(manager, context, br, instance, cell, exc):
    """ERROR with a fault, allocation and build request removed."""
    _retrying(lambda: manager.report_client.delete_allocation_for_instance(
        context, instance.uuid), 'removing the allocation of %s'
        % instance.uuid)

    def set_error():
        with nova_context.target_cell(context, cell) as cctxt:
            instance._context = cctxt
            _set_instance_error(cctxt, instance, exc)

    def remap():
        mapping = objects.InstanceMapping.get_by_instance_uuid(
            context, instance.uuid)
        mapping.cell_mapping = cell
        mapping.save()
        br.destroy()

    _retrying(set_error, 'putting %s in ERROR' % instance.uuid)
    _retrying(remap, 'mapping %s to its cell' % instance.uuid)


def _create_in_cell(manager, context, br, spec, host_list, cells_by_host,
                    tags):
    """Create the instance in its host's cell; None when not to build."""
    instance = br.get_new_instance(context)
    host = host_list[0]
    cell = cells_by_host.get(host.service_host)
    if cell is None:
        try:
            cell = objects.HostMapping.get_by_host(
                context, host.service_host).cell_mapping
        except exception.HostMappingNotFound as exc:
            LOG.error('No host-to-cell mapping found for selected host '
                      '%s. Setup is incomplete.', host.service_host)
            manager.report_client.delete_allocation_for_instance(
                context, instance.uuid)
            _bury_in_cell0(manager, context, spec, exc,
                           build_requests=[br], instances=[instance],
                           tags=tags)
            return None
        cells_by_host[host.service_host] = cell
    try:
        objects.BuildRequest.get_by_instance_uuid(context, instance.uuid)
    except exception.BuildRequestNotFound:
        # The user deleted the server while it was being scheduled.
        LOG.debug('Build request of %s deleted while scheduling',
                  instance.uuid)
        manager.report_client.delete_allocation_for_instance(
            context, instance.uuid)
        return None
    # The server is in its host's zone, asked for or not.
    instance.availability_zone = (
        availability_zones.get_host_availability_zone(
            context, host.service_host))
    with nova_context.target_cell(context, cell) as cctxt:
        instance._context = cctxt
        for attempt in range(3):
            try:
                instance.create()
                break
            except db_exc.DBDuplicateEntry:
                # Concurrent first boots of a project race to create its
                # shared rows (e.g. the "default" security group); the
                # transaction rolled back, the next try finds them.
                if attempt == 2:
                    raise
                time.sleep(0.05 * (attempt + 1))
    return br, spec, host_list, instance, cell


def _build_in_cell(manager, context, br, spec, host_list, instance, cell,
                   image, admin_password, injected_files, requested_networks,
                   block_device_mapping, tags):
    host = host_list[0]
    with nova_context.target_cell(context, cell) as cctxt:
        objects.InstanceAction.action_start(
            cctxt, instance.uuid, instance_actions.CREATE, want_result=False)
        bdms = _create_block_device_mapping(cctxt, instance.uuid,
                                            block_device_mapping)
        instance_tags = _create_tags(cctxt, instance.uuid, tags)
    instance.tags = instance_tags

    try:
        mapping = objects.InstanceMapping.get_by_instance_uuid(
            context, instance.uuid)
        mapping.cell_mapping = cell
        mapping.save()
    except exception.InstanceMappingNotFound:
        mapping = None
    try:
        if mapping is None:
            raise exception.BuildRequestNotFound(uuid=instance.uuid)
        br.destroy()
    except exception.BuildRequestNotFound:
        # Deleted by the user between our check and now: undo it all.
        LOG.info('Build request of %s is gone: the server was deleted; '
                 'cleaning up', instance.uuid)
        with nova_context.target_cell(context, cell) as cctxt:
            instance._context = cctxt
            try:
                instance.destroy()
            except (exception.InstanceNotFound, exception.ObjectActionError):
                pass
            for bdm in bdms:
                try:
                    bdm.destroy()
                except Exception:
                    pass
        manager.report_client.delete_allocation_for_instance(context,
                                                             instance.uuid)
        return

    filter_props = _legacy_filter_properties(spec, host)
    with nova_context.target_cell(context, cell) as cctxt:
        instance._context = cctxt
        manager.compute_rpcapi.build_and_run_instance(
            cctxt, instance=instance, host=host.service_host, image=image,
            request_spec=spec, filter_properties=filter_props,
            admin_password=admin_password, injected_files=injected_files,
            requested_networks=requested_networks,
            security_groups=_legacy_secgroups(spec),
            block_device_mapping=bdms, node=host.nodename, limits=None,
            host_list=host_list)


def _legacy_secgroups(spec):
    groups = scheduler_utils._get(spec, 'security_groups')
    if groups is None:
        return []
    names = []
    for group in groups:
        name = scheduler_utils._get(group, 'name')
        if name:
            names.append(name)
    return names


# -- the reschedule path ---------------------------------------------------

def claim_next_alternate(manager, context, instance, host_list, tried=()):
    """Pop alternates until one can be claimed in Placement.

    The list a compute sends back may still start with itself (the host
    that just failed); hosts already tried are skipped.
    """
    tried = {tuple(h) for h in tried}
    while host_list:
        host = host_list.pop(0)
        if (host.service_host, host.nodename) in tried:
            continue
        alloc = host.allocation_request
        if not alloc:
            continue
        alloc = jsonutils.loads(alloc) if isinstance(alloc, str) else alloc
        if manager.report_client.claim_resources(
                context, instance.uuid, alloc, instance.project_id,
                instance.user_id,
                allocation_request_version=host.allocation_request_version):
            return host
        LOG.debug('Alternate %s could not be claimed for %s',
                  host.service_host, instance.uuid)
    return None


def build_instances(manager, context, instances, image, filter_properties,
                    admin_password, injected_files, requested_networks,
                    security_groups, block_device_mapping=None,
                    legacy_bdm=True, request_spec=None, host_lists=None):
    filter_properties = dict(filter_properties or {})
    host_lists = [list(h) for h in (host_lists or [[] for _ in instances])]
    for instance, host_list in zip(instances, host_lists):
        try:
            retry = scheduler_utils.populate_retry(filter_properties,
                                                   instance.uuid)
            host = claim_next_alternate(manager, context, instance, host_list,
                                   tried=retry.get('hosts', []))
            if host is None:
                raise exception.MaxRetriesExceeded(
                    reason='Exhausted all hosts available for retrying '
                           'build failures for instance %s.' % instance.uuid)
        except Exception as exc:
            # Out of hosts, or Placement failed us: either way the server
            # must not stay in BUILD/scheduling without a fault.
            if isinstance(exc, exception.NoValidHost):
                LOG.warning('Build of instance %s failed: %s',
                            instance.uuid, exc)
            else:
                LOG.exception('Could not reschedule instance %s',
                              instance.uuid)
            try:
                manager.report_client.delete_allocation_for_instance(
                    context, instance.uuid)
            except Exception:
                LOG.exception('Could not remove the allocation of %s',
                              instance.uuid)
            _set_instance_error(context, instance, exc)
            continue

        # A fresh start on the new host.
        instance.task_state = task_states.SCHEDULING
        instance.host = None
        instance.node = None
        try:
            instance.save()
        except exception.InstanceNotFound:
            manager.report_client.delete_allocation_for_instance(
                context, instance.uuid)
            continue
        try:
            bdms = objects.BlockDeviceMappingList.get_by_instance_uuid(
                context, instance.uuid)
        except Exception:
            bdms = block_device_mapping
        props = dict(filter_properties)
        props['retry'] = dict(retry)
        props['retry']['hosts'] = list(retry.get('hosts', [])) + [
            [host.service_host, host.nodename]]
        LOG.info('Rescheduling instance %s to %s', instance.uuid,
                 host.service_host)
        manager.compute_rpcapi.build_and_run_instance(
            context, instance=instance, host=host.service_host, image=image,
            request_spec=request_spec, filter_properties=props,
            admin_password=admin_password, injected_files=injected_files,
            requested_networks=requested_networks,
            security_groups=security_groups, block_device_mapping=bdms,
            node=host.nodename, limits=None, host_list=host_list)
