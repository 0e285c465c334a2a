"""Links and paging helpers shared by the views."""

from urllib import parse as urlparse

from nova_clone.conf import CONF


def base_url(req):
    """Application URL, or [api] compute_link_prefix when set.

    Worked out once per request: every server of a list has three links.
    """
    url = req.environ.get('nova.base_url')
    if url is None:
        url = req.environ['nova.base_url'] = _base_url(req)
    return url


def _base_url(req):
    url = req.application_url
    prefix = CONF.api.compute_link_prefix
    if prefix:
        parts = urlparse.urlsplit(url)
        pref = urlparse.urlsplit(prefix)
        url = urlparse.urlunsplit(
            (pref.scheme, pref.netloc,
             pref.path.rstrip('/') + parts.path, '', ''))
    return url.rstrip('/')


def project_prefix(req):
    """'/v2.1' or '/v2.1/<project>' as the request was addressed."""
    return req.environ.get('nova.url_prefix', '/v2.1')


def links(req, collection, identifier):
    """self and bookmark links of one resource."""
    base = base_url(req)
    prefix = project_prefix(req)
    bookmark_prefix = prefix.replace('/v2.1', '', 1)
    return [
        {'rel': 'self',
         'href': '%s%s/%s/%s' % (base, prefix, collection, identifier)},
        {'rel': 'bookmark',
         'href': '%s%s/%s/%s' % (base, bookmark_prefix, collection,
                                 identifier)},
    ]


def next_link(req, collection, items, limit, marker_key='id'):
    """``[{'rel': 'next', 'href': ...}]`` when a page was full."""
    if not limit or len(items) < limit or not items:
        return []
    params = dict(req.GET.items())
    last = items[-1]
    params['marker'] = last[marker_key] if isinstance(last, dict) else last
    params['limit'] = str(limit)
    href = '%s%s/%s?%s' % (base_url(req), project_prefix(req), collection,
                           urlparse.urlencode(params))
    return [{'rel': 'next', 'href': href}]


def isotime(value):
    """Nova's timestamp format: 2012-12-21T10:00:00Z."""
    if value is None:
        return None
    return value.strftime('%Y-%m-%dT%H:%M:%SZ')
