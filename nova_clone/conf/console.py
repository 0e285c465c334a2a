"""[vnc], [spice], [serial_console] and [consoleauth] options: which
remote consoles a compute offers, where their proxies are, and how long
a console token lives."""

from oslo_config import cfg

vnc_group = cfg.OptGroup('vnc', title='VNC consoles')
spice_group = cfg.OptGroup('spice', title='SPICE consoles')
serial_group = cfg.OptGroup('serial_console', title='Serial consoles')
consoleauth_group = cfg.OptGroup('consoleauth',
                                 title='Console authorization')

vnc_opts = [
    cfg.BoolOpt('enabled', default=True,
                help='Offer VNC consoles of the guests.'),
    cfg.URIOpt('novncproxy_base_url',
               default='http://127.0.0.1:6080/vnc_lite.html',
               help='Public URL of the noVNC proxy; a console URL is it '
                    'with the token added.'),
    cfg.StrOpt('server_proxyclient_address', default='127.0.0.1',
               help='Address of this compute that the VNC proxy '
                    'connects to.'),
]

spice_opts = [
    cfg.BoolOpt('enabled', default=False,
                help='Offer SPICE consoles of the guests.'),
    cfg.URIOpt('html5proxy_base_url',
               default='http://127.0.0.1:6082/spice_auto.html',
               help='Public URL of the SPICE HTML5 proxy.'),
    cfg.StrOpt('server_proxyclient_address', default='127.0.0.1',
               help='Address of this compute that the SPICE proxy '
                    'connects to.'),
]

serial_opts = [
    cfg.BoolOpt('enabled', default=False,
                help='Offer serial consoles of the guests.'),
    cfg.URIOpt('base_url', default='ws://127.0.0.1:6083/',
               help='Public URL of the serial console proxy.'),
    cfg.StrOpt('proxyclient_address', default='127.0.0.1',
               help='Address of this compute that the serial proxy '
                    'connects to.'),
]

consoleauth_opts = [
    cfg.IntOpt('token_ttl', default=600, min=0,
               help='Seconds a console token stays valid.'),
]


def register_opts(conf):
    for group, opts in list_opts().items():
        conf.register_group(group)
        conf.register_opts(opts, group=group)


def list_opts():
    return {vnc_group: vnc_opts, spice_group: spice_opts,
            serial_group: serial_opts, consoleauth_group: consoleauth_opts}
