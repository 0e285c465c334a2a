"""``nova-manage placement audit``: find allocations nobody owns.

An allocation is orphaned when its consumer is neither a live instance
nor a migration in any cell.  With ``delete`` the orphan's allocation on
the audited provider is removed.  Return codes as Nova's command:
0 nothing found, 3 orphans found, 4 orphans deleted, 1 error,
127 bad input.
"""

from oslo_log import log as logging
from oslo_utils import uuidutils

from nova_clone import context as nova_context
from nova_clone import exception
from nova_clone import objects

LOG = logging.getLogger(__name__)

OK, ERROR, FOUND, DELETED, BAD_INPUT = 0, 1, 3, 4, 127


def _consumer_known(context, consumer, cells):
    """Whether ``consumer`` is a live instance or a migration."""
    try:
        mapping = objects.InstanceMapping.get_by_instance_uuid(context,
                                                               consumer)
    except exception.InstanceMappingNotFound:
        mapping = None
    if mapping is not None and mapping.cell_mapping is not None:
        with nova_context.target_cell(context, mapping.cell_mapping) as cc:
            try:
                objects.Instance.get_by_uuid(cc, consumer)
                return True
            except exception.InstanceNotFound:
                pass
    for cell in cells:
        with nova_context.target_cell(context, cell) as cc:
            try:
                objects.Migration.get_by_uuid(cc, consumer)
                return True
            except exception.NotFound:
                continue
    return False


def _providers(client, context, provider_uuid):
    if provider_uuid:
        resp = client.get('/resource_providers/%s' % provider_uuid,
                          version='1.14', context=context)
        if resp.status_code != 200:
            raise exception.ResourceProviderNotFound(
                name_or_uuid=provider_uuid)
        return [resp.json()]
    resp = client.get('/resource_providers', version='1.14',
                      context=context)
    if resp.status_code != 200:
        raise exception.ResourceProviderRetrievalFailed(uuid='*')
    return resp.json()['resource_providers']


def audit(context=None, client=None, verbose=False, delete=False,
          provider_uuid=None, out=print):
    """Report (and optionally delete) orphaned allocations."""
    if provider_uuid and not uuidutils.is_uuid_like(provider_uuid):
        out('Invalid resource provider UUID %s' % provider_uuid)
        return BAD_INPUT
    context = context or nova_context.get_admin_context()
    if client is None:
        from nova_clone.placement import client as report
        client = report.SchedulerReportClient()
    cells = [c for c in objects.CellMappingList.get_all(context)
             if not c.is_cell0()]
    found = deleted = 0
    try:
        providers = _providers(client, context, provider_uuid)
        for rp in providers:
            allocations = client.get_allocations_for_resource_provider(
                context, rp['uuid'])
            for consumer, alloc in allocations.items():
                if _consumer_known(context, consumer, cells):
                    if verbose:
                        out('Allocation for consumer %s on provider %s is '
                            'in use' % (consumer, rp['uuid']))
                    continue
                found += 1
                out('Allocations for consumer UUID %s on Resource Provider '
                    '%s can be deleted: %s' % (consumer, rp['uuid'],
                                               alloc.get('resources')))
                if delete:
                    client.remove_provider_tree_from_instance_allocation(
                        context, consumer, rp['uuid'])
                    deleted += 1
                    out('Deleted allocations for consumer UUID %s on '
                        'Resource Provider %s' % (consumer, rp['uuid']))
    except exception.ResourceProviderNotFound as exc:
        out(exc.format_message())
        return BAD_INPUT
    except exception.NovaException as exc:
        out('Placement audit failed: %s' % exc.format_message())
        return ERROR
    if deleted:
        out('Processed %d allocations.' % deleted)
        return DELETED
    if found:
        return FOUND
    if verbose:
        out('No orphaned allocations found.')
    return OK
