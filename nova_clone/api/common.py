"""Helpers shared by controllers: paging, sorting, booleans."""

from oslo_utils import strutils
import webob.exc

from nova_clone.conf import CONF


def bad_request(message):
    return webob.exc.HTTPBadRequest(explanation=message)


def not_found(message):
    return webob.exc.HTTPNotFound(explanation=message)


def conflict(message):
    return webob.exc.HTTPConflict(explanation=message)


def forbidden(message):
    return webob.exc.HTTPForbidden(explanation=message)


def last_value(req, name, default=None):
    """The last of a query parameter's values (Nova keeps the last)."""
    values = req.GET.getall(name)
    return values[-1] if values else default


def get_limit_and_marker(req):
    """limit (capped by [api] max_limit) and marker of a list request."""
    limit = last_value(req, 'limit')
    if limit is not None:
        try:
            limit = int(limit)
        except ValueError:
            raise bad_request('limit param must be an integer')
        if limit < 0:
            raise bad_request('limit param must be positive')
    max_limit = CONF.api.max_limit
    limit = min(max_limit, limit) if limit is not None else max_limit
    return limit, last_value(req, 'marker')


def limited(items, req):
    """The page of ``items`` a proxied list asks for (``offset`` and
    ``limit``, as the old nova-network and volume proxies page)."""
    offset = last_value(req, 'offset', 0) or 0
    try:
        offset = int(offset)
    except ValueError:
        raise bad_request('offset param must be an integer')
    if offset < 0:
        raise bad_request('offset param must be positive')
    limit, _marker = get_limit_and_marker(req)
    return items[offset:offset + limit]


def get_sort_params(req, default_key='created_at', default_dir='desc'):
    keys = req.GET.getall('sort_key')
    dirs = req.GET.getall('sort_dir')
    if not keys and default_key:
        keys = [default_key]
    if not dirs and default_dir:
        dirs = [default_dir]
    return keys, dirs


def parse_bool(value, name='value'):
    try:
        return strutils.bool_from_string(value, strict=True)
    except ValueError:
        raise bad_request('Invalid value %s for %s' % (value, name))
