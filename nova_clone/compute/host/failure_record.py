"""Recording a failed flow while the database or Placement are away.

Often only the service running a flow knows that it failed.  If storing the
fault, the ERROR state or the allocations fails as well (the database
restarting, the cell conductor down, Placement stopped), the server would
stay in its transitional state for ever.  What does not go through at once
is retried in the background until it does, for up to RETRY_SECONDS.
"""

import time

from oslo_log import log as logging

from nova_clone import exception
from nova_clone import threads

LOG = logging.getLogger(__name__)

RETRY_SECONDS = 300


def record(instance, steps, what):
    """Run ``steps`` (callables, each named for what it records) in
    order; from the first that fails on, they run in the background, each
    retried until it goes through.  ``what`` names the failure in the
    log, e.g. 'failed build'."""
    steps = list(steps)
    while steps:
        try:
            steps[0]()
        except exception.InstanceNotFound:
            pass  # deleted meanwhile: the steps about other records stay
        except Exception as exc:
            LOG.warning('Could not record the %s of %s yet (%s: %s); '
                        'retrying in the background for up to %d s', what,
                        instance.uuid, steps[0].__name__, exc,
                        RETRY_SECONDS)
            threads.spawn(_retry, instance, steps, what,
                          name='record-failure-%s' % instance.uuid)
            return
        steps.pop(0)


def _retry(instance, steps, what):
    """Each step until it goes through, for up to RETRY_SECONDS in all;
    the first has just failed."""
    deadline = time.monotonic() + RETRY_SECONDS
    delay = 1
    while steps:
        time.sleep(delay)
        try:
            steps[0]()
        except exception.InstanceNotFound:
            pass
        except Exception as exc:
            delay = min(max(delay, 1) * 2, 15)
            if time.monotonic() + delay > deadline:
                LOG.error('Gave up recording the %s of %s after %d s (%s '
                          'failed: %s): it stays as it is until its compute '
                          'restarts or it is deleted', what, instance.uuid,
                          RETRY_SECONDS, steps[0].__name__, exc)
                return
            continue
        steps.pop(0)
        delay = 0
    LOG.info('The %s of %s is recorded', what, instance.uuid)
