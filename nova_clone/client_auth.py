"""keystoneauth1 adapters for nova's clients of Glance, Neutron and Cinder.

A user's call travels with the user's own token (``ctx.auth_token``) and
finds the service in the catalog the request brought
(``ctx.service_catalog``) unless the group sets ``endpoint_override``; an
admin call (or a context without a token, as in periodic tasks) uses the
group's service user (``[glance]``/``[neutron]``/``[cinder]`` auth
options).  Used by nova_clone.image.glance, nova_clone.network.neutron and
nova_clone.volume.cinder.
"""

import os
import threading
from urllib import parse as urlparse

from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import loading as ks_loading
from keystoneauth1 import plugin
from oslo_log import log as logging
import requests
from requests import sessions as req_sessions
from requests import utils as req_utils

from nova_clone import exception

LOG = logging.getLogger(__name__)

_SESSIONS = {}
_SERVICE_AUTH = {}
_LOCK = threading.Lock()

_INTERFACES = {'public': 'publicURL', 'internal': 'internalURL',
               'admin': 'adminURL'}


class ContextAuthPlugin(plugin.BaseAuthPlugin):
    """The user's token, with endpoints from the request's catalog."""

    def __init__(self, token, catalog, fallback=None):
        super().__init__()
        self.token = token
        self.catalog = catalog or []
        # Where to look the endpoint up when the request's catalog lacks it
        # (a context built without one): the service user's catalog.
        self.fallback = fallback

    def get_token(self, session, **kwargs):
        return self.token

    def get_endpoint(self, session, service_type=None, interface=None,
                     region_name=None, service_name=None, **kwargs):
        interfaces = interface or ['public']
        if isinstance(interfaces, str):
            interfaces = [interfaces]
        types = [service_type] if isinstance(service_type, str) else list(
            service_type or [])
        for wanted in interfaces:
            wanted = wanted.replace('URL', '')
            for entry in self.catalog:
                if entry.get('type') not in types:
                    continue
                for ep in entry.get('endpoints', []):
                    if region_name and ep.get('region', ep.get(
                            'region_id')) not in (region_name, None):
                        continue
                    # Both the v3 shape and the v2 one keystonemiddleware
                    # puts in X-Service-Catalog.
                    if ep.get('interface') == wanted and ep.get('url'):
                        return ep['url']
                    if ep.get(_INTERFACES.get(wanted, '')):
                        return ep[_INTERFACES[wanted]]
        if self.fallback is not None:
            return self.fallback.get_endpoint(
                session, service_type=service_type, interface=interface,
                region_name=region_name, service_name=service_name, **kwargs)
        return None

    def get_project_id(self, session, **kwargs):
        return None

    def invalidate(self):
        return False


class _NoNetrcEntry(requests.auth.AuthBase):
    """Stands for "no ~/.netrc entry for this host" (changes nothing)."""

    def __call__(self, request):
        return request


_NO_NETRC_ENTRY = _NoNetrcEntry()


class _EnvProxiesOnce(requests.Session):
    """requests' Session that reads the proxy environment and ~/.netrc
    once per host.

    requests looks the proxies up in the environment on every call (the
    whole of os.environ, twice, plus the no_proxy matching), and stats
    ~/.netrc: about a third of the CPU of a call to a peer.  A running
    process's environment does not change under it, so the answer for a
    (scheme, host, no_proxy) is kept; everything else is requests' own
    merge.
    """

    _env_proxies = {}
    _netrc = {}

    def prepare_request(self, request):
        if self.trust_env and not request.auth and not self.auth:
            host = urlparse.urlsplit(request.url).netloc
            if host not in self._netrc:
                self._netrc[host] = req_utils.get_netrc_auth(request.url)
            request.auth = self._netrc[host] or _NO_NETRC_ENTRY
        return super().prepare_request(request)

    def merge_environment_settings(self, url, proxies, stream, verify,
                                   cert):
        if not self.trust_env:
            return super().merge_environment_settings(url, proxies, stream,
                                                      verify, cert)
        no_proxy = proxies.get('no_proxy') if proxies is not None else None
        parts = urlparse.urlsplit(url)
        key = (parts.scheme, parts.netloc, no_proxy)
        env_proxies = self._env_proxies.get(key)
        if env_proxies is None:
            env_proxies = req_utils.get_environ_proxies(url,
                                                        no_proxy=no_proxy)
            self._env_proxies[key] = env_proxies
        if proxies is not None:
            for name, value in env_proxies.items():
                proxies.setdefault(name, value)
        if verify is True or verify is None:
            verify = (os.environ.get('REQUESTS_CA_BUNDLE') or
                      os.environ.get('CURL_CA_BUNDLE') or verify)
        merge = req_sessions.merge_setting
        return {'proxies': merge(proxies, self.proxies),
                'stream': merge(stream, self.stream),
                'verify': merge(verify, self.verify),
                'cert': merge(cert, self.cert)}


