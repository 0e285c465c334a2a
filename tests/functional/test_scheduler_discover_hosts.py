"""The scheduler maps new computes itself when
[scheduler] discover_hosts_in_cells_interval is set.

A compute started after the scheduler, with no discover_hosts run by
anyone, must get its host mapping from the scheduler's periodic task and
then take servers booted through the REST API.
"""

import time

from nova_clone import context as nova_context
from nova_clone import exception
from nova_clone import objects
# Imported before any cloud configures the interval, as in a process that
# loaded the scheduler code early: the interval must still apply.
from nova_clone.scheduler import manager  # noqa: F401

LATE_HOST = 'compute-late'
DISCOVERY = {
    # Periodic tasks start at once instead of after up to a minute.
    'DEFAULT': {'periodic_fuzzy_delay': 0},
    'scheduler': {'discover_hosts_in_cells_interval': 1},
}


def _host_mapping(host):
    try:
        return objects.HostMapping.get_by_host(
            nova_context.get_admin_context(), host)
    except exception.HostMappingNotFound:
        return None


def _wait_for_mapping(host, timeout=15):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        mapping = _host_mapping(host)
        if mapping is not None:
            return mapping
        time.sleep(0.1)
    raise AssertionError('%s got no host mapping within %ss' % (host,
                                                                 timeout))


def test_periodic_discovery_maps_a_late_compute(cloud_factory):
    cloud = cloud_factory(conf_overrides=DISCOVERY)
    api = cloud.admin_api
    assert _host_mapping(LATE_HOST) is None
    # discover=False: nobody runs discover_hosts for this one.
    cloud.cloud.start_compute(LATE_HOST, discover=False)
    try:
        mapping = _wait_for_mapping(LATE_HOST)
        assert mapping.cell_mapping.name == 'cell1'

        # The new host is usable: a server forced onto it goes ACTIVE.
        server = api.create_server(availability_zone='nova:%s' % LATE_HOST)
        assert server['OS-EXT-SRV-ATTR:host'] == LATE_HOST
        api.delete_server_and_wait(server['id'])
    finally:
        cloud.stop_compute(LATE_HOST)
