"""Options of the stand-in peer services (nova_clone.peers).

A stand-in process (``python -m nova_clone.peers SERVICE --config-file F``)
reads, from its own config file:

``[peers]``
    ``connection`` (SQLAlchemy URL of its state), ``listen``, the port of
    the service it runs (``identity_port``, ``glance_port``,
    ``neutron_port``, ``cinder_port``), ``data_dir`` (image files and
    volume backing files), and for Neutron the network-event options
    (``send_vif_plugged``, ``vif_event_delay``, ``vif_event_retries``).
    The identity stand-in also reads ``admin_password``, ``endpoint``
    (``TYPE=URL``, repeatable: the catalog) and ``token_expiration``.
``[keystone_authtoken]``
    keystonemiddleware's options: how the stand-in validates tokens.
``[nova]``
    keystoneauth1 auth, session and adapter options (``auth_url``,
    ``username``, ``password``, ``project_name``, ``user_domain_name``,
    ``project_domain_name``, ``endpoint_override`` ...): how the Neutron
    stand-in reaches nova-api to send ``os-server-external-events``.
``[DEFAULT]``
    oslo.log's options (``log_file``, ``debug``).

They are registered only where a stand-in runs, never on nova's own
options: nova.conf and its sample (etc/nova/nova.conf.sample) hold Nova's
options alone.  ``oslo-config-generator --namespace nova_clone.peers``
lists them.  The embedded mode sets them in code for each stand-in
(nova_clone.embedded.config.peer_conf).
"""

from keystoneauth1 import loading as ks_loading
from oslo_config import cfg

peers_group = cfg.OptGroup('peers', title='Stand-in peer services')
nova_group = cfg.OptGroup('nova', title='How the Neutron stand-in reaches '
                                        'Nova for external events')

peers_opts = [
    cfg.StrOpt('connection', default='sqlite:///$state_path/peers.sqlite',
               help='SQLAlchemy URL where the stand-ins keep their state.'),
    cfg.StrOpt('listen', default='127.0.0.1', help='Address they listen on.'),
    cfg.PortOpt('identity_port', default=5000,
                help='Identity stand-in port (embedded mode only).'),
    cfg.PortOpt('glance_port', default=9292, help='Image service port.'),
    cfg.PortOpt('neutron_port', default=9696, help='Network service port.'),
    cfg.PortOpt('cinder_port', default=8776, help='Volume service port.'),
    cfg.StrOpt('data_dir',
               help='Where image data and volume backing files live. '
                    'Default: "peers-data" next to the SQLite file, or '
                    'under state_path.'),
    cfg.BoolOpt('send_vif_plugged', default=True,
                help='Neutron stand-in: send network-vif-plugged when a '
                     'port gets bound. False lets tests exercise '
                     'vif_plugging_timeout.'),
    cfg.FloatOpt('vif_event_delay', default=0.2, min=0,
                 help='Neutron stand-in: seconds between a port change and '
                      'the event sent to Nova.'),
    cfg.IntOpt('vif_event_retries', default=3, min=0,
               help='Neutron stand-in: retries of an event POST.'),
    cfg.StrOpt('admin_password', default='admin', secret=True,
               help='Identity stand-in: password of every bootstrap user.'),
    cfg.MultiStrOpt('endpoint', default=[],
                    help='Identity stand-in: catalog entries, TYPE=URL '
                         '(e.g. image=http://127.0.0.1:9292). '
                         '"%(project_id)s" in a URL is replaced with the '
                         'token\'s project.'),
    cfg.IntOpt('token_expiration', default=3600, min=60,
               help='Identity stand-in: token lifetime in seconds.'),
]


def register_opts(conf):
    conf.register_group(peers_group)
    conf.register_opts(peers_opts, group=peers_group)
    conf.register_group(nova_group)
    ks_loading.register_session_conf_options(conf, 'nova')
    ks_loading.register_auth_conf_options(conf, 'nova')
    ks_loading.register_adapter_conf_options(conf, 'nova',
                                             include_deprecated=False)
    conf.set_default('service_type', 'compute', group='nova')


def list_opts():
    """For oslo-config-generator (namespace ``nova_clone.peers``)."""
    return [
        (peers_group, peers_opts),
        (nova_group, (ks_loading.get_session_conf_options() +
                      ks_loading.get_adapter_conf_options(
                          include_deprecated=False))),
    ]