def _session(group):
    with _LOCK:
        if group not in _SESSIONS:
            from nova_clone.conf import CONF
            session = ks_loading.load_session_from_conf_options(CONF, group)
            # The requests session keystoneauth built (its adapters and
            # all), with the proxy lookup above.
            if type(session.session) is requests.Session:
                session.session.__class__ = _EnvProxiesOnce
            _SESSIONS[group] = session
        return _SESSIONS[group]


def service_auth(group):
    """The group's service-user auth plugin (None when not configured)."""
    with _LOCK:
        if group not in _SERVICE_AUTH:
            from nova_clone.conf import CONF
            _SERVICE_AUTH[group] = ks_loading.load_auth_from_conf_options(
                CONF, group)
        return _SERVICE_AUTH[group]


def reset():
    """Forget cached sessions and auth (tests, config reloads)."""
    with _LOCK:
        _SESSIONS.clear()
        _SERVICE_AUTH.clear()


def get_adapter(group, context=None, admin=False, **overrides):
    """An Adapter for ``group`` acting for the user or the service user."""
    from nova_clone.conf import CONF
    token = getattr(context, 'auth_token', None)
    if admin or not token:
        auth = service_auth(group)
        if auth is None:
            if token:
                auth = ContextAuthPlugin(token, getattr(
                    context, 'service_catalog', None))
            else:
                raise exception.NovaException(
                    'No credentials to reach %s: set the [%s] auth options.'
                    % (group, group))
    else:
        auth = getattr(context, 'user_auth_plugin', None) or \
            ContextAuthPlugin(token, getattr(context, 'service_catalog',
                                             None),
                              fallback=service_auth(group))
    # One request id across the services: the peers log the caller's
    # (X-OpenStack-Request-ID), as Placement's client already sends it.
    global_id = getattr(context, 'global_id', None)
    if global_id:
        overrides.setdefault('global_request_id', global_id)
    return ks_loading.load_adapter_from_conf_options(
        CONF, group, session=_session(group), auth=auth, **overrides)


def request(adapter, method, url, **kwargs):
    """Call the service; connection failures become NovaException."""
    kwargs.setdefault('raise_exc', False)
    try:
        return adapter.request(url, method, **kwargs)
    except ks_exc.EndpointNotFound as exc:
        raise exception.NovaException(
            'Cannot find the %s endpoint: %s' % (adapter.service_type, exc))
    except ks_exc.ConnectFailure as exc:
        raise exception.NovaException(
            'Cannot reach the %s service: %s' % (adapter.service_type, exc))
    except ks_exc.ClientException as exc:
        raise exception.NovaException(
            'Call to the %s service failed: %s' % (adapter.service_type,
                                                   exc))


def error_message(resp):
    """The human part of a peer's error body, whatever its shape."""
    try:
        body = resp.json()
    except ValueError:
        return (resp.text or '').strip()[:500]
    if isinstance(body, dict):
        for value in body.values():
            if isinstance(value, dict) and value.get('message'):
                return value['message']
        if body.get('message'):
            return body['message']
    return str(body)[:500]
