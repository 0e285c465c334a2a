"""POST /os-server-external-events: Neutron, Cinder, Ironic and Cyborg
tell nova about their side of a server (200, or 207 with per-event
codes when some events could not be delivered)."""

from oslo_log import log as logging
import webob.exc

from nova_clone.api import auth
from nova_clone.api.controllers import servers
from nova_clone.api import resource
from nova_clone.api.schemas import server_external_events as schema
from nova_clone.api import validation
from nova_clone import context as nova_context
from nova_clone.policies import admin as admin_policies

LOG = logging.getLogger(__name__)

# Events whose tag names the thing they are about.
_TAG_REQUIRED = ('volume-extended', 'power-update',
                 'accelerator-request-bound', 'volume-reimaged')
_POWER_TAGS = ('POWER_ON', 'POWER_OFF')


def _instances_by_uuid(context, uuids):
    """({uuid: Instance}, {uuid: InstanceMapping}) for the instances that
    are in a cell; one query per cell.  Mapped but unscheduled instances
    map to None."""
    from nova_clone import objects
    found = {}
    mappings = objects.InstanceMappingList.get_by_instance_uuids(
        context, list(uuids))
    by_cell = {}
    for mapping in mappings:
        if mapping.cell_mapping is None:
            found[mapping.instance_uuid] = None
            continue
        cell = mapping.cell_mapping
        by_cell.setdefault(cell.uuid, (cell, []))[1].append(
            mapping.instance_uuid)
    for cell, cell_uuids in by_cell.values():
        with nova_context.target_cell(context, cell) as cctxt:
            # The compute reads the info cache (network-vif-deleted);
            # loading it here saves a lazy load through the conductor that
            # fails once the instance is gone.
            for instance in objects.InstanceList.get_by_uuids(
                    cctxt, cell_uuids, expected_attrs=['info_cache']):
                found[instance.uuid] = instance
    return found, {m.instance_uuid: m for m in mappings}


class ServerExternalEventsController(object):

    @validation.schema(schema.create_v293, '2.93')
    @validation.schema(schema.create_v282, '2.82', '2.92')
    @validation.schema(schema.create_v276, '2.76', '2.81')
    @validation.schema(schema.create_v251, '2.51', '2.75')
    @validation.schema(schema.create, '2.1', '2.50')
    def create(self, req, body):
        context = auth.get_context(req)
        context.can(admin_policies.EXTERNAL_EVENTS, target={})
        admin = context.elevated()
        uuids = {e['server_uuid'] for e in body['events']}
        instances, mappings = _instances_by_uuid(admin, uuids)
        response_events = []
        accepted_events = []
        accepted_instances = {}
        result = 200
        for given in body['events']:
            event = dict(given)
            event.setdefault('status', 'completed')
            response_events.append(event)
            uuid = event['server_uuid']
            name = event['name']
            tag = event.get('tag')
            if name in _TAG_REQUIRED and tag is None or (
                    name == 'power-update' and tag not in _POWER_TAGS):
                event['status'] = 'failed'
                event['code'] = 400
                result = 207
                LOG.info('Event %s for %s lacks a valid tag', name, uuid)
                continue
            instance = instances.get(uuid, False)
            if instance is False:
                event['status'] = 'failed'
                event['code'] = 404
                result = 207
                continue
            if instance is None or not getattr(instance, 'host', None):
                # Not on a host yet: nothing could receive it.
                event['status'] = 'failed'
                event['code'] = 422
                result = 207
                LOG.debug('Unable to deliver %s to %s: no host yet',
                          name, uuid)
                continue
            event['code'] = 200
            accepted_instances[uuid] = instance
            accepted_events.append({
                'server_uuid': uuid, 'instance_uuid': uuid, 'name': name,
                'status': event['status'], 'tag': tag})
        if not accepted_events:
            raise webob.exc.HTTPNotFound(
                explanation='No instances found for any event')
        # The mappings just read route the events to their cells.
        servers.compute_api().external_instance_event(
            admin, list(accepted_instances.values()), accepted_events,
            mappings=mappings)
        return resource.ResponseObject({'events': response_events},
                                       code=result)
