"""Config files of the Glance, Neutron and Cinder stand-ins of a stack.

Each stand-in (``python -m nova_clone.peers SERVICE --config-file F``)
gets a file of its own: its state in the stack's ``peers`` database, its
port, token validation against the stack's Keystone with its own service
user, and (read by Neutron) how to reach nova-api with external events.
"""

import os

from nova_clone.stack import ini as stack_ini

PEERS = ('glance', 'neutron', 'cinder')


def conf_path(layout, peer):
    return os.path.join(layout.etc_dir, 'peers', '%s.conf' % peer)


def write_conf(layout, peer):
    return stack_ini.write(conf_path(layout, peer), {
        'DEFAULT': {'debug': layout.debug, 'state_path': layout.path('peers')},
        'peers': {
            'connection': layout.db_url(peer),
            'listen': layout.host_ip,
            'glance_port': layout.ports['glance'],
            'neutron_port': layout.ports['neutron'],
            'cinder_port': layout.ports['cinder'],
            'data_dir': layout.path('peers', 'data'),
        },
        'keystone_authtoken': stack_ini.authtoken(layout, peer),
        'nova': stack_ini.service_auth(
            layout, peer,
            endpoint_override=layout.url('nova-api') + '/v2.1'),
    })
