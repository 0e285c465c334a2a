"""nova's CONF for the embedded mode, filled in code.

One CONF serves every nova service of the process.  What wires the cloud
together (databases, transport, endpoints, service credentials) is set with
set_override, so a user's --config-file cannot break it; tunables
([fake_driver], [scheduler], intervals, ...) come from the file if given.
Per-host settings are NOT here: each compute Service gets its host name
passed explicitly, since CONF.host is shared.
"""

import json
import os
import secrets

from oslo_config import cfg
from oslo_log import log as logging

REGION = 'RegionOne'
SERVICE_PROJECT = 'service'
DOMAIN = 'Default'


class StartError(RuntimeError):
    """A start-up problem the user can fix; the message is one line."""


class Layout:
    """Where everything of one embedded cloud lives."""

    def __init__(self, state_dir):
        self.state_dir = state_dir
        self.instances_path = os.path.join(state_dir, 'instances')

    def sqlite(self, name):
        return 'sqlite:///%s' % os.path.join(self.state_dir, name + '.sqlite')

    @property
    def api_db(self):
        return self.sqlite('nova_api')

    @property
    def cell0_db(self):
        return self.sqlite('nova_cell0')

    @property
    def cell1_db(self):
        return self.sqlite('nova_cell1')

    @property
    def placement_db(self):
        return self.sqlite('placement')

    @property
    def peers_db(self):
        return self.sqlite('peers')

    @property
    def identity_db(self):
        return self.sqlite('identity')

    @property
    def credentials_file(self):
        return os.path.join(self.state_dir, 'credentials.json')


def load_credentials(layout):
    """The cloud's password, generated on first start and kept.

    The identity stand-in gives every user it bootstraps (admin, demo,
    reader and the service users) this one password, as DevStack does.
    """
    path = layout.credentials_file
    password = None
    if os.path.exists(path):
        try:
            with open(path) as f:
                password = json.load(f).get('admin_password')
        except (OSError, ValueError):
            password = None
    if not password:
        password = secrets.token_urlsafe(12)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, 'w') as f:
            json.dump({'admin_password': password}, f, indent=2)
    return {'admin_password': password, 'demo_password': password,
            'service_password': password}


def service_auth(identity_url, username, password):
    """keystoneauth1 password options of a service user."""
    return {
        'auth_type': 'password',
        'auth_url': identity_url,
        'username': username,
        'password': password,
        'project_name': SERVICE_PROJECT,
        'user_domain_name': DOMAIN,
        'project_domain_name': DOMAIN,
    }


def parse(conf, config_files=(), log_file=None, debug=False):
    """Parse nova's CONF once (extra config files) and set up logging."""
    from nova_clone.cmd import common
    try:
        logging.register_options(conf)
    except cfg.ArgsAlreadyParsedError:
        pass
    # The daemons' log format (request ids on every line) and levels.
    logging.set_defaults(
        logging_context_format_string=common.CONTEXT_FORMAT,
        default_log_levels=common.DEFAULT_LOG_LEVELS)
    args = []
    for path in config_files or ():
        args += ['--config-file', path]
    if args or conf._namespace is None:
        conf(args, project='nova', default_config_files=[],
             default_config_dirs=[])
    conf.set_override('debug', debug)
    if log_file:
        conf.set_override('log_file', log_file)
        conf.set_override('use_stderr', False)
    logging.setup(conf, 'nova')
    # Libraries that chatter at INFO about every request.
    for name in ('keystonemiddleware.auth_token', 'stevedore',
                 'oslo.messaging._drivers.impl_fake', 'placement.requestlog',
                 'keystoneauth', 'urllib3', 'alembic'):
        logging.getLogger(name).logger.setLevel(
            'DEBUG' if debug and not name.startswith(('urllib3', 'alembic'))
            else 'WARNING')


class Overrides(object):
    """A ConfigOpts that records the overrides set through it, so that a
    cloud that stops can leave the process's CONF as it found it (a later
    cloud, or other code in the process, must not reach this cloud's
    peers through a stale endpoint)."""

    def __init__(self, conf):
        self._conf = conf
        self._made = set()

    def __getattr__(self, name):
        return getattr(self._conf, name)

    def set_override(self, name, override, group=None):
        self._conf.set_override(name, override, group=group)
        self._made.add((name, group))

    def clear(self):
        for name, group in self._made:
            self._conf.clear_override(name, group=group)
        self._made = set()


