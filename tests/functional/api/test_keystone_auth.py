"""nova-api with [api] auth_strategy = keystone: keystonemiddleware's
auth_token validating real tokens issued by the identity stand-in, served
over a real socket."""

import os
import shutil
import tempfile

from keystoneauth1 import loading as ks_loading
from oslo_config import cfg
import pytest
import requests

from nova_clone.api import app as api_app
from nova_clone.peers import identity
from nova_clone import wsgi_server

PASSWORD = 'secret-for-tests'


@pytest.fixture(scope='module')
def keystone_api(bed):
    tmp = tempfile.mkdtemp(prefix='nc_api_ks_')
    store = identity.make_store('sqlite:///%s' % os.path.join(
        tmp, 'identity.sqlite'))
    identity.bootstrap(store, PASSWORD)

    class _Conf(object):
        class peers(object):
            token_expiration = 3600
    ident = wsgi_server.serve(identity.make_app(_Conf, store=store),
                              '127.0.0.1', 0, name='identity-test')
    auth_url = ident.url + '/v3'
    # keystonemiddleware finds the identity endpoint in the catalog.
    identity.set_endpoints(store, {'identity': auth_url})
    api = wsgi_server.serve(api_app.make_app(_keystone_conf(auth_url)),
                            '127.0.0.1', 0, name='nova-api-test')
    yield {'api': api.url, 'auth_url': auth_url}
    api.stop()
    ident.stop()
    shutil.rmtree(tmp, ignore_errors=True)


def _keystone_conf(auth_url):
    """A private ConfigOpts, so the process-wide CONF other tests share is
    left untouched."""
    from keystonemiddleware.auth_token import _opts as ksm_opts
    from nova_clone.conf import api as api_conf
    conf = cfg.ConfigOpts()
    api_conf.register_opts(conf)
    group = 'keystone_authtoken'
    for name, opts in ksm_opts.list_opts():
        conf.register_opts(opts, group=name)
    ks_loading.register_auth_conf_options(conf, group)
    conf([], project='nova-api-test', default_config_files=[],
         default_config_dirs=[])
    # Plugin options after parsing: they are required, set just below.
    plugin = ks_loading.get_plugin_loader('password')
    conf.register_opts(ks_loading.get_auth_plugin_conf_options(plugin),
                       group=group)
    conf.set_override('auth_strategy', 'keystone', group='api')
    for key, value in {'auth_type': 'password', 'auth_url': auth_url,
                       'username': 'nova', 'password': PASSWORD,
                       'project_name': 'service',
                       'user_domain_name': 'Default',
                       'project_domain_name': 'Default',
                       'www_authenticate_uri': auth_url}.items():
        conf.set_override(key, value, group=group)
    return conf


def _token(auth_url, user, project):
    body = {'auth': {'identity': {'methods': ['password'], 'password': {
        'user': {'name': user, 'domain': {'id': 'default'},
                 'password': PASSWORD}}},
        'scope': {'project': {'name': project,
                              'domain': {'id': 'default'}}}}}
    reply = requests.post(auth_url + '/auth/tokens', json=body, timeout=10)
    assert reply.status_code == 201, reply.text
    return reply.headers['X-Subject-Token'], reply.json()['token']


def test_valid_token_is_accepted(keystone_api):
    token, info = _token(keystone_api['auth_url'], 'demo', 'demo')
    project = info['project']['id']
    reply = requests.get('%s/v2.1/limits' % keystone_api['api'],
                         headers={'X-Auth-Token': token}, timeout=10)
    assert reply.status_code == 200, reply.text
    assert 'absolute' in reply.json()['limits']
    reply = requests.get('%s/v2.1/%s/flavors' % (keystone_api['api'],
                                                 project),
                         headers={'X-Auth-Token': token}, timeout=10)
    assert reply.status_code == 200, reply.text


def test_roles_come_from_the_token(keystone_api):
    demo, _info = _token(keystone_api['auth_url'], 'demo', 'demo')
    admin, _info = _token(keystone_api['auth_url'], 'admin', 'admin')
    url = '%s/v2.1/os-services' % keystone_api['api']
    assert requests.get(url, headers={'X-Auth-Token': demo},
                        timeout=10).status_code == 403
    assert requests.get(url, headers={'X-Auth-Token': admin},
                        timeout=10).status_code == 200


def test_bad_or_missing_token_is_401(keystone_api):
    url = '%s/v2.1/flavors' % keystone_api['api']
    assert requests.get(url, headers={'X-Auth-Token': 'garbage'},
                        timeout=10).status_code == 401
    assert requests.get(url, timeout=10).status_code == 401
    # Version documents need no token.
    assert requests.get(keystone_api['api'] + '/',
                        timeout=10).status_code == 200
