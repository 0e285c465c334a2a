"""The embedded cloud's nova: databases and cell mappings, the computes,
host discovery and nova-api.

A mixin of EmbeddedCloud (nova_clone.embedded.cloud), which starts
the conductors and the scheduler on the process's fake:// transport.
"""

import contextlib
import time

from oslo_log import log as logging

from nova_clone.embedded import config as embedded_config

LOG = logging.getLogger(__name__)

CELL1_NAME = 'cell1'
STOP_TIMEOUT = 5


class NovaMixin:
    """Start-up of nova's own parts, the way nova-manage and DevStack
    would do them."""

    def _prepare_databases(self):
        from nova_clone.db.api import api as api_db
        from nova_clone.db.main import api as main_db
        from nova_clone.db import migration
        from nova_clone import objects
        # Engines of an earlier cloud in this process (tests) are dropped
        # so the next use reads the connections set above.
        api_db.reset()
        main_db.reset()
        migration.db_sync('api', url=self.layout.api_db)
        migration.db_sync('main', url=self.layout.cell0_db)
        migration.db_sync('main', url=self.layout.cell1_db)
        objects.register_all()
        self._ensure_cells()

    def _ensure_cells(self):
        """cell0 and cell1 mappings, made the way nova-manage makes them."""
        from nova_clone.cmd import manage
        from nova_clone import context as nova_context
        from nova_clone import objects
        ctxt = nova_context.get_admin_context()
        commands = manage.CellV2Commands()
        with contextlib.redirect_stdout(_LogWriter()):
            commands.map_cell0(database_connection=self.layout.cell0_db)
            names = {c.name for c in objects.CellMappingList.get_all(ctxt)}
            if CELL1_NAME not in names:
                # The cell's queue is the process's fake:// transport.
                commands.create_cell(
                    name=CELL1_NAME, transport_url='fake://',
                    database_connection=self.layout.cell1_db)
        cells = {c.name: c for c in objects.CellMappingList.get_all(ctxt)}
        self.cell_mappings = {'cell0': cells['cell0'],
                              CELL1_NAME: cells[CELL1_NAME]}

    def _start_computes(self):
        from nova_clone.embedded import guests as embedded_guests
        from concurrent import futures
        embedded_guests.restore(self.state_dir)
        hosts = ['compute%d' % i for i in range(1, self.num_computes + 1)]
        if not hosts:
            return
        # The first one alone (it imports the compute code), then the
        # others side by side: each mostly waits on Placement and SQLite.
        self.start_compute(hosts[0], discover=False)
        rest = hosts[1:]
        if not rest:
            return
        with futures.ThreadPoolExecutor(max_workers=min(4, len(rest))) as tp:
            jobs = [(host, tp.submit(self._new_compute, host))
                    for host in rest]
        errors = []
        for host, job in jobs:
            try:
                self.computes[host] = job.result()
            except Exception as exc:
                errors.append('%s: %s' % (host, exc))
        if errors:
            raise embedded_config.StartError(
                'compute start-up failed (%s)' % '; '.join(errors))

    def _new_compute(self, host):
        from nova_clone.conductor import rpcapi as conductor_rpcapi
        from nova_clone import service
        svc = service.Service.create(
            host=host, binary='nova-compute', topic='compute',
            indirection_api=conductor_rpcapi.ConductorAPI())
        svc.start()
        return svc

    def start_compute(self, host, discover=True):
        """Start one more fake compute host (tests add hosts this way)."""
        if host in self.computes:
            raise ValueError('compute %s already runs' % host)
        svc = self._new_compute(host)
        self.computes[host] = svc
        if discover:
            self._discover_hosts()
        return svc

    def stop_compute(self, host):
        svc = self.computes.pop(host)
        svc.stop(timeout=STOP_TIMEOUT)

    def _discover_hosts(self, timeout=10):
        """Map every running compute's host to cell1 (nova-manage's job)."""
        from nova_clone import context as nova_context
        from nova_clone import exception
        from nova_clone import objects
        ctxt = nova_context.get_admin_context()
        cell1 = self.cell_mappings[CELL1_NAME]
        deadline = time.monotonic() + timeout
        pending = set(self.computes)
        while pending:
            with nova_context.target_cell(ctxt, cell1) as cctxt:
                for host in sorted(pending):
                    try:
                        nodes = objects.ComputeNodeList.get_all_by_host(
                            cctxt, host)
                    except exception.ComputeHostNotFound:
                        nodes = []
                    if nodes:
                        pending.discard(host)
            if not pending:
                break
            if time.monotonic() > deadline:
                raise embedded_config.StartError(
                    'compute host(s) %s did not report a compute node '
                    'within %ss (see %s)' % (', '.join(sorted(pending)),
                                             timeout, self.log_file))
            time.sleep(0.05)
        from nova_clone.objects import host_mapping
        host_mapping.discover_hosts(ctxt, cell_uuid=cell1.uuid,
                                    status_fn=LOG.info)

    def _start_api(self):
        from nova_clone.api import app as api_app
        from nova_clone.conf import CONF
        self.slots['api'].app = api_app.make_app(CONF)


class _LogWriter:
    """A stdout for nova-manage's command functions: lines go to the log."""

    def write(self, text):
        if text.strip():
            LOG.info('%s', text.rstrip())

    def flush(self):
        pass
