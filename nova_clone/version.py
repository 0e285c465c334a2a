"""Release identity reported by services and the version documents."""

RELEASE = "34.0.0"
# The compute API microversion range of Nova 34.0.0.
MIN_API_VERSION = "2.1"
MAX_API_VERSION = "2.104"
# Service version written into the services table (Nova 34 reports 73).
SERVICE_VERSION = 73


def version_string():
    return RELEASE
