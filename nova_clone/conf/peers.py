"""[peers] options of the Glance, Neutron and Cinder stand-ins (nova_clone.peers)."""

from oslo_config import cfg

peers_group = cfg.OptGroup('peers', title='Stand-in peer services')

peers_opts = [
    cfg.StrOpt('connection', default='sqlite:///$state_path/peers.sqlite',
               help='SQLAlchemy URL where the stand-ins keep their state.'),
    cfg.StrOpt('listen', default='127.0.0.1', help='Address they listen on.'),
    cfg.PortOpt('glance_port', default=9292, help='Image service port.'),
    cfg.PortOpt('neutron_port', default=9696, help='Network service port.'),
    cfg.PortOpt('cinder_port', default=8776, help='Volume service port.'),
]


def register_opts(conf):
    conf.register_group(peers_group)
    conf.register_opts(peers_opts, group=peers_group)


def list_opts():
    return {peers_group: peers_opts}
