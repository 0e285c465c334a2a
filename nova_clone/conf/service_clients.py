"""[placement], [neutron], [cinder], [glance], [service_user] options.

Each group carries keystoneauth1's auth, session and adapter options, so a
service user and endpoint are configured exactly as for Nova.
"""

from keystoneauth1 import loading as ks_loading
from oslo_config import cfg

SERVICE_TYPES = {
    'placement': 'placement',
    'neutron': 'network',
    'cinder': 'block-storage',
    'glance': 'image',
}

extra_opts = {
    'neutron': [
        cfg.StrOpt('default_floating_pool', default='nova',
                   help='Pool used when none is named.'),
        cfg.BoolOpt('service_metadata_proxy', default=False,
                    help='Neutron proxies metadata requests.'),
        cfg.IntOpt('http_retries', default=3, min=0,
                   help='Retries of idempotent Neutron calls.'),
    ],
    'cinder': [
        cfg.StrOpt('catalog_info', default='volumev3::publicURL',
                   help='service_type:service_name:endpoint_type of Cinder '
                        'in the catalog.'),
        cfg.StrOpt('os_region_name', help='Region of Cinder.'),
        cfg.IntOpt('http_retries', default=3, min=0,
                   help='Retries of idempotent Cinder calls.'),
        cfg.BoolOpt('cross_az_attach', default=True,
                    help='Allow attaching a volume from another zone.'),
    ],
    'glance': [
        cfg.IntOpt('num_retries', default=3, min=0,
                   help='Retries when downloading an image.'),
        cfg.BoolOpt('verify_glance_signatures', default=False,
                    help='Verify image signatures.'),
    ],
    'placement': [],
}

service_user_group = cfg.OptGroup('service_user', title='Service user')
service_user_opts = [
    cfg.BoolOpt('send_service_user_token', default=False,
                help='Send a service token along with the user token.'),
]


def _ksa_opts(group):
    opts = (ks_loading.get_session_conf_options() +
            ks_loading.get_auth_common_conf_options() +
            ks_loading.get_auth_plugin_conf_options('password') +
            ks_loading.get_adapter_conf_options(include_deprecated=False))
    seen, unique = set(), []
    for opt in opts:
        if opt.dest not in seen:
            seen.add(opt.dest)
            unique.append(opt)
    return unique


def register_opts(conf):
    for group, opts in extra_opts.items():
        conf.register_group(cfg.OptGroup(group))
        conf.register_opts(opts, group=group)
        ks_loading.register_session_conf_options(conf, group)
        ks_loading.register_auth_conf_options(conf, group)
        ks_loading.register_adapter_conf_options(
            conf, group, include_deprecated=False)
        conf.set_default('service_type', SERVICE_TYPES[group], group=group)
    conf.register_group(service_user_group)
    conf.register_opts(service_user_opts, group=service_user_group)
    ks_loading.register_session_conf_options(conf, 'service_user')
    ks_loading.register_auth_conf_options(conf, 'service_user')


def list_opts():
    result = {group: opts + _ksa_opts(group)
              for group, opts in extra_opts.items()}
    result[service_user_group] = service_user_opts + _ksa_opts('service_user')
    return result
