"""The real Placement service (``openstack-placement``) inside this process.

Placement keeps its options in a ConfigOpts of its own, separate from
nova's CONF, and its database in a SQLite file of the state directory,
created by Placement's own alembic migrations on start.  Its enginefacade
is process-wide; a second cloud in the same process (tests) with another
state directory gets its engine patched in instead of re-configuring.
"""

from oslo_config import cfg
from oslo_log import log as logging

LOG = logging.getLogger(__name__)

# The connection URL the process-wide Placement engine serves, and the
# callable undoing an engine patch (see _bind_database).
_BOUND = {'url': None, 'reset': None}


def make_conf(connection, auth=None):
    """Placement's own ConfigOpts.

    ``auth`` holds [keystone_authtoken] values (auth_url, username,
    password, ...) for keystonemiddleware; None selects noauth2.
    """
    from keystoneauth1 import loading as ks_loading
    from keystonemiddleware.auth_token import _opts as ksm_opts
    from placement import conf as placement_conf

    conf = cfg.ConfigOpts()
    placement_conf.register_opts(conf)
    # Required option: give it a value before parsing checks for it.
    conf.set_default('connection', connection, group='placement_database')
    conf([], project='placement', default_config_files=[],
         default_config_dirs=[])
    conf.set_override('connection', connection, group='placement_database')
    conf.set_override('sync_on_startup', True, group='placement_database')
    if auth is None:
        conf.set_override('auth_strategy', 'noauth2', group='api')
        return conf
    conf.set_override('auth_strategy', 'keystone', group='api')
    for group, opts in ksm_opts.list_opts():
        conf.register_opts(opts, group=group)
    ks_loading.register_auth_conf_options(conf, 'keystone_authtoken')
    plugin = ks_loading.get_plugin_loader(auth.get('auth_type', 'password'))
    conf.register_opts(ks_loading.get_auth_plugin_conf_options(plugin),
                       group='keystone_authtoken')
    for key, value in auth.items():
        conf.set_override(key, value, group='keystone_authtoken')
    return conf


def _bind_database(conf):
    """Point Placement's process-wide engine at this conf's database."""
    from oslo_db.sqlalchemy import engines
    from placement import db_api
    from placement.objects import resource_class
    from placement.objects import trait

    url = conf.placement_database.connection
    if _BOUND['url'] == url:
        return
    if _BOUND['reset'] is not None:
        _BOUND['reset']()
        _BOUND['reset'] = None
    if not db_api.configure.called:
        db_api.configure(conf)
        _serialize_sqlite_writers(
            db_api.placement_context_manager.writer.get_engine())
    elif url != _BOUND.get('configured'):
        engine = engines.create_engine(url)
        _serialize_sqlite_writers(engine)
        _BOUND['reset'] = db_api.placement_context_manager.patch_engine(
            engine)
    _BOUND.setdefault('configured', url)
    _BOUND['url'] = url
    # Standard traits and resource classes are synced once per database.
    trait._TRAITS_SYNCED = False
    resource_class._RESOURCE_CLASSES_SYNCED = False


def _serialize_sqlite_writers(engine):
    """Give Placement's SQLite engine the tuning of our own SQLite files.

    Placement reads, checks generations, then writes in one transaction;
    on SQLite two such transactions fail at once with "database is locked"
    when both try to upgrade to a write lock.  Starting every transaction
    with BEGIN IMMEDIATE makes them queue (busy timeout) instead.
    """
    from nova_clone.db import facade

    if engine.dialect.name != 'sqlite':
        return
    facade.tune_sqlite_connections(engine)
    facade.serialize_sqlite_writes(engine)
    # Connections opened before the listeners existed lack the pragmas.
    engine.dispose()


def make_app(connection, auth=None):
    """Placement's WSGI app on ``connection``, its schema brought to head."""
    from placement import deploy

    conf = make_conf(connection, auth)
    _bind_database(conf)
    app = deploy.loadapp(conf)
    LOG.debug('Placement ready on %s', connection)
    return app
