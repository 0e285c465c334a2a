"""Every stand-in in this process: the embedded mode's peers, and tests'.

``LocalPeers(conf).start()`` serves the identity stand-in, then Glance,
Neutron and Cinder (port 0 picks free ports, else the ``[peers]`` ports),
points ``[keystone_authtoken]`` at the identity stand-in and fills the
catalog.  ``conf`` must have the stand-ins' options registered
(nova_clone.peers.conf.register_opts).
"""

from keystoneauth1 import loading as ks_loading
from keystonemiddleware import auth_token
from oslo_log import log as logging

from nova_clone.peers import identity
from nova_clone.peers import service

LOG = logging.getLogger(__name__)

CATALOG_TYPES = {'glance': ['image'], 'neutron': ['network'],
                 'cinder': ['block-storage', 'volumev3']}
URL_SUFFIX = {'cinder': '/v3/$(project_id)s'}


class LocalPeers:

    def __init__(self, conf, services=('glance', 'neutron', 'cinder'),
                 free_ports=True, service_user='nova'):
        self.conf = conf
        self.services = list(services)
        self.free_ports = free_ports
        self.service_user = service_user
        self.handles = {}

    @property
    def auth_url(self):
        return self.handles['identity'].url + '/v3'

    def url(self, name):
        return self.handles[name].url

    def start(self):
        conf = self.conf
        for group, opts in auth_token.AUTH_TOKEN_OPTS:
            conf.register_opts(opts, group=group)
        self.handles['identity'] = service.start(
            'identity', conf, port=0 if self.free_ports else None)
        auth = {'auth_type': 'password', 'auth_url': self.auth_url,
                'www_authenticate_uri': self.auth_url,
                'username': self.service_user,
                'password': conf.peers.admin_password,
                'project_name': 'service', 'user_domain_name': 'Default',
                'project_domain_name': 'Default'}
        # The password plugin's options, registered as keystonemiddleware
        # itself would when it loads the plugin.
        conf.register_opts(ks_loading.get_auth_plugin_conf_options(
            'password'), group='keystone_authtoken')
        for key, value in auth.items():
            conf.set_override(key, value, group='keystone_authtoken')
        for name in self.services:
            self.handles[name] = service.start(
                name, conf, port=0 if self.free_ports else None)
        self.register_endpoints({
            stype: self.url(name) + URL_SUFFIX.get(name, '')
            for name in self.services for stype in CATALOG_TYPES[name]})
        LOG.info('Stand-ins running: %s', {n: h.url for n, h in
                                           self.handles.items()})
        return self

    def register_endpoints(self, endpoints):
        """Add or replace catalog entries {service type: url}."""
        store = identity.make_store(self.conf.peers.connection)
        try:
            identity.set_endpoints(store, endpoints)
        finally:
            store.dispose()

    def stop(self):
        for name in reversed(list(self.handles)):
            self.handles.pop(name).stop()
