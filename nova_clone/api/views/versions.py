"""Version documents of / , /v2 and /v2.1."""

from nova_clone.api.views import common
from nova_clone import version

VERSIONS = {
    'v2.0': {
        'id': 'v2.0',
        'status': 'DEPRECATED',
        'version': '',
        'min_version': '',
        'updated': '2025-07-04T12:00:00Z',
        'path': 'v2',
        'media_version': '2',
    },
    'v2.1': {
        'id': 'v2.1',
        'status': 'CURRENT',
        'version': version.MAX_API_VERSION,
        'min_version': version.MIN_API_VERSION,
        'updated': '2013-07-23T11:33:21Z',
        'path': 'v2.1',
        'media_version': '2.1',
    },
}

_PUBLIC = ('id', 'status', 'version', 'min_version', 'updated')


def _href(req, info):
    return '%s/%s/' % (common.base_url(req), info['path'])


def version_list(req):
    out = []
    for key in ('v2.0', 'v2.1'):
        info = VERSIONS[key]
        doc = {k: info[k] for k in _PUBLIC}
        doc['links'] = [{'rel': 'self', 'href': _href(req, info)}]
        out.append(doc)
    return {'versions': out}


def version_show(req, key):
    info = VERSIONS[key]
    doc = {k: info[k] for k in _PUBLIC}
    doc['links'] = [
        {'rel': 'self', 'href': _href(req, info)},
        {'rel': 'describedby', 'type': 'text/html',
         'href': 'http://docs.openstack.org/'},
    ]
    doc['media-types'] = [{
        'base': 'application/json',
        'type': 'application/vnd.openstack.compute+json;version=%s'
                % info['media_version'],
    }]
    return {'version': doc}
