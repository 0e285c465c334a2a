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


def register_opts(conf):
    oslo_db_options.set_defaults(conf)
    conf.register_group(api_db_group)
    conf.register_opts(API_DB_OPTS, group=api_db_group)


def list_opts():
    return {'database': oslo_db_options.database_opts,
            api_db_group: API_DB_OPTS}
