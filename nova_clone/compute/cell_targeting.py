"""Cell targeting that copes with cell0.

cell0 has no message queue (its transport_url is Nova's ``none:///``): it
only stores instances that never got a host.  nova_clone.context builds a
transport for every targeted cell; for cell0 we target the database only.
The boot/delete/list code uses these two functions instead of the
context module's.
"""

import concurrent.futures
import contextlib
import copy

from oslo_log import log as logging

from nova_clone import context as nova_context

LOG = logging.getLogger(__name__)

_DB_ONLY = {}


def _no_queue(cell):
    url = getattr(cell, 'transport_url', None) or ''
    return not url or url.startswith('none:')


@contextlib.contextmanager
def target_cell(context, cell):
    if not _no_queue(cell):
        with nova_context.target_cell(context, cell) as cctxt:
            yield cctxt
        return
    from nova_clone.db.main import api as main_db
    cctxt = copy.copy(context)
    db = _DB_ONLY.get(cell.database_connection)
    if db is None:
        db = main_db.create_context_manager(cell.database_connection)
        _DB_ONLY[cell.database_connection] = db
    cctxt.db_connection = db
    cctxt.mq_connection = None
    cctxt.cell_uuid = cell.uuid
    yield cctxt


def scatter_gather_cells(context, cells, timeout, fn):
    """{cell uuid: fn(cell_context) or exception or sentinel}."""
    from nova_clone.conf import CONF
    cells = list(cells)
    results = {}
    if not cells:
        return results

    def run(cell):
        with target_cell(context, cell) as cctxt:
            return fn(cctxt)

    pool = concurrent.futures.ThreadPoolExecutor(
        max_workers=min(len(cells), CONF.cell_worker_thread_pool_size))
    try:
        futures = {pool.submit(run, cell): cell.uuid for cell in cells}
        done, _ = concurrent.futures.wait(futures, timeout=timeout)
        for future, uuid in futures.items():
            if future not in done:
                LOG.warning('Cell %s did not respond within %s seconds',
                            uuid, timeout)
                results[uuid] = nova_context.did_not_respond_sentinel
                continue
            try:
                results[uuid] = future.result()
            except Exception as exc:
                LOG.warning('Cell %s failed to answer: %s', uuid, exc)
                results[uuid] = exc
    finally:
        pool.shutdown(wait=False)
    return results
