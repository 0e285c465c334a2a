"""The RequestContext that requests and RPC messages carry; cell targeting.

A context names who asks (user, project, roles), the request id that ties
log lines together across services, and -- once targeted -- which cell's
database and message queue a call should use.
"""

import concurrent.futures
import contextlib
import copy
import threading
import time

from oslo_context import context as oslo_context
from oslo_db.sqlalchemy import enginefacade
from oslo_log import log as logging
from oslo_utils import timeutils

LOG = logging.getLogger(__name__)

# Returned by scatter_gather_cells for a cell that did not answer in time;
# callers decide whether a partial answer is acceptable.
did_not_respond_sentinel = object()

# Cell connections built once per process, keyed by cell uuid.
_CELL_CACHE = {}

# The cell list of the request paths that read it all the time (server
# lists, quota counts): (monotonic time read, [CellMapping]).  Cells are
# added rarely; a change made in this process is seen at once, one made
# elsewhere (nova-manage) within CELL_LIST_TTL seconds.
CELL_LIST_TTL = 10.0
_CELL_LIST = None

# The threads that ask the cells, shared by every scatter-gather of the
# process: starting threads per request cost more than the queries.
_EXECUTOR = None
_EXECUTOR_LOCK = threading.Lock()


def load_cells(context):
    """Every CellMapping, from a copy at most CELL_LIST_TTL seconds old."""
    global _CELL_LIST
    cached = _CELL_LIST
    if cached is None or time.monotonic() - cached[0] > CELL_LIST_TTL:
        from nova_clone import objects
        cached = (time.monotonic(),
                  list(objects.CellMappingList.get_all(context)))
        _CELL_LIST = cached
    return list(cached[1])


def forget_cell_list():
    """Read the cell list afresh next time (a cell changed here)."""
    global _CELL_LIST
    _CELL_LIST = None


def forget_cells():
    """Drop all this process knows of the cells, connections included
    (a new deployment starts in this process)."""
    forget_cell_list()
    _CELL_CACHE.clear()


def _scatter_gather_executor():
    global _EXECUTOR
    if _EXECUTOR is None:
        from nova_clone.conf import CONF
        with _EXECUTOR_LOCK:
            if _EXECUTOR is None:
                _EXECUTOR = concurrent.futures.ThreadPoolExecutor(
                    max_workers=CONF.cell_worker_thread_pool_size,
                    thread_name_prefix='cell-worker')
    return _EXECUTOR


# The catalog entries a context keeps, as Nova's: the services its flows
# call with the user's token.  Every RPC message carries the context, so
# the rest (identity, compute itself) would only make them bigger.
CATALOG_TYPES = frozenset(['image', 'network', 'placement', 'block-storage',
                           'volume', 'volumev2', 'volumev3', 'key-manager',
                           'accelerator', 'sharev2'])


@enginefacade.transaction_context_provider
class RequestContext(oslo_context.RequestContext):
    """Security and routing context of one request."""

    def __init__(self, user_id=None, project_id=None, is_admin=None,
                 read_deleted='no', remote_address=None, timestamp=None,
                 quota_class=None, service_catalog=None,
                 user_auth_plugin=None, **kwargs):
        kwargs.setdefault('overwrite', False)
        super().__init__(user_id=user_id, project_id=project_id, **kwargs)
        self.read_deleted = read_deleted
        self.remote_address = remote_address
        if timestamp is None:
            timestamp = timeutils.utcnow()
        elif isinstance(timestamp, str):
            timestamp = timeutils.parse_isotime(timestamp).replace(tzinfo=None)
        self.timestamp = timestamp
        self.quota_class = quota_class
        self.service_catalog = [entry for entry in service_catalog or []
                                if entry.get('type') in CATALOG_TYPES]
        self.user_auth_plugin = user_auth_plugin
        self.is_admin = bool(is_admin) if is_admin is not None else (
            'admin' in (self.roles or []))
        # Set by target_cell(); None means the process-wide defaults.
        self.db_connection = None
        self.mq_connection = None
        self.cell_uuid = None

    def to_dict(self):
        values = super().to_dict()
        values.update({
            'user_id': self.user_id,
            'project_id': self.project_id,
            'read_deleted': self.read_deleted,
            'remote_address': self.remote_address,
            'timestamp': self.timestamp.isoformat(),
            'quota_class': self.quota_class,
            'service_catalog': self.service_catalog,
        })
        return values

    @classmethod
    def from_dict(cls, values):
        return cls(
            user_id=values.get('user_id') or values.get('user'),
            project_id=values.get('project_id') or values.get('project_id'),
            is_admin=values.get('is_admin'),
            read_deleted=values.get('read_deleted', 'no'),
            remote_address=values.get('remote_address'),
            timestamp=values.get('timestamp'),
            quota_class=values.get('quota_class'),
            service_catalog=values.get('service_catalog'),
            request_id=values.get('request_id'),
            global_request_id=values.get('global_request_id'),
            auth_token=values.get('auth_token'),
            roles=values.get('roles'),
            user_name=values.get('user_name'),
            project_name=values.get('project_name'),
            read_only=values.get('read_only', False),
            show_deleted=values.get('show_deleted', False),
            system_scope=values.get('system_scope'),
        )

    def elevated(self, read_deleted=None):
        """A copy with admin rights, for internal lookups."""
        ctx = copy.copy(self)
        ctx.roles = list(self.roles or [])
        ctx.is_admin = True
        if 'admin' not in ctx.roles:
            ctx.roles.append('admin')
        if read_deleted is not None:
            ctx.read_deleted = read_deleted
        return ctx

    def can(self, action, target=None, fatal=True):
        """Check a policy rule for this context (see nova_clone.policy).

        Decisions are remembered for the life of the context: a server list
        asks the same question of every server of a project.
        """
        from nova_clone import policy
        if target is None:
            target = {'project_id': self.project_id, 'user_id': self.user_id}
        key = self._policy_key(action, target)
        memo = self.__dict__.setdefault('_policy_memo', {})
        allowed = memo.get(key) if key is not None else None
        if allowed or (allowed is False and not fatal):
            return allowed
        allowed = bool(policy.authorize(self, action, target,
                                        do_raise=fatal))
        if key is not None:
            memo[key] = allowed
        return allowed

    def _policy_key(self, action, target):
        # The credentials are part of the key: elevated() copies share
        # the memo but not the roles.
        try:
            key = (action, frozenset(target.items()), self.user_id,
                   self.project_id, self.is_admin, self.system_scope,
                   tuple(self.roles or ()))
            hash(key)
        except TypeError:
            return None
        return key

    def __str__(self):
        return '<Context %s user=%s project=%s>' % (
            self.request_id, self.user_id, self.project_id)


