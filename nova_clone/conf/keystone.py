"""[keystone_authtoken] (keystonemiddleware) and [keystone] options."""

from keystoneauth1 import loading as ks_loading
from keystonemiddleware import auth_token  # noqa: F401  registers its group
from oslo_config import cfg

keystone_group = cfg.OptGroup('keystone', title='Identity service client')


def register_opts(conf):
    conf.register_group(keystone_group)
    ks_loading.register_session_conf_options(conf, 'keystone')
    ks_loading.register_auth_conf_options(conf, 'keystone')
    ks_loading.register_adapter_conf_options(conf, 'keystone',
                                             include_deprecated=False)
    conf.set_default('service_type', 'identity', group='keystone')


def list_opts():
    return {keystone_group: (ks_loading.get_session_conf_options() +
                             ks_loading.get_adapter_conf_options(
                                 include_deprecated=False))}
