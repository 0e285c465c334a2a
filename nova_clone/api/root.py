"""The pecan root controller: hands every request to the route table."""

import pecan
import pecan.core

from nova_clone.api import router


class RootController(object):
    """Pecan's object dispatch stops here; the explicit table takes over."""

    def __init__(self, route_table):
        self._router = route_table

    @pecan.expose()
    def _route(self, args, request):
        return self.dispatch, []

    @pecan.expose()
    def dispatch(self):
        # The real request object, not pecan's thread-local proxy.
        return router.dispatch(self._router, pecan.core.state.request)
