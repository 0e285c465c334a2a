"""The Neutron calls of Nova's deprecated network proxies (os-networks,
os-tenant-networks, os-security-groups, os-floating-ips ...).

Each call carries the user's token, so Neutron decides visibility and
ownership; its refusals become the compute API's errors.
"""

import webob.exc

from nova_clone.network import neutron


class Neutron(object):
    """Neutron for one request; ``fail(exc)`` maps its errors."""

    def __init__(self, context):
        self.call = neutron.NeutronCall(context)

    def __call__(self, method, url, not_found=None, **kwargs):
        try:
            return self.call(method, url, **kwargs)
        except neutron.NeutronClientError as exc:
            raise http_error(exc, not_found)


def http_error(exc, not_found=None):
    if exc.status == 404:
        return webob.exc.HTTPNotFound(explanation=not_found or exc.message)
    if exc.kind == 'OverQuota':
        return webob.exc.HTTPForbidden(explanation=exc.message)
    if exc.status in (400, 409):
        return webob.exc.HTTPBadRequest(explanation=exc.message)
    if exc.status == 403:
        return webob.exc.HTTPForbidden(explanation=exc.message)
    return webob.exc.HTTPServiceUnavailable(explanation=exc.message)
