# Import nova_clone first so that oslo.service's threading backend is chosen
# before any test module imports oslo.messaging (see nova_clone/__init__.py).
import nova_clone  # noqa: F401
