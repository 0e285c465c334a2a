"""WSGI entry point of nova-api for gunicorn / uwsgi:
``nova_clone.api.wsgi:application``.

Configuration files come from NOVA_CONFIG_FILE (comma-separated paths;
default /etc/nova/nova.conf when it exists).
"""

import os
import threading

from oslo_log import log as logging

from nova_clone.conf import CONF
from nova_clone import heap

LOG = logging.getLogger(__name__)

_APP = None
_LOCK = threading.Lock()
DEFAULT_CONFIG = '/etc/nova/nova.conf'


def _config_files():
    raw = os.environ.get('NOVA_CONFIG_FILE')
    if raw:
        return [p.strip() for p in raw.split(',') if p.strip()]
    return [DEFAULT_CONFIG] if os.path.exists(DEFAULT_CONFIG) else []


def init_application():
    """Parse configuration, set up logging, messaging and objects, and
    build the app (once per process)."""
    from nova_clone.api import app
    from nova_clone import objects
    from nova_clone import rpc
    from nova_clone import version

    from nova_clone.cmd import common
    logging.register_options(CONF)
    logging.set_defaults(
        logging_context_format_string=common.CONTEXT_FORMAT,
        default_log_levels=common.DEFAULT_LOG_LEVELS)
    CONF([], project='nova', version=version.version_string(),
         default_config_files=_config_files())
    logging.setup(CONF, 'nova')
    rpc.init()
    objects.register_all()
    LOG.info('nova-api %s WSGI application ready', version.RELEASE)
    return app.make_app(CONF)


def prepare_application():
    """Build the app before the first request: a gunicorn worker of the
    stack calls this as it starts (nova_clone.stack.gunicorn_hooks), so
    no user's request waits for the start-up (about 0.75 s of CPU)."""
    _get()


def _get():
    global _APP
    with _LOCK:
        if _APP is None:
            _APP = init_application()
            heap.freeze_startup_objects()
    return _APP


def application(environ, start_response):
    """Built lazily so that importing this module has no side effects."""
    return _get()(environ, start_response)
