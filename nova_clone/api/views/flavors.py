"""Flavor views at each microversion."""

from nova_clone.api import microversion
from nova_clone.api.views import common


def _links(req, flavor):
    return common.links(req, 'flavors', flavor.flavorid)


def basic(req, flavor, include_description=False):
    view = {'id': flavor.flavorid, 'name': flavor.name,
            'links': _links(req, flavor)}
    if include_description:
        view['description'] = flavor.description
    return view


def show(req, flavor, include_description=False, include_extra_specs=False):
    view = {
        'id': flavor.flavorid,
        'name': flavor.name,
        'ram': flavor.memory_mb,
        'disk': flavor.root_gb,
        'vcpus': flavor.vcpus,
        'links': _links(req, flavor),
        'OS-FLV-EXT-DATA:ephemeral': flavor.ephemeral_gb,
        'os-flavor-access:is_public': flavor.is_public,
    }
    # 2.75 always reports swap as an integer; before, 0 was ''.
    if microversion.is_supported(req, '2.75'):
        view['swap'] = flavor.swap
    else:
        view['swap'] = flavor.swap or ''
    if not microversion.is_supported(req, '2.102'):
        view['OS-FLV-DISABLED:disabled'] = flavor.disabled
        view['rxtx_factor'] = flavor.rxtx_factor
    if include_description:
        view['description'] = flavor.description
    if include_extra_specs:
        view['extra_specs'] = dict(flavor.extra_specs or {})
    return view


def index(req, flavors, include_description=False, limit=None):
    items = [basic(req, f, include_description) for f in flavors]
    return _collection(req, items, limit)


def detail(req, flavors, include_description=False,
           include_extra_specs=False, limit=None):
    items = [show(req, f, include_description, include_extra_specs)
             for f in flavors]
    return _collection(req, items, limit)


def _collection(req, items, limit):
    body = {'flavors': items}
    nxt = common.next_link(req, 'flavors', items, limit)
    if nxt:
        body['flavors_links'] = nxt
    return body