def apply(conf, layout, urls, creds, host='127.0.0.1', api_port=8774,
          auth_strategy='keystone'):
    """Set the embedded wiring on nova's CONF.

    ``urls`` maps service type (identity, placement, image, network,
    volumev3, compute) to the endpoint the catalog publishes.
    """
    import oslo_messaging
    # oslo.messaging registers [DEFAULT] transport_url when it first parses
    # a transport URL; do that now so it can be overridden.
    oslo_messaging.TransportURL.parse(conf)
    o = conf.set_override
    o('transport_url', 'fake://')
    o('state_path', layout.state_dir)
    o('instances_path', layout.instances_path)
    o('my_ip', host)
    o('osapi_compute_listen', host)
    o('osapi_compute_listen_port', api_port)
    o('compute_driver', 'fake.FakeDriver')
    o('connection', layout.api_db, group='api_database')
    o('connection', layout.cell1_db, group='database')
    o('auth_strategy', auth_strategy, group='api')

    identity = urls['identity']
    password = creds['service_password']
    _set_ksa(conf, 'keystone_authtoken',
             service_auth(identity, 'nova', password))
    o('www_authenticate_uri', identity, group='keystone_authtoken')
    o('region_name', REGION, group='keystone_authtoken')

    for group, service_type in (('placement', 'placement'),
                                ('glance', 'image'),
                                ('neutron', 'network'),
                                ('cinder', 'volumev3')):
        _set_ksa(conf, group, service_auth(identity, 'nova', password))
        o('region_name', REGION, group=group)
        o('valid_interfaces', ['internal', 'public'], group=group)
        if service_type != 'volumev3':
            # Cinder's URL carries the project; the catalog names it.
            o('endpoint_override', urls[service_type], group=group)
    _set_ksa(conf, 'service_user', service_auth(identity, 'nova', password))
    conf.set_default('send_service_user_token', False, group='service_user')


def _set_ksa(conf, group, auth):
    from keystoneauth1 import loading as ks_loading
    plugin = ks_loading.get_plugin_loader(auth['auth_type'])
    try:
        conf.register_opts(ks_loading.get_auth_plugin_conf_options(plugin),
                           group=group)
    except cfg.DuplicateOptError:
        pass
    for key, value in auth.items():
        conf.set_override(key, value, group=group)


def peer_conf(name, layout, urls, creds, host, port, extra=None):
    """A stand-in's own ConfigOpts, as its config file would read.

    Returns a ConfigOpts with [peers] and [keystone_authtoken] registered
    the stand-in's way; the caller hands it to the stand-in's make_app.
    """
    from keystoneauth1 import loading as ks_loading
    from keystonemiddleware.auth_token import _opts as ksm_opts

    from nova_clone.peers import conf as peers_conf

    conf = cfg.ConfigOpts()
    peers_conf.register_opts(conf)
    for group, opts in ksm_opts.list_opts():
        conf.register_opts(opts, group=group)
    ks_loading.register_auth_conf_options(conf, 'keystone_authtoken')
    conf([], project='nova-clone-%s' % name, default_config_files=[],
         default_config_dirs=[])
    conf.set_override('connection', layout.peers_db, group='peers')
    conf.set_override('listen', host, group='peers')
    conf.set_override('%s_port' % name, port, group='peers')
    _set_ksa(conf, 'keystone_authtoken',
             service_auth(urls['identity'], name, creds['service_password']))
    conf.set_override('www_authenticate_uri', urls['identity'],
                      group='keystone_authtoken')
    for group, values in (extra or {}).items():
        values = dict(values)
        if 'auth_type' in values:
            _set_ksa(conf, group, {k: values.pop(k) for k in list(values)
                                   if k in _AUTH_KEYS})
        for key, value in values.items():
            conf.set_override(key, value, group=group)
    return conf


_AUTH_KEYS = ('auth_type', 'auth_url', 'username', 'password',
              'project_name', 'user_domain_name', 'project_domain_name')
