"""Whether a service is alive, decided from its heartbeats."""

from nova_clone.servicegroup.api import API  # noqa: F401
