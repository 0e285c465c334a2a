"""A local, thread-safe picture of the resource providers of one compute.

The resource tracker hands a copy to the virt driver
(``driver.update_provider_tree(tree, nodename)``), which edits inventory,
traits and aggregates in place; the report client then pushes only what
differs from the cached copy to Placement.
"""

import collections
import copy
import threading

from oslo_utils import uuidutils

ProviderData = collections.namedtuple(
    'ProviderData', ['uuid', 'name', 'generation', 'parent_uuid',
                     'inventory', 'traits', 'aggregates', 'resources'])

# Inventory keys compared when deciding whether Placement must be updated.
_INV_KEYS = ('total', 'reserved', 'min_unit', 'max_unit', 'step_size',
             'allocation_ratio')
_INV_DEFAULTS = {'reserved': 0, 'min_unit': 1, 'step_size': 1,
                 'allocation_ratio': 1.0}


def _normalize_inventory(inventory):
    out = {}
    for rc, inv in (inventory or {}).items():
        full = dict(_INV_DEFAULTS)
        full.update({k: v for k, v in inv.items() if k in _INV_KEYS})
        full.setdefault('max_unit', full.get('total'))
        out[rc] = full
    return out


class _Provider:
    def __init__(self, name, uuid, generation=None, parent_uuid=None):
        self.name = name
        self.uuid = uuid
        self.generation = generation
        self.parent_uuid = parent_uuid
        self.children = {}
        self.inventory = {}
        self.traits = set()
        self.aggregates = set()
        self.resources = {}

    def data(self):
        return ProviderData(self.uuid, self.name, self.generation,
                            self.parent_uuid, copy.deepcopy(self.inventory),
                            set(self.traits), set(self.aggregates),
                            copy.deepcopy(self.resources))

    def find(self, name_or_uuid):
        if name_or_uuid in (self.name, self.uuid):
            return self
        for child in self.children.values():
            found = child.find(name_or_uuid)
            if found is not None:
                return found
        return None

    def walk(self):
        yield self
        for child in self.children.values():
            yield from child.walk()


