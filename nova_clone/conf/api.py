"""[api] options of nova-api."""

from oslo_config import cfg

api_group = cfg.OptGroup('api', title='API options')

api_opts = [
    cfg.StrOpt('auth_strategy', default='keystone',
               choices=['keystone', 'noauth2'],
               help='keystone validates tokens with keystonemiddleware; '
                    'noauth2 trusts the identity stand-in of the embedded '
                    'mode and must never face a real network.'),
    cfg.IntOpt('max_limit', default=1000, min=0,
               help='Largest number of items a list call returns.'),
    cfg.StrOpt('compute_link_prefix',
               help='Base URL put in the links of responses instead of the '
                    'request host.'),
    cfg.BoolOpt('instance_list_per_project_cells', default=False,
                help='Only query the cells where the project has instances.'),
    cfg.BoolOpt('list_records_by_skipping_down_cells', default=True,
                help='A server list leaves out the servers of a cell that '
                     'fails or does not answer in time; when False, such a '
                     'list fails with a 500 instead.  From microversion '
                     '2.69 a list with no filter but all_tenants, no '
                     'sorting and no paging shows those servers as partial '
                     'records (status UNKNOWN) whatever this says.'),
]

api_opts += [
    cfg.BoolOpt('enable_instance_password', default=True,
                help='Return an adminPass in the create and rebuild '
                     'responses.'),
    cfg.IntOpt('request_body_timeout', default=30, min=1,
               help='Seconds a request body may stop arriving: then the '
                    'request gets a 400 and its connection closes, instead '
                    'of holding a server thread.'),
    cfg.BoolOpt('use_forwarded_for', default=False,
                help='Trust X-Forwarded-For as the client address; only '
                     'behind a proxy that sets it.'),
]


def register_opts(conf):
    conf.register_group(api_group)
    conf.register_opts(api_opts, group=api_group)


def list_opts():
    return {api_group: api_opts}
