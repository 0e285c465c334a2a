"""Allocation candidates shared by the requests of a storm.

Placement's GET /allocation_candidates is the costliest read of a boot.
Requests asking the same question within ``[scheduler]
allocation_candidates_reuse_seconds`` share one answer: the scheduler's
ledger subtracts every claim made since that answer was fetched, and the
claim itself (PUT /allocations) stays the authority, so a shared answer
can only be too pessimistic (it misses room freed meanwhile), and a
request that finds no room in it asks Placement afresh.
"""

import collections
import threading
import time

from nova_clone.conf import CONF

Answer = collections.namedtuple(
    'Answer', 'alloc_reqs summaries version fetched_at shared')


class CandidateCache:

    def __init__(self, report_client_getter):
        self._client = report_client_getter
        self._lock = threading.Lock()
        self._answers = {}   # querystring -> Answer
        self._fetching = {}  # querystring -> Lock held by its fetcher

    def get(self, ctxt, resource_request, newer_than=None):
        """An Answer for ``resource_request``, fetched after ``newer_than``
        (a monotonic time) when given."""
        ttl = CONF.scheduler.allocation_candidates_reuse_seconds
        if ttl <= 0:
            return self._fetch(ctxt, resource_request)
        key = resource_request.to_querystring()
        with self._lock:
            answer = self._usable(key, ttl, newer_than)
            if answer is not None:
                return answer
            fetch_lock = self._fetching.setdefault(key, threading.Lock())
        # One fetch per question at a time: the others of a storm wait for
        # it rather than all asking Placement the same thing at once.
        with fetch_lock:
            with self._lock:
                answer = self._usable(key, ttl, newer_than)
                if answer is not None:
                    return answer
            answer = self._fetch(ctxt, resource_request)
            with self._lock:
                if answer.alloc_reqs:
                    self._answers[key] = answer
                else:
                    self._answers.pop(key, None)
                self._fetching.pop(key, None)
            return answer

    def _usable(self, key, ttl, newer_than):
        now = time.monotonic()
        for k in [k for k, a in self._answers.items()
                  if now - a.fetched_at >= ttl]:
            del self._answers[k]
        answer = self._answers.get(key)
        if answer is None or (newer_than is not None and
                              answer.fetched_at <= newer_than):
            return None
        return answer._replace(shared=True)

    def _fetch(self, ctxt, resource_request):
        fetched_at = time.monotonic()
        alloc_reqs, summaries, version = \
            self._client().get_allocation_candidates(ctxt, resource_request)
        return Answer(alloc_reqs, summaries, version, fetched_at, False)