class ProviderTree:
    """Roots (compute nodes, sharing providers) and their child providers."""

    def __init__(self):
        self.lock = threading.RLock()
        self.roots_by_uuid = {}

    # -- lookup ------------------------------------------------------------
    def _find(self, name_or_uuid):
        for root in self.roots_by_uuid.values():
            found = root.find(name_or_uuid)
            if found is not None:
                return found
        return None

    def _get(self, name_or_uuid):
        provider = self._find(name_or_uuid)
        if provider is None:
            raise ValueError('No such provider %s' % name_or_uuid)
        return provider

    def exists(self, name_or_uuid):
        with self.lock:
            return self._find(name_or_uuid) is not None

    def data(self, name_or_uuid):
        with self.lock:
            return self._get(name_or_uuid).data()

    @property
    def roots(self):
        with self.lock:
            return [r.data() for r in self.roots_by_uuid.values()]

    def get_provider_uuids(self, name_or_uuid=None):
        """Uuids of the subtree at ``name_or_uuid`` (all trees if None),
        parents before children."""
        with self.lock:
            if name_or_uuid is None:
                starts = list(self.roots_by_uuid.values())
            else:
                starts = [self._get(name_or_uuid)]
            return [p.uuid for s in starts for p in s.walk()]

    def get_provider_uuids_in_tree(self, name_or_uuid):
        with self.lock:
            provider = self._get(name_or_uuid)
            while provider.parent_uuid is not None:
                provider = self._get(provider.parent_uuid)
            return [p.uuid for p in provider.walk()]

    # -- structure ---------------------------------------------------------
    def new_root(self, name, uuid, generation=None):
        with self.lock:
            if self._find(uuid) is not None:
                raise ValueError('Provider %s already exists' % uuid)
            self.roots_by_uuid[uuid] = _Provider(name, uuid, generation)
            return uuid

    def new_child(self, name, parent, uuid=None, generation=None):
        with self.lock:
            parent_node = self._get(parent)
            uuid = uuid or uuidutils.generate_uuid()
            if self._find(uuid) is not None or self._find(name) is not None:
                raise ValueError('Provider %s already exists' % name)
            parent_node.children[uuid] = _Provider(
                name, uuid, generation, parent_node.uuid)
            return uuid

    def remove(self, name_or_uuid):
        with self.lock:
            provider = self._get(name_or_uuid)
            if provider.parent_uuid is None:
                del self.roots_by_uuid[provider.uuid]
            else:
                del self._get(provider.parent_uuid).children[provider.uuid]

    def populate_from_iterable(self, provider_dicts):
        """Add or refresh providers from Placement's JSON (parents first)."""
        with self.lock:
            pending = list(provider_dicts)
            while pending:
                progressed = False
                for pd in list(pending):
                    parent = pd.get('parent_provider_uuid')
                    existing = self._find(pd['uuid'])
                    if existing is not None:
                        existing.generation = pd.get('generation')
                        existing.name = pd.get('name', existing.name)
                    elif parent is None:
                        self.new_root(pd['name'], pd['uuid'],
                                      pd.get('generation'))
                    elif self._find(parent) is not None:
                        self.new_child(pd['name'], parent, pd['uuid'],
                                       pd.get('generation'))
                    else:
                        continue
                    pending.remove(pd)
                    progressed = True
                if not progressed:
                    raise ValueError('Providers without a known parent: %s'
                                     % [p['uuid'] for p in pending])

    # -- inventory, traits, aggregates --------------------------------------
    def has_inventory_changed(self, name_or_uuid, inventory):
        with self.lock:
            return (_normalize_inventory(self._get(name_or_uuid).inventory) !=
                    _normalize_inventory(inventory))

    def update_inventory(self, name_or_uuid, inventory, generation=None):
        with self.lock:
            provider = self._get(name_or_uuid)
            if generation is not None:
                provider.generation = generation
            changed = (_normalize_inventory(provider.inventory) !=
                       _normalize_inventory(inventory))
            provider.inventory = copy.deepcopy(inventory)
            return changed

    def update_resources(self, name_or_uuid, resources):
        with self.lock:
            self._get(name_or_uuid).resources = copy.deepcopy(resources)

    def has_traits(self, name_or_uuid, traits):
        with self.lock:
            return set(traits) <= self._get(name_or_uuid).traits

    def have_traits_changed(self, name_or_uuid, traits):
        with self.lock:
            return set(traits) != self._get(name_or_uuid).traits

    def update_traits(self, name_or_uuid, traits, generation=None):
        with self.lock:
            provider = self._get(name_or_uuid)
            if generation is not None:
                provider.generation = generation
            provider.traits = set(traits)

    def add_traits(self, name_or_uuid, *traits):
        with self.lock:
            self._get(name_or_uuid).traits |= set(traits)

    def remove_traits(self, name_or_uuid, *traits):
        with self.lock:
            self._get(name_or_uuid).traits -= set(traits)

    def have_aggregates_changed(self, name_or_uuid, aggregates):
        with self.lock:
            return set(aggregates) != self._get(name_or_uuid).aggregates

    def update_aggregates(self, name_or_uuid, aggregates, generation=None):
        with self.lock:
            provider = self._get(name_or_uuid)
            if generation is not None:
                provider.generation = generation
            provider.aggregates = set(aggregates)

    def add_aggregates(self, name_or_uuid, *aggregates):
        with self.lock:
            self._get(name_or_uuid).aggregates |= set(aggregates)

    def remove_aggregates(self, name_or_uuid, *aggregates):
        with self.lock:
            self._get(name_or_uuid).aggregates -= set(aggregates)

    def set_generation(self, name_or_uuid, generation):
        with self.lock:
            self._get(name_or_uuid).generation = generation

    def copy(self):
        with self.lock:
            return copy.deepcopy(self)

    def __deepcopy__(self, memo):
        new = ProviderTree()
        with self.lock:
            new.roots_by_uuid = copy.deepcopy(self.roots_by_uuid, memo)
        return new
