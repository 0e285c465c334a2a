"""The compute REST API (pecan) served by nova-api.

Request path, outermost first (built in ``app.make_app``):
request id -> ``faults.FaultWrapper`` -> ``body_limit`` -> auth
(``auth.NoAuthMiddleware`` or keystonemiddleware) ->
``auth.ContextMiddleware`` -> pecan, whose root
(``root.RootController``) hands the request to ``router.dispatch`` and the
explicit table in ``routes``.  ``microversion`` parses the version headers,
``resource`` holds what a controller method declares (status, version
range, server actions), ``validation`` + ``schemas/`` check bodies and
query strings, ``views/`` shape the responses, ``controllers/`` hold one
module per resource.  Policies live in ``nova_clone/policies``.
"""
