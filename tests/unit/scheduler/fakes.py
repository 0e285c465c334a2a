"""Fakes for scheduler unit tests: host states and a tiny Placement."""

import threading
import time
import uuid

from oslo_utils import timeutils

from nova_clone.scheduler import host_manager


def host_state(host, ram=16384, vcpus=16, disk_gb=100, cell='cell1',
               zones=None, up=True, disabled=False, **attrs):
    hs = host_manager.HostState(host, host, cell)
    hs.uuid = str(uuid.uuid5(uuid.NAMESPACE_DNS, host))
    hs.service = {'host': host, 'disabled': disabled, 'forced_down': False,
                  'last_seen_up': timeutils.utcnow() if up else
                  timeutils.utcnow().replace(year=2000)}
    hs.free_ram_mb = hs.total_usable_ram_mb = ram
    hs.vcpus_total = hs.free_vcpus = vcpus
    hs.free_disk_mb = disk_gb * 1024
    hs.total_usable_disk_gb = disk_gb
    if zones:
        hs.availability_zones = set(zones)
    for key, value in attrs.items():
        setattr(hs, key, value)
    return hs


class FakePlacement:
    """Capacity per provider, claims under a lock, a little latency."""

    def __init__(self, hosts, latency=0.002):
        self.capacity = {h.uuid: {'VCPU': h.vcpus_total,
                                  'MEMORY_MB': h.total_usable_ram_mb,
                                  'DISK_GB': h.total_usable_disk_gb}
                         for h in hosts}
        self.used = {rp: {rc: 0 for rc in cap}
                     for rp, cap in self.capacity.items()}
        self.allocations = {}   # consumer -> provider
        self._held = {}         # consumer -> resources
        self.lock = threading.Lock()
        self.latency = latency

    def summaries(self):
        with self.lock:
            return {rp: {'resources': {
                rc: {'capacity': cap[rc], 'used': self.used[rp][rc]}
                for rc in cap}} for rp, cap in self.capacity.items()}

    def alloc_reqs(self, resources):
        return [{'allocations': {rp: {'resources': dict(resources)}}}
                for rp in self.capacity]

    def claim_resources(self, ctxt, consumer, alloc_req, project_id,
                        user_id, allocation_request_version=None,
                        consumer_generation=None):
        time.sleep(self.latency)
        with self.lock:
            (rp, body), = alloc_req['allocations'].items()
            res = body['resources']
            if any(self.used[rp][rc] + n > self.capacity[rp][rc]
                   for rc, n in res.items()):
                return False
            for rc, n in res.items():
                self.used[rp][rc] += n
            self.allocations[consumer] = rp
            self._held[consumer] = dict(res)
            return True

    def delete_allocation_for_instance(self, ctxt, consumer, **kw):
        with self.lock:
            rp = self.allocations.pop(consumer, None)
            for rc, n in self._held.pop(consumer, {}).items():
                self.used[rp][rc] -= n
            return rp is not None

    def get_allocation_candidates(self, ctxt, resource_request):
        return (self.alloc_reqs(resource_request.resources),
                self.summaries(), '1.36')
