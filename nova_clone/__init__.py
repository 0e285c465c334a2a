"""nova-clone: a reimplementation of the OpenStack Nova compute control plane.

Every service runs natively threaded.  oslo.messaging imports oslo.service,
whose default backend is eventlet; selecting the threading backend before
anything else imports it keeps eventlet's hub (and its monkey-patching) out
of our processes.  The eventlet package may still be imported by libraries
that probe for it (futurist does), but it is never activated.
"""

import warnings

with warnings.catch_warnings():
    # futurist probes for eventlet and eventlet warns on import; the warning
    # says nothing about this process, which never uses it.
    warnings.simplefilter('ignore')
    from oslo_service import backend as _service_backend
    from oslo_service.backend import exceptions as _backend_exceptions
    import futurist  # noqa: F401

try:
    _service_backend.init_backend(_service_backend.BackendType.THREADING)
except _backend_exceptions.BackendAlreadySelected:
    pass
