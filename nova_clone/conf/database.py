"""[database] (the cell database) and [api_database] options.

Both groups take oslo.db's option set, so ``connection``, ``max_pool_size``
and friends are spelled exactly as in a Nova config file.
"""

import copy

from oslo_config import cfg
from oslo_db import options as oslo_db_options

api_db_group = cfg.OptGroup('api_database', title='API database options',
                            help='The database of the API-level services.')


def _api_db_opts():
    return [copy.deepcopy(o) for o in oslo_db_options.database_opts]


API_DB_OPTS = _api_db_opts()


# oslo.db keeps 5 pooled connections; a conductor serving a boot storm
# runs dozens of object calls at once and would open (and TLS-negotiate) a
# fresh connection for most of them.
MAX_POOL_SIZE = 20


def register_opts(conf):
    oslo_db_options.set_defaults(conf, max_pool_size=MAX_POOL_SIZE)
    conf.register_group(api_db_group)
    conf.register_opts(API_DB_OPTS, group=api_db_group)
    conf.set_default('max_pool_size', MAX_POOL_SIZE, group=api_db_group)


def _with_our_defaults(opts):
    # The sample file shows what register_opts() sets, not oslo.db's own.
    out = [copy.deepcopy(o) for o in opts]
    for opt in out:
        if opt.dest == 'max_pool_size':
            opt.default = MAX_POOL_SIZE
    return out


def list_opts():
    return {'database': _with_our_defaults(oslo_db_options.database_opts),
            api_db_group: _with_our_defaults(API_DB_OPTS)}
