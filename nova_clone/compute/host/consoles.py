"""Remote consoles on the instance's compute: the driver says where the
guest's console is, a ConsoleAuthToken records it for the console proxy,
and the answer carries the proxy URL with the token."""

from oslo_log import log as logging

from nova_clone.conf import CONF
from nova_clone import exception

LOG = logging.getLogger(__name__)


def _objects():
    from nova_clone import objects
    return objects


# protocol -> (its [group], the types it serves, the option with the
# proxy's base URL, the driver method)
_PROTOCOLS = {
    'vnc': ('vnc', ('novnc',), 'novncproxy_base_url', 'get_vnc_console'),
    'spice': ('spice', ('spice-html5',), 'html5proxy_base_url',
              'get_spice_console'),
    'serial': ('serial_console', ('serial',), 'base_url',
               'get_serial_console'),
}


def get_console(collab, context, protocol, console_type, instance):
    """connect info of one console of ``instance``."""
    group, types, url_option, method = _PROTOCOLS[protocol]
    conf = getattr(CONF, group)
    if not conf.enabled:
        raise exception.ConsoleTypeUnavailable(console_type=console_type)
    if console_type not in types:
        raise exception.ConsoleTypeInvalid(console_type=console_type)
    console = getattr(collab.driver, method)(context, instance)
    token = _objects().ConsoleAuthToken(
        context=context, console_type=console_type, host=console.host,
        port=console.port, tls_port=console.tls_port,
        internal_access_path=console.internal_access_path,
        instance_uuid=instance.uuid,
        access_url_base=getattr(conf, url_option))
    token.authorize(CONF.consoleauth.token_ttl)
    LOG.debug('Console %s of %s authorized', console_type, instance.uuid)
    return console.get_connection_info(token.token, token.access_url)
