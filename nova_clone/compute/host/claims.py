"""Claims: the resources a build holds on this host while it runs.

Placement already holds the allocation the scheduler made; a claim is the
compute's local view of the same usage, so the ComputeNode usage fields
move as soon as a build starts and fall back if it fails.
"""

from oslo_log import log as logging

LOG = logging.getLogger(__name__)


class NopClaim:
    """A claim that holds nothing (untracked node, already tracked...)."""

    vcpus = memory_mb = disk_gb = 0

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if exc_type is not None:
            self.abort()
        return False

    def abort(self):
        pass


class Claim(NopClaim):
    """Usage of one instance on one node, released by abort()."""

    def __init__(self, context, tracker, instance, nodename, usage):
        self.context = context
        self.tracker = tracker
        self.instance = instance
        self.nodename = nodename
        self.vcpus = usage.vcpus
        self.memory_mb = usage.memory_mb
        self.disk_gb = usage.disk_gb

    def abort(self):
        LOG.debug('Aborting claim of instance %s on %s', self.instance.uuid,
                  self.nodename)
        self.tracker.abort_instance_claim(self.context, self.instance,
                                          self.nodename)

    def __repr__(self):
        return ('Claim(%s on %s: %s vCPU, %s MiB, %s GiB)' %
                (self.instance.uuid, self.nodename, self.vcpus,
                 self.memory_mb, self.disk_gb))
