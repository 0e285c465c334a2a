"""The request body limit: oslo.middleware's RequestBodySizeLimiter
(``[oslo_middleware] max_request_body_size``, 112 KiB by default), its
413 answered with Nova's ``overLimit`` fault body.

A body announced larger than the limit is refused before a byte of it is
read; a chunked one is cut off once the limit is passed while reading.
"""

from oslo_middleware import sizelimit
import webob
import webob.exc

from nova_clone.api import faults


class RequestBodySizeLimiter(sizelimit.RequestBodySizeLimiter):

    def __call__(self, environ, start_response):
        req = webob.Request(environ)
        try:
            # Called with a request, oslo's wsgify'd method raises its
            # 413 instead of rendering webob's own error page.
            resp = super().__call__(req)
        except webob.exc.HTTPRequestEntityTooLarge:
            resp = faults.fault_response(
                413, 'Request is too large. Larger than '
                     'max_request_body_size (%d).'
                     % self._conf_get('max_request_body_size'))
        return resp(environ, start_response)
