"""Keep the fake hypervisors' guests across restarts of the embedded cloud.

A real hypervisor outlives nova-compute: its guests still run when the
service comes back.  The embedded mode's fake hypervisors live in this
process's memory, so ``nova-clone up`` saves their guests to the state
directory when it stops and puts them back before the computes start;
servers that were ACTIVE come back ACTIVE instead of being found gone.
"""

import datetime
import json
import os

from oslo_log import log as logging

LOG = logging.getLogger(__name__)

FILE_NAME = 'fake-guests.json'
_FIELDS = ('uuid', 'name', 'vcpus', 'memory_mb', 'disk_gb', 'state',
           'vifs', 'volumes')


def _path(state_dir):
    return os.path.join(state_dir, FILE_NAME)


def save(state_dir, hosts):
    """Write the guests of the fake hypervisors of ``hosts``."""
    from nova_clone.virt import fake
    data = {}
    for host in hosts:
        hv = fake.get_hypervisor(host)
        with hv.lock:
            guests = list(hv.guests.values())
        data[host] = []
        for guest in guests:
            record = {field: getattr(guest, field, None) for field in _FIELDS}
            created = getattr(guest, 'created_at', None)
            if isinstance(created, datetime.datetime):
                record['created_at'] = created.isoformat()
            data[host].append(record)
    tmp = _path(state_dir) + '.tmp'
    with open(tmp, 'w') as f:
        json.dump(data, f, default=str)
    os.replace(tmp, _path(state_dir))
    LOG.debug('Saved %d fake guests', sum(len(g) for g in data.values()))


def restore(state_dir):
    """Put saved guests back into their fake hypervisors (before start)."""
    from nova_clone.virt import fake
    path = _path(state_dir)
    if not os.path.exists(path):
        return 0
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, ValueError) as exc:
        LOG.warning('Ignoring unreadable %s: %s', path, exc)
        return 0
    count = 0
    for host, records in data.items():
        hv = fake.get_hypervisor(host)
        with hv.lock:
            for record in records:
                guest = fake.FakeGuest(
                    record['uuid'], record.get('name'),
                    record.get('vcpus') or 0, record.get('memory_mb') or 0,
                    record.get('disk_gb') or 0, record.get('state'))
                guest.vifs = record.get('vifs') or []
                guest.volumes = record.get('volumes') or {}
                created = record.get('created_at')
                if created:
                    guest.created_at = datetime.datetime.fromisoformat(
                        created)
                hv.guests[guest.uuid] = guest
                count += 1
    LOG.info('Restored %d guests of the fake hypervisors', count)
    return count
