"""A RequestSpec as a Placement query, and small scheduling helpers."""

import math
from urllib import parse

import os_resource_classes as orc
from oslo_log import log as logging

from nova_clone.conf import CONF

LOG = logging.getLogger(__name__)

TRAIT_REQUIRED = 'required'
TRAIT_FORBIDDEN = 'forbidden'


def _get(obj, name, default=None):
    """Attribute of a versioned object (unset → default) or a dict key."""
    if obj is None:
        return default
    if isinstance(obj, dict):
        return obj.get(name, default)
    try:
        if hasattr(obj, 'obj_attr_is_set') and not obj.obj_attr_is_set(name):
            return default
        return getattr(obj, name, default)
    except NotImplementedError:
        return default


def flavor_resources(flavor, is_bfv=False):
    """The standard resource amounts one instance of ``flavor`` uses."""
    disk = (_get(flavor, 'ephemeral_gb', 0) or 0)
    if not is_bfv:
        disk += _get(flavor, 'root_gb', 0) or 0
    swap_mb = _get(flavor, 'swap', 0) or 0
    disk += int(math.ceil(swap_mb / 1024.0))
    resources = {
        orc.VCPU: _get(flavor, 'vcpus', 0) or 0,
        orc.MEMORY_MB: _get(flavor, 'memory_mb', 0) or 0,
        orc.DISK_GB: disk,
    }
    # Flavor extra specs resources:RC=N replace or add amounts.
    for key, value in (_get(flavor, 'extra_specs', {}) or {}).items():
        if key.startswith('resources:'):
            rc = key.split(':', 1)[1]
            try:
                resources[rc] = int(value)
            except ValueError:
                LOG.warning('Ignoring extra spec %s=%s: not an integer',
                            key, value)
    return {rc: amount for rc, amount in resources.items() if amount}


def traits_from(flavor, image_props=None):
    """(required, forbidden) trait sets from flavor extra specs and image."""
    required, forbidden = set(), set()
    sources = [(_get(flavor, 'extra_specs', {}) or {})]
    if image_props:
        sources.append(image_props)
    for specs in sources:
        for key, value in specs.items():
            if not key.startswith('trait:'):
                continue
            trait = key.split(':', 1)[1]
            if value == TRAIT_REQUIRED:
                required.add(trait)
            elif value == TRAIT_FORBIDDEN:
                forbidden.add(trait)
    return required, forbidden


class ResourceRequest:
    """One unnamed request group: resources, traits, aggregates, limit."""

    def __init__(self, resources=None, required_traits=None,
                 forbidden_traits=None, member_of=None, limit=None,
                 in_tree=None):
        self.resources = dict(resources or {})
        self.required_traits = set(required_traits or ())
        self.forbidden_traits = set(forbidden_traits or ())
        # Each entry is a list of aggregate uuids, any of which will do.
        self.member_of = list(member_of or [])
        # Aggregates none of whose providers will do.
        self.forbidden_aggregates = set()
        self.limit = limit
        self.in_tree = in_tree

    @classmethod
    def from_request_spec(cls, request_spec, enable_pinning_translate=True):
        flavor = _get(request_spec, 'flavor')
        is_bfv = bool(_get(request_spec, 'is_bfv', False))
        image = _get(request_spec, 'image')
        props = _get(image, 'properties')
        image_props = {}
        if props is not None:
            if isinstance(props, dict):
                image_props = props
            elif hasattr(props, 'obj_fields'):
                image_props = {f: getattr(props, f) for f in props.obj_fields
                               if props.obj_attr_is_set(f)}
        required, forbidden = traits_from(flavor, image_props)
        return cls(resources=flavor_resources(flavor, is_bfv),
                   required_traits=required, forbidden_traits=forbidden,
                   limit=CONF.scheduler.max_placement_results)

    def get_request_group(self):
        return self

    def to_querystring(self):
        params = []
        if self.resources:
            params.append(('resources', ','.join(
                '%s:%d' % (rc, amount)
                for rc, amount in sorted(self.resources.items()))))
        traits = sorted(self.required_traits) + sorted(
            '!' + t for t in self.forbidden_traits)
        if traits:
            params.append(('required', ','.join(traits)))
        for aggs in self.member_of:
            params.append(('member_of', 'in:' + ','.join(sorted(aggs))))
        if self.forbidden_aggregates:
            params.append(('member_of', '!in:' + ','.join(
                sorted(self.forbidden_aggregates))))
        if self.in_tree:
            params.append(('in_tree', self.in_tree))
        if self.limit is not None:
            params.append(('limit', str(self.limit)))
        return parse.urlencode(params, safe=',:!')


def resources_from_request_spec(request_spec):
    return ResourceRequest.from_request_spec(request_spec)


def build_request_spec_dict(image, instances, flavor):
    """The legacy dict some RPC paths still pass around."""
    first = instances[0] if instances else None
    return {'image': image or {},
            'instance_properties': first,
            'instance_type': flavor,
            'num_instances': len(instances)}


def populate_retry(filter_properties, instance_uuid):
    """Count build attempts; raise MaxRetriesExceeded when spent."""
    from nova_clone import exception
    max_attempts = CONF.scheduler.max_attempts
    retry = filter_properties.setdefault('retry', {'num_attempts': 0,
                                                   'hosts': []})
    retry['num_attempts'] += 1
    if retry['num_attempts'] > max_attempts:
        raise exception.MaxRetriesExceeded(
            reason='Exhausted all hosts available for retrying build '
                   'failures for instance '
                   '%s.' % instance_uuid)
    return retry


def setup_instance_group(context, request_spec):
    """Fill the request's server group with where its members run now
    (one host per placed member), read fresh: the copy stored with the
    request spec knows neither."""
    group = _get(request_spec, 'instance_group')
    if group is None:
        return
    from nova_clone import objects
    current = objects.InstanceGroup.get_by_uuid(context, group.uuid)
    group.members = current.members
    group.hosts = current.get_hosts()
def request_is_rebuild(spec_obj):
    """The request checks a rebuild's new image on the instance's host."""
    hints = _get(spec_obj, 'scheduler_hints') or {}
    return 'rebuild' in (hints.get('_nova_check_type') or [])
