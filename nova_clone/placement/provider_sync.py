"""Keeping Placement's resource providers in step with a compute's tree.

Mixed into SchedulerReportClient; uses its get/put/post/delete helpers and
its cached ``_provider_tree``.  Only what changed since the cached copy is
written, so the periodic resource update costs no HTTP call when nothing
moved.
"""

import time

import os_traits
from oslo_log import log as logging

from nova_clone.conf import CONF
from nova_clone import exception

LOG = logging.getLogger(__name__)

_CONCURRENT_UPDATE = 'placement.concurrent_update'


def _error_code(resp):
    try:
        errors = resp.json().get('errors', [])
    except ValueError:
        return None
    return errors[0].get('code') if errors else None


class ProviderSyncMixin:

    # -- reading providers ---------------------------------------------------
    def _get_resource_provider(self, context, uuid):
        resp = self.get('/resource_providers/%s' % uuid, version='1.14',
                        context=context)
        if resp.status_code == 200:
            return resp.json()
        if resp.status_code == 404:
            return None
        raise exception.ResourceProviderRetrievalFailed(uuid=uuid)

    def get_providers_in_tree(self, context, uuid):
        """Placement's dicts of every provider in the tree of ``uuid``."""
        resp = self.get('/resource_providers?in_tree=%s' % uuid,
                        version='1.14', context=context)
        if resp.status_code == 200:
            return resp.json()['resource_providers']
        raise exception.ResourceProviderRetrievalFailed(uuid=uuid)

    def get_provider_tree_uuids(self, context, uuid):
        return [rp['uuid'] for rp in self.get_providers_in_tree(context,
                                                                  uuid)]

    def _create_resource_provider(self, context, uuid, name,
                                  parent_provider_uuid=None):
        body = {'uuid': uuid, 'name': name}
        if parent_provider_uuid:
            body['parent_provider_uuid'] = parent_provider_uuid
        resp = self.post('/resource_providers', body, version='1.20',
                         context=context)
        if resp.status_code == 200:
            LOG.info('Created resource provider record via placement API '
                     'for resource provider with UUID %(uuid)s and name '
                     '%(name)s.', {'uuid': uuid, 'name': name})
            return resp.json()
        if resp.status_code == 409:
            # Someone (another thread, a restart) created it first.
            existing = self._get_resource_provider(context, uuid)
            if existing is not None:
                return existing
        LOG.error('Failed to create resource provider %(name)s: %(code)s '
                  '%(text)s', {'name': name, 'code': resp.status_code,
                               'text': resp.text})
        raise exception.ResourceProviderCreationFailed(name=name)

    def _refresh_tree(self, context, uuid):
        providers = self.get_providers_in_tree(context, uuid)
        self._provider_tree.populate_from_iterable(providers)
        for rp in providers:
            self._refresh_associations(context, rp['uuid'])
        return providers

    def _refresh_associations(self, context, rp_uuid):
        inv = self.get('/resource_providers/%s/inventories' % rp_uuid,
                       context=context)
        if inv.status_code == 200:
            body = inv.json()
            self._provider_tree.update_inventory(
                rp_uuid, body['inventories'],
                generation=body['resource_provider_generation'])
        traits = self.get('/resource_providers/%s/traits' % rp_uuid,
                          version='1.6', context=context)
        if traits.status_code == 200:
            body = traits.json()
            self._provider_tree.update_traits(
                rp_uuid, body['traits'],
                generation=body['resource_provider_generation'])
        aggs = self.get('/resource_providers/%s/aggregates' % rp_uuid,
                        version='1.19', context=context)
        if aggs.status_code == 200:
            body = aggs.json()
            self._provider_tree.update_aggregates(
                rp_uuid, body['aggregates'],
                generation=body['resource_provider_generation'])
        self._association_refresh_time[rp_uuid] = time.monotonic()

    def _ensure_resource_provider(self, context, uuid, name=None,
                                  parent_provider_uuid=None):
        """Make sure the provider exists in Placement and in the cache."""
        if self._provider_tree.exists(uuid):
            refreshed = self._association_refresh_time.get(uuid, 0)
            interval = CONF.compute.resource_provider_association_refresh
            if not interval or time.monotonic() - refreshed < interval:
                return uuid
        rp = self._get_resource_provider(context, uuid)
        if rp is None:
            self._create_resource_provider(context, uuid, name or uuid,
                                           parent_provider_uuid)
        self._refresh_tree(context, uuid)
        return uuid

    def get_provider_tree_and_ensure_root(self, context, rp_uuid, name=None,
                                          parent_provider_uuid=None):
        """A copy of the cached tree, with the root created if missing."""
        self._ensure_resource_provider(context, rp_uuid, name,
                                       parent_provider_uuid)
        return self._provider_tree.copy()

    # -- writing inventory, traits, aggregates ----------------------------
    def set_inventory_for_provider(self, context, rp_uuid, inv_data):
        """Replace a provider's inventory; no call when unchanged."""
        if not self._provider_tree.has_inventory_changed(rp_uuid, inv_data):
            return
        url = '/resource_providers/%s/inventories' % rp_uuid
        for attempt in range(4):
            generation = self._provider_tree.data(rp_uuid).generation
            body = {'resource_provider_generation': generation,
                    'inventories': inv_data}
            resp = self.put(url, body, version='1.26', context=context)
            if resp.status_code == 200:
                new = resp.json()
                self._provider_tree.update_inventory(
                    rp_uuid, new['inventories'],
                    generation=new['resource_provider_generation'])
                return
            if (resp.status_code == 409 and
                    _error_code(resp) == _CONCURRENT_UPDATE):
                self._refresh_associations(context, rp_uuid)
                continue
            if resp.status_code == 409:
                # e.g. placement.inventory.inuse: shrinking below usage.
                raise exception.ResourceProviderUpdateFailed(
                    url=url, error=resp.text)
            raise exception.ResourceProviderInventoryUpdateFailed(
                uuid=rp_uuid, error=resp.text)
        raise exception.ResourceProviderUpdateConflict(
            uuid=rp_uuid, generation=generation or 0, error=resp.text)

    def _ensure_traits(self, context, traits):
        """Create the CUSTOM_ traits Placement does not know yet."""
        custom = [t for t in traits if t.startswith('CUSTOM_')]
        for name in custom:
            resp = self.put('/traits/%s' % name, None, version='1.6',
                            context=context)
            if resp.status_code not in (201, 204):
                raise exception.TraitCreationFailed(name=name,
                                                    error=resp.text)

    def set_traits_for_provider(self, context, rp_uuid, traits):
        if not self._provider_tree.have_traits_changed(rp_uuid, traits):
            return
        self._ensure_traits(context, traits)
        url = '/resource_providers/%s/traits' % rp_uuid
        for attempt in range(4):
            generation = self._provider_tree.data(rp_uuid).generation
            body = {'resource_provider_generation': generation,
                    'traits': sorted(traits)}
            resp = self.put(url, body, version='1.6', context=context)
            if resp.status_code == 200:
                new = resp.json()
                self._provider_tree.update_traits(
                    rp_uuid, new['traits'],
                    generation=new['resource_provider_generation'])
                return
            if (resp.status_code == 409 and
                    _error_code(resp) == _CONCURRENT_UPDATE):
                self._refresh_associations(context, rp_uuid)
                continue
            raise exception.ResourceProviderUpdateFailed(url=url,
                                                         error=resp.text)
        raise exception.ResourceProviderUpdateConflict(
            uuid=rp_uuid, generation=generation or 0, error=resp.text)

    def set_aggregates_for_provider(self, context, rp_uuid, aggregates,
                                    generation=None):
        if not self._provider_tree.have_aggregates_changed(rp_uuid,
                                                           aggregates):
            return
        url = '/resource_providers/%s/aggregates' % rp_uuid
        if generation is None:
            generation = self._provider_tree.data(rp_uuid).generation
        body = {'aggregates': sorted(aggregates),
                'resource_provider_generation': generation}
        resp = self.put(url, body, version='1.19', context=context)
        if resp.status_code == 200:
            new = resp.json()
            self._provider_tree.update_aggregates(
                rp_uuid, new['aggregates'],
                generation=new['resource_provider_generation'])
            return
        if resp.status_code == 409 and _error_code(resp) == _CONCURRENT_UPDATE:
            self._refresh_associations(context, rp_uuid)
            raise exception.ResourceProviderUpdateConflict(
                uuid=rp_uuid, generation=generation or 0, error=resp.text)
        raise exception.ResourceProviderUpdateFailed(url=url, error=resp.text)

    def update_from_provider_tree(self, context, new_tree, allocations=None):
        """Push what differs between ``new_tree`` and the cache."""
        if hasattr(os_traits, 'OWNER_NOVA'):
            for root in new_tree.roots:
                new_tree.add_traits(root.uuid, os_traits.OWNER_NOVA)
        try:
            new_uuids = new_tree.get_provider_uuids()
            # Providers the driver dropped go first, children before parents.
            for uuid in reversed(self._provider_tree.get_provider_uuids()):
                if uuid not in new_uuids:
                    self.delete_resource_provider(context, uuid)
            for uuid in new_uuids:
                pd = new_tree.data(uuid)
                self._ensure_resource_provider(context, pd.uuid, pd.name,
                                               pd.parent_uuid)
            for uuid in new_uuids:
                pd = new_tree.data(uuid)
                self.set_traits_for_provider(context, uuid, pd.traits)
                self.set_aggregates_for_provider(context, uuid,
                                                 pd.aggregates)
                self.set_inventory_for_provider(context, uuid, pd.inventory)
        except (exception.ResourceProviderUpdateConflict,
                exception.ResourceProviderUpdateFailed,
                exception.ResourceProviderInventoryUpdateFailed,
                exception.ResourceProviderCreationFailed,
                exception.TraitCreationFailed) as exc:
            # Forget the cache so the next periodic run starts from truth.
            LOG.warning('Provider sync failed, clearing the cache: %s', exc)
            for root in list(self._provider_tree.roots):
                self._provider_tree.remove(root.uuid)
            self._association_refresh_time.clear()
            raise exception.ResourceProviderSyncFailed() from exc

    def delete_resource_provider(self, context, compute_node_or_uuid,
                                 cascade=False):
        """Delete a provider (and with cascade its allocations first)."""
        uuid = getattr(compute_node_or_uuid, 'uuid', compute_node_or_uuid)
        if cascade:
            try:
                allocs = self.get_allocations_for_resource_provider(context,
                                                                    uuid)
            except exception.ResourceProviderRetrievalFailed:
                allocs = {}
            for consumer in allocs:
                self.delete_allocation_for_instance(context, consumer)
        resp = self.delete('/resource_providers/%s' % uuid, context=context)
        if resp.status_code in (204, 404):
            if self._provider_tree.exists(uuid):
                self._provider_tree.remove(uuid)
            self._association_refresh_time.pop(uuid, None)
            return
        LOG.error('Failed to delete resource provider %(uuid)s: %(code)s '
                  '%(text)s', {'uuid': uuid, 'code': resp.status_code,
                               'text': resp.text})
        raise exception.ResourceProviderDeletionFailed(uuid=uuid)

    def clear_provider_cache(self):
        for root in list(self._provider_tree.roots):
            self._provider_tree.remove(root.uuid)
        self._association_refresh_time.clear()
