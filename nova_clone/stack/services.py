"""The processes of a stack: how each is started and how it is probed.

HTTP services are ready when their port answers HTTP; RPC services
(conductors, scheduler, computes) when their row in the services table
of their database shows a heartbeat newer than the process itself.
"""

import datetime
import importlib.util
import os
import sys

from nova_clone.stack import keystone
from nova_clone.stack import placement
from nova_clone.stack import procs
from nova_clone.stack import nova as stack_nova
from nova_clone.stack import peers as stack_peers


SERVICE_DOWN_TIME = 60
# What the stack extra installs (Keystone, its WSGI server, the MariaDB
# client of every service's database URL): a stack runs nothing without.
STACK_EXTRA = ('keystone', 'gunicorn', 'MySQLdb')


def missing_dependencies():
    """The modules of the stack extra that are not installed here."""
    return [name for name in STACK_EXTRA
            if importlib.util.find_spec(name) is None]


class Service(object):
    """One process of the stack.

    kind: 'http' (probe: url answers) or 'rpc' (probe: services row).
    """

    def __init__(self, name, argv, kind, env=None, url=None, db=None,
                 binary=None, host=None):
        self.name = name
        self.argv = argv
        self.kind = kind
        self.env = env or {}
        self.url = url
        self.db = db
        self.binary = binary
        self.host = host

    def __repr__(self):
        return '<Service %s>' % self.name


def _script(name):
    return os.path.join(os.path.dirname(sys.executable), name)


def _gunicorn(layout, name, app, workers=1, threads=8, access_log=False):
    # Placement and nova-api log every request themselves; keystone's
    # requests are only seen in gunicorn's access log.
    return procs.gunicorn_argv('%s:%s' % (layout.marker, name),
                               layout.host_ip, layout.ports[name], app,
                               workers=workers, threads=threads,
                               access_log=access_log)


def keystone_service(layout):
    return Service('keystone',
                   _gunicorn(layout, 'keystone',
                             'nova_clone.stack.keystone_wsgi:application',
                             threads=16, access_log=True),
                   'http', env=keystone.wsgi_env(layout),
                   url=layout.url('keystone') + '/v3')


def support_services(layout):
    """Placement and the stand-ins: everything nova talks to."""
    services = [Service('placement',
                        _gunicorn(layout, 'placement', placement.WSGI_APP,
                                 workers=2),
                        'http', env=placement.wsgi_env(layout),
                        url=layout.url('placement') + '/')]
    for peer in stack_peers.PEERS:
        services.append(Service(
            peer, [sys.executable, '-m', 'nova_clone.peers', peer,
                   '--config-file', stack_peers.conf_path(layout, peer)],
            'http', url=layout.url(peer) + '/'))
    return services


def control_services(layout):
    """nova-api, the super-conductor, cell conductors, the scheduler."""
    top = stack_nova.top_conf_path(layout)
    services = [
        Service('nova-api',
                _gunicorn(layout, 'nova-api',
                          'nova_clone.api.wsgi:application', workers=2),
                'http', env={'NOVA_CONFIG_FILE': top},
                url=layout.url('nova-api') + '/'),
        Service('nova-conductor', [_script('nova-conductor'),
                                   '--config-file', top],
                'rpc', db=layout.db_name('nova_cell0'),
                binary='nova-conductor'),
        Service('nova-scheduler', [_script('nova-scheduler'),
                                   '--config-file', top],
                'rpc', db=layout.db_name('nova_cell0'),
                binary='nova-scheduler'),
    ]
    for cell in range(1, layout.cells + 1):
        services.append(Service(
            'nova-conductor-cell%d' % cell,
            [_script('nova-conductor'), '--config-file',
             stack_nova.cell_conf_path(layout, cell)],
            'rpc', db=layout.db_name('nova_cell%d' % cell),
            binary='nova-conductor'))
    return services


def compute_services(layout):
    services = []
    for index, host in enumerate(layout.compute_hosts(), start=1):
        cell = layout.cell_of_compute(index)
        services.append(Service(
            'nova-compute-%s' % host,
            [_script('nova-compute'), '--config-file',
             stack_nova.compute_conf_path(layout, host)],
            'rpc', db=layout.db_name('nova_cell%d' % cell),
            binary='nova-compute', host=host))
    return services


def all_services(layout):
    return ([keystone_service(layout)] + support_services(layout) +
            control_services(layout) + compute_services(layout))


# -- probes -------------------------------------------------------------------

def answering(service):
    """HTTP status of an HTTP service (None: silent)."""
    return procs.http_status(service.url)


def heartbeat(service):
    """Latest heartbeat (UTC datetime) of an RPC service, or None."""
    from nova_clone.stack import infra as stack_infra
    sql = ('SELECT updated_at, created_at FROM services '
           'WHERE `binary` = %s AND deleted = 0')
    args = [service.binary]
    if service.host:
        sql += ' AND host = %s'
        args.append(service.host)
    try:
        rows = stack_infra.query(service.db, sql, args)
    except Exception:
        return None
    beats = [t for row in rows for t in row if t is not None]
    return max(beats) if beats else None


def rpc_up(service, pid):
    """True when the services row has a heartbeat newer than pid's start."""
    import psutil
    beat = heartbeat(service)
    if beat is None:
        return False
    try:
        started = psutil.Process(pid).create_time()
    except psutil.NoSuchProcess:
        return False
    started = datetime.datetime.fromtimestamp(
        started, datetime.timezone.utc).replace(tzinfo=None)
    now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    # DATETIME columns drop sub-seconds: allow for the truncation.  A
    # heartbeat older than nova's default service_down_time is down.
    return (beat >= started - datetime.timedelta(seconds=1) and
            beat >= now - datetime.timedelta(seconds=SERVICE_DOWN_TIME))


def ready(service, pid):
    if service.kind == 'http':
        # A 5xx means the app is up but broken: keep waiting, then fail.
        code = answering(service)
        return code is not None and code < 500
    return rpc_up(service, pid)
