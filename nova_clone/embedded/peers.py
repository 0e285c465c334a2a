"""The embedded cloud's peers: identity, Placement and the Glance,
Neutron and Cinder stand-ins, each a WSGI app on its own listener.

A mixin of EmbeddedCloud (nova_clone.embedded.cloud), which owns
the listeners (``self.slots``), the layout and the credentials.
"""

from oslo_log import log as logging

from nova_clone.embedded import config as embedded_config
from nova_clone.peers import cinder
from nova_clone.peers import glance
from nova_clone.peers import identity
from nova_clone.peers import neutron
from nova_clone.peers import neutron_events

LOG = logging.getLogger(__name__)

STAND_INS = {'glance': glance, 'neutron': neutron, 'cinder': cinder}


class PeersMixin:
    """Start-up of the services nova talks to."""

    def _catalog(self):
        return {
            'identity': self.urls['identity'],
            'compute': self.urls['compute'],
            'placement': self.urls['placement'],
            'image': self.urls['image'],
            'network': self.urls['network'],
            'volumev3': self.urls['volumev3'],
            'block-storage': self.urls['volumev3'],
        }

    def _peer_conf(self, name, extra=None):
        conf = embedded_config.peer_conf(
            name, self.layout, self.urls, self.creds, self.host,
            self.ports[name], extra=extra)
        self.peer_confs[name] = conf
        return conf

    def _start_identity(self):
        store = identity.make_store(self.layout.identity_db)
        self.peer_stores.append(store)
        identity.bootstrap(store, self.creds['admin_password'],
                           endpoints=self._catalog())
        conf = self._peer_conf('identity')
        self.slots['identity'].app = identity.make_app(conf, store=store)

    def _start_placement(self):
        from nova_clone.embedded import placement as embedded_placement
        auth = embedded_config.service_auth(
            self.urls['identity'], 'placement', self.creds['service_password'])
        auth['www_authenticate_uri'] = self.urls['identity']
        self.slots['placement'].app = embedded_placement.make_app(
            self.layout.placement_db, auth=auth)

    def _start_peers(self):
        for name, module in STAND_INS.items():
            extra = {}
            kwargs = {}
            if name == 'neutron':
                nova_auth = embedded_config.service_auth(
                    self.urls['identity'], 'neutron',
                    self.creds['service_password'])
                nova_auth['endpoint_override'] = self.urls['compute']
                extra = {'nova': nova_auth,
                         'peers': dict(self.neutron_overrides)}
            conf = self._peer_conf(name, extra=extra)
            store = module.make_store(conf.peers.connection)
            store.create_all()
            self.peer_stores.append(store)
            if name == 'neutron':
                kwargs['notifier'] = neutron_events.NovaNotifier(conf)
                self.neutron_notifier = kwargs['notifier']
            app = module.make_app(conf, store=store, **kwargs)
            self.slots[name].app = app
            if name == 'neutron':
                self.neutron_app = _find_app(app, neutron.NeutronApp)

    def set_send_vif_plugged(self, value):
        """Switch the Neutron stand-in's network-vif-plugged events."""
        self.peer_confs['neutron'].set_override('send_vif_plugged', value,
                                                group='peers')
        if self.neutron_app is not None:
            self.neutron_app.send_vif_plugged = value


def _find_app(app, cls, depth=8):
    """The ``cls`` instance inside a chain of WSGI middleware, or None."""
    seen = set()
    todo = [(app, 0)]
    while todo:
        obj, level = todo.pop()
        if isinstance(obj, cls):
            return obj
        if id(obj) in seen or level >= depth:
            continue
        seen.add(id(obj))
        for attr in ('application', 'app', '_app', 'protected', 'public'):
            inner = getattr(obj, attr, None)
            if inner is not None and not isinstance(inner, (str, set)):
                todo.append((inner, level + 1))
    return None
