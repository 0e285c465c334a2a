"""Start-up shared by the daemons: configuration, logging, RPC, objects.

Every daemon calls ``init(argv, binary)`` first; bad command lines and
unreadable configuration files end the process with a one-line error and
exit status 2, never a traceback.
"""

import sys

from oslo_config import cfg
from oslo_log import log as logging

from nova_clone.conf import CONF
from nova_clone import exception
from nova_clone import heap
from nova_clone import version

LOG = logging.getLogger(__name__)

# Request ids in every line logged while serving a request, so one request
# can be followed across nova-api, the conductor, the scheduler and computes.
CONTEXT_FORMAT = (
    '%(asctime)s.%(msecs)03d %(process)d %(levelname)s %(name)s '
    '[%(global_request_id)s %(request_id)s %(user_identity)s] '
    '%(instance)s%(message)s')

DEFAULT_LOG_LEVELS = [
    'amqp=WARN', 'amqplib=WARN', 'kombu=WARN', 'oslo.messaging=INFO',
    'oslo_messaging=INFO', 'sqlalchemy=WARN', 'stevedore=WARN',
    'urllib3.connectionpool=WARN', 'keystoneauth=WARN',
    'oslo_policy=INFO', 'routes.middleware=WARN', 'futurist=INFO',
]


class ConfigError(Exception):
    """The command line or a configuration file is unusable."""


def parse_args(argv, binary):
    logging.register_options(CONF)
    logging.set_defaults(logging_context_format_string=CONTEXT_FORMAT,
                         default_log_levels=DEFAULT_LOG_LEVELS)
    try:
        CONF(argv, project='nova', prog=binary,
             version=version.version_string())
    except cfg.ConfigFilesNotFoundError as exc:
        raise ConfigError('cannot read configuration file(s): %s'
                          % ', '.join(exc.config_files))
    except (cfg.Error, ValueError) as exc:
        raise ConfigError(str(exc))


def init(argv, binary):
    """Parse config, set up logging, RPC and the object registry."""
    parse_args(argv, binary)
    logging.setup(CONF, 'nova')
    from nova_clone import objects
    from nova_clone import rpc
    objects.register_all()
    rpc.init(CONF)
    LOG.info('%s %s starting (host %s)', binary, version.version_string(),
             CONF.host)


def block_db_access(binary):
    """Make any database access in this process fail loudly.

    nova-compute reaches data only through the conductor; an engine
    creation here means some code skipped the object layer.
    """
    from oslo_db.sqlalchemy import engines
    import sqlalchemy

    def refuse(*args, **kwargs):
        LOG.error('No database access allowed in %s', binary)
        raise exception.DBNotAllowed(binary=binary)

    engines.create_engine = refuse
    sqlalchemy.create_engine = refuse


def run(binary, main_fn, argv=None):
    """Run ``main_fn()`` after init(), turning start-up errors into exits."""
    if argv is None:
        argv = sys.argv[1:]
    try:
        init(argv, binary)
    except ConfigError as exc:
        sys.stderr.write('%s: error: %s\n' % (binary, exc))
        return 2
    try:
        return main_fn() or 0
    except exception.NovaException as exc:
        LOG.error('%s failed to start: %s', binary, exc.format_message())
        return 1
    except KeyboardInterrupt:
        return 0
    except Exception:
        LOG.exception('%s stopped on an unexpected error', binary)
        return 1


def serve_rpc_service(binary, topic, manager):
    """Serve ``binary``'s RPC ``topic`` on [DEFAULT] host until stopped,
    in ``[conductor|scheduler] workers`` processes when more than one."""
    from nova_clone import service
    server = service.Service.create(binary=binary, topic=topic,
                                    manager=manager, host=CONF.host)

    def serve_here():
        service.serve(server)
        heap.freeze_startup_objects()
        service.wait()
        return 0

    count = _worker_count(topic)
    if count > 1:
        from nova_clone import workers
        return workers.WorkerPool(count, serve_here, binary).run()
    return serve_here()


def _worker_count(topic):
    group = {'conductor': CONF.conductor,
             'scheduler': CONF.scheduler}.get(topic)
    return (group.workers or 1) if group is not None else 1


def rpc_service_main(binary, topic, manager, argv=None):
    """The whole ``main()`` of an RPC daemon with a fixed manager class."""
    return run(binary, lambda: serve_rpc_service(binary, topic, manager),
               argv)