def get_admin_context(read_deleted='no'):
    """An admin context for services' own work (periodic tasks, start-up)."""
    return RequestContext(user_id=None, project_id=None, is_admin=True,
                          read_deleted=read_deleted, roles=['admin'],
                          overwrite=False)


def get_context():
    """A context with no identity, for code that needs only a request id."""
    return RequestContext(user_id=None, project_id=None, is_admin=False,
                          overwrite=False)


def set_target_cell(context, cell_mapping):
    """Point ``context`` at ``cell_mapping``'s database and message queue."""
    if cell_mapping is None:
        context.db_connection = context.mq_connection = None
        context.cell_uuid = None
        return
    from nova_clone.db.main import api as main_db
    from nova_clone import rpc
    cached = _CELL_CACHE.get(cell_mapping.uuid)
    if cached is None or cached[2] != (cell_mapping.database_connection,
                                       cell_mapping.transport_url):
        db = main_db.create_context_manager(cell_mapping.database_connection)
        # cell0 has no message queue: nothing ever runs there.
        url = cell_mapping.transport_url
        mq = None if (url or '').startswith('none') else (
            rpc.create_transport(url))
        cached = (db, mq, (cell_mapping.database_connection,
                           cell_mapping.transport_url))
        _CELL_CACHE[cell_mapping.uuid] = cached
    context.db_connection, context.mq_connection = cached[0], cached[1]
    context.cell_uuid = cell_mapping.uuid


@contextlib.contextmanager
def target_cell(context, cell_mapping):
    """Yield a copy of ``context`` targeted at ``cell_mapping``."""
    cctxt = copy.copy(context)
    set_target_cell(cctxt, cell_mapping)
    yield cctxt


def each_cell(context):
    """Yield (cell, a copy of ``context`` targeted at it) for every cell
    that can hold live servers: all but cell0, where only builds that
    never got a host rest."""
    for cell in load_cells(context):
        if cell.is_cell0():
            continue
        with target_cell(context, cell) as cctxt:
            yield cell, cctxt


def scatter_gather_cells(context, cell_mappings, timeout, fn, *args, **kw):
    """Run ``fn(cell_context, *args)`` in every cell at once.

    Returns {cell_uuid: result}; a cell that raised maps to the exception
    it raised, and one that did not answer within ``timeout`` seconds maps
    to did_not_respond_sentinel.
    """
    results = {}
    cells = list(cell_mappings)
    if not cells:
        return results

    def run(cell):
        with target_cell(context, cell) as cctxt:
            # The worker's log lines carry the request's id.
            cctxt.update_store()
            return fn(cctxt, *args, **kw)

    pool = _scatter_gather_executor()
    futures = {pool.submit(run, cell): cell.uuid for cell in cells}
    done, _ = concurrent.futures.wait(futures, timeout=timeout)
    for future, uuid in futures.items():
        if future not in done:
            LOG.warning('Cell %s did not respond within %s seconds',
                        uuid, timeout)
            results[uuid] = did_not_respond_sentinel
            continue
        try:
            results[uuid] = future.result()
        except Exception as exc:
            LOG.exception('Error gathering result from cell %s', uuid)
            results[uuid] = exc
    return results


def is_cell_failure_sentinel(record):
    return (record is did_not_respond_sentinel or
            isinstance(record, Exception))
