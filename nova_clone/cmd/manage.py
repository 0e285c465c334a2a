"""nova-manage: database schemas and the cells v2 layout.

    nova-manage [--config-file F] api_db sync [VERSION] | api_db version
    nova-manage db sync [VERSION] [--local_cell] | db version
    nova-manage cell_v2 map_cell0 | create_cell | list_cells | delete_cell |
                        update_cell | discover_hosts | list_hosts

Exit codes follow Nova's; every failure prints one line, never a
traceback.
"""

import re
import sys
import warnings

# Library import-time deprecation chatter must not reach an operator's
# terminal: oslo.db pulls in futurist, which imports eventlet, which warns
# (and installs an "always" filter, hence the catch_warnings block).
with warnings.catch_warnings():
    warnings.simplefilter('ignore')
    try:
        import eventlet  # noqa: F401
    except ImportError:
        pass
    import futurist  # noqa: F401

from oslo_config import cfg  # noqa: E402
from oslo_log import log as logging  # noqa: E402

from nova_clone.conf import CONF  # noqa: E402
from nova_clone import exception  # noqa: E402

LOG = logging.getLogger(__name__)

CELL0_NAME = 'cell0'


def args(*names, **kwargs):
    """Declare one command-line argument of a command method."""
    def decorator(fn):
        fn.__dict__.setdefault('args', []).insert(0, (names, kwargs))
        return fn
    return decorator


def _mask_password(url):
    """``url`` with every password replaced by ****, multi-host URLs
    (rabbit://a:x@h1,b:y@h2/) included."""
    if not url:
        return url
    return re.sub(r'(?<=[/,])([^:/@,]+):([^@/,]*)@', r'\1:****@', url)


def _print_table(headers, rows):
    import prettytable
    table = prettytable.PrettyTable(headers)
    for row in rows:
        table.add_row(row)
    print(table)


def _admin_context():
    from nova_clone import context
    return context.get_admin_context()


class ApiDbCommands:
    """The API database."""

    @args('version', metavar='VERSION', nargs='?', help='Database version')
    def sync(self, version=None):
        """Migrate the API database to VERSION (default: newest)."""
        from nova_clone.db import migration
        migration.db_sync('api', version=version)
        return 0

    def version(self):
        """Print the current API database version."""
        from nova_clone.db import migration
        print(migration.db_version('api'))
        return 0


class DbCommands:
    """The cell databases."""

    @args('version', metavar='VERSION', nargs='?', help='Database version')
    @args('--local_cell', action='store_true',
          help='Only sync db in the local cell: do not attempt to fan-out '
               'to all cells')
    def sync(self, version=None, local_cell=False):
        """Migrate cell0 (unless --local_cell) and the [database] cell."""
        from nova_clone.db import migration
        from nova_clone import objects
        if not local_cell:
            ctxt = _admin_context()
            try:
                cell0 = objects.CellMapping.get_by_uuid(
                    ctxt, objects.CellMapping.CELL0_UUID)
            except exception.CellMappingNotFound:
                print('WARNING: cell0 mapping not found - not syncing cell0.')
            except Exception as exc:
                print('ERROR: Could not access cell0 (is [api_database] '
                      'connection set and "nova-manage api_db sync" run?): '
                      '%s' % _one_line(exc))
                return 1
            else:
                try:
                    migration.db_sync('main', version=version,
                                      url=cell0.database_connection)
                except Exception as exc:
                    print('ERROR: Could not sync cell0 (has the cell0 '
                          'database been created?): %s' % _one_line(exc))
                    return 1
        migration.db_sync('main', version=version)
        return 0

    def version(self):
        """Print the current cell database version."""
        from nova_clone.db import migration
        print(migration.db_version('main'))
        return 0

    @args('--max-count', metavar='<number>', dest='max_count', type=int,
          help='Maximum number of objects to migrate (default: all, in '
               'batches of 50).')
    def online_data_migrations(self, max_count=None):
        """Run the data migrations that follow a schema upgrade.

        Exit 0 when nothing is left, 1 when --max-count stopped early,
        2 when a migration failed.
        """
        from nova_clone.db import data_migrations
        if max_count is not None and max_count < 1:
            print('Must supply a positive value for max_count.')
            return 127
        batch = max_count or 50
        if max_count is None:
            print('Running batches of %d until complete' % batch)
        ctxt = _admin_context()
        totals, errors, remaining = {}, False, False
        while True:
            ran = 0
            for name, fn in data_migrations.ONLINE_MIGRATIONS:
                try:
                    found, done = fn(ctxt, batch)
                except Exception as exc:
                    LOG.debug('Data migration %s failed', name, exc_info=True)
                    print('Error attempting to run %s: %s'
                          % (name, one_line(exc)))
                    errors = True
                    found, done = 0, 0
                needed, completed = totals.get(name, (0, 0))
                totals[name] = (needed + found, completed + done)
                ran += done
                remaining = remaining or found > done
            if max_count is not None or not ran:
                break
        _print_table(['Migration', 'Total Needed', 'Completed'],
                     [[name, needed, completed]
                      for name, (needed, completed) in totals.items()])
        if errors:
            return 2
        return 1 if (max_count is not None and remaining) else 0


def _cell0_url_from(main_url):
    """[database] connection with the database name suffixed _cell0."""
    from sqlalchemy.engine import url as sa_url
    parsed = sa_url.make_url(main_url)
    if parsed.get_backend_name() == 'sqlite':
        path = parsed.database or ''
        if path in ('', ':memory:'):
            return 'sqlite://'
        base, dot, ext = path.rpartition('.')
        new = ('%s_cell0.%s' % (base, ext)) if dot else path + '_cell0'
        return parsed.set(database=new).render_as_string(
            hide_password=False)
    return parsed.set(database=(parsed.database or 'nova') + '_cell0'
                      ).render_as_string(hide_password=False)


def _validate_db_url(url):
    from sqlalchemy.engine import url as sa_url
    try:
        parsed = sa_url.make_url(url)
        parsed.get_dialect()
    except Exception as exc:
        raise exception.InvalidConnectionURL(reason=_one_line(exc))


def _default_transport_url():
    # [DEFAULT] transport_url belongs to oslo.messaging, which registers it
    # when a transport is first built; ask for it the same way.
    try:
        return CONF.transport_url
    except cfg.NoSuchOptError:
        import oslo_messaging as messaging
        messaging.get_rpc_transport(CONF)
        return CONF.transport_url


def _validate_transport_url(url):
    import oslo_messaging as messaging
    try:
        messaging.TransportURL.parse(CONF, url)
    except Exception as exc:
        raise exception.InvalidConnectionURL(reason=_one_line(exc))


class CellV2Commands:
    """The cells v2 layout: cell mappings and host mappings."""

    @args('--database_connection', metavar='<database_connection>',
          help='The database connection URL for cell0. Default: '
               '[database] connection with _cell0 appended to the name.')
    def map_cell0(self, database_connection=None):
        """Create the cell0 mapping (idempotent)."""
        from nova_clone import objects
        ctxt = _admin_context()
        try:
            objects.CellMapping.get_by_uuid(ctxt,
                                            objects.CellMapping.CELL0_UUID)
            print('Cell0 is already setup')
            return 0
        except exception.CellMappingNotFound:
            pass
        if not database_connection:
            if not CONF.database.connection:
                print('Must specify --database_connection if [database]/'
                      'connection is not set in the configuration file.')
                return 1
            database_connection = _cell0_url_from(CONF.database.connection)
        _validate_db_url(database_connection)
        objects.CellMapping(ctxt, uuid=objects.CellMapping.CELL0_UUID,
                            name=CELL0_NAME, transport_url='none:///',
                            database_connection=database_connection,
                            disabled=False).create()
        return 0

    @args('--name', metavar='<cell_name>', help='A name for the cell')
    @args('--transport-url', metavar='<transport_url>',
          dest='transport_url',
          help='The transport url for the cell message queue')
    @args('--database_connection', metavar='<database_connection>',
          help='The database url for the cell database')
    @args('--verbose', action='store_true',
          help='Output the cell mapping uuid for any newly mapped hosts.')
    @args('--disabled', action='store_true',
          help='To create a pre-disabled cell.')
    def create_cell(self, name=None, transport_url=None,
                    database_connection=None, verbose=False,
                    disabled=False):
        """Create a cell mapping; exit 2 if an equal cell exists."""
        from nova_clone import objects
        transport_url = transport_url or _default_transport_url()
        if not transport_url:
            print('Must specify --transport-url if [DEFAULT]/transport_url '
                  'is not set in the configuration file.')
            return 1
        database_connection = (database_connection or
                               CONF.database.connection)
        if not database_connection:
            print('Must specify --database_connection if [database]/'
                  'connection is not set in the configuration file.')
            return 1
        _validate_transport_url(transport_url)
        _validate_db_url(database_connection)
        ctxt = _admin_context()
        for cell in objects.CellMappingList.get_all(ctxt):
            if (cell.transport_url == transport_url and
                    cell.database_connection == database_connection):
                print('The specified transport_url and/or '
                      'database_connection combination already exists for '
                      'another cell with uuid %s.' % cell.uuid)
                return 2
            if name and cell.name == name:
                print('A cell named %s already exists with uuid %s.'
                      % (name, cell.uuid))
                return 2
        cell = objects.CellMapping(ctxt, name=name,
                                   transport_url=transport_url,
                                   database_connection=database_connection,
                                   disabled=disabled)
        cell.create()
        if verbose:
            print(cell.uuid)
        return 0

    @args('--verbose', action='store_true',
          help='Show sensitive details, such as passwords')
    def list_cells(self, verbose=False):
        """List the cell mappings, sorted by name."""
        from nova_clone import objects
        cells = objects.CellMappingList.get_all(_admin_context())
        rows = []
        for cell in sorted(cells, key=lambda c: c.name or ''):
            url = cell.transport_url
            db = cell.database_connection
            if not verbose:
                url, db = _mask_password(url), _mask_password(db)
            rows.append([cell.name, cell.uuid, url, db, cell.disabled])
        _print_table(['Name', 'UUID', 'Transport URL',
                      'Database Connection', 'Disabled'], rows)
        return 0

    @args('--force', action='store_true', default=False,
          help='Delete the cell even if hosts are mapped to it; the host '
               'mappings and deleted instances\' mappings go too.')
    @args('--cell_uuid', metavar='<cell_uuid>', dest='cell_uuid',
          required=True, help='The uuid of the cell to delete.')
    def delete_cell(self, cell_uuid, force=False):
        """Delete an empty cell: 1 not found, 2 hosts, 3 instances."""
        from nova_clone import objects
        ctxt = _admin_context()
        try:
            cell = objects.CellMapping.get_by_uuid(ctxt, cell_uuid)
        except exception.CellMappingNotFound:
            print('Cell with uuid %s was not found.' % cell_uuid)
            return 1
        hosts = objects.HostMappingList.get_by_cell_id(ctxt, cell.id)
        if hosts and not force:
            print('There are existing hosts mapped to cell with uuid %s.'
                  % cell_uuid)
            return 2
        instances = objects.InstanceMappingList.get_by_cell_id(ctxt, cell.id)
        live = [im for im in instances if not im.queued_for_delete]
        if live:
            print('There are instance mappings to cell with uuid %s, which '
                  'still has instances.' % cell_uuid)
            return 3
        for host in hosts:
            host.destroy()
        objects.InstanceMappingList.destroy_bulk(
            ctxt, [im.instance_uuid for im in instances])
        cell.destroy()
        return 0

    @args('--cell_uuid', metavar='<cell_uuid>', dest='cell_uuid',
          required=True, help='The uuid of the cell to update.')
    @args('--name', metavar='<cell_name>', help='Set the cell name.')
    @args('--transport-url', metavar='<transport_url>',
          dest='transport_url', help='Set the cell transport_url.')
    @args('--database_connection', metavar='<database_connection>',
          help='Set the cell database_connection.')
    @args('--disable', action='store_true', help='Disable the cell.')
    @args('--enable', action='store_true', help='Enable the cell.')
    def update_cell(self, cell_uuid, name=None, transport_url=None,
                    database_connection=None, disable=False, enable=False):
        """Change a cell mapping's name, URLs or disabled flag."""
        from nova_clone import objects
        if disable and enable:
            print('Cell cannot be disabled and enabled at the same time.')
            return 4
        ctxt = _admin_context()
        try:
            cell = objects.CellMapping.get_by_uuid(ctxt, cell_uuid)
        except exception.CellMappingNotFound:
            print('Cell with uuid %s was not found.' % cell_uuid)
            return 1
        if name:
            cell.name = name
        if transport_url:
            _validate_transport_url(transport_url)
            cell.transport_url = transport_url
        if database_connection:
            _validate_db_url(database_connection)
            cell.database_connection = database_connection
        if cell.is_cell0() and (disable or enable):
            print('Cell0 cannot be disabled.')
            return 5
        if disable:
            if cell.disabled:
                print('Cell %s is already disabled' % cell_uuid)
            cell.disabled = True
        if enable:
            if not cell.disabled:
                print('Cell %s is already enabled' % cell_uuid)
            cell.disabled = False
        cell.save()
        return 0

    @args('--cell_uuid', metavar='<cell_uuid>',
          help='If provided only this cell will be searched for new hosts '
               'to map.')
    @args('--verbose', action='store_true',
          help='Provide detailed output when discovering hosts.')
    @args('--strict', action='store_true',
          help='Considered successful (exit code 0) only when an unmapped '
               'host was discovered and a mapping was successfully created.')
    @args('--by-service', action='store_true', default=False,
          dest='by_service',
          help='Discover hosts by service instead of compute node')
    def discover_hosts(self, cell_uuid=None, verbose=False, strict=False,
                       by_service=False):
        """Map the compute hosts of the cells to their cell."""
        from nova_clone.objects import host_mapping
        status_fn = print if verbose else (lambda msg: None)
        ctxt = _admin_context()
        try:
            mappings = host_mapping.discover_hosts(
                ctxt, cell_uuid=cell_uuid, status_fn=status_fn,
                by_service=by_service)
        except exception.HostMappingExists as exc:
            print('ERROR: Duplicate host mapping was encountered. %s'
                  % exc.format_message())
            return 2
        if strict and not mappings:
            return 1
        return 0

    @args('--cell_uuid', metavar='<cell_uuid>', dest='cell_uuid',
          required=True, help='Unmapped instances will be mapped to the '
                              'cell with this uuid.')
    @args('--max-count', metavar='<max_count>', dest='max_count', type=int,
          help='Maximum number of instances to map (default: all).')
    @args('--reset', action='store_true', dest='reset_marker',
          help='Accepted for compatibility; mapping always restarts from '
               'the first unmapped instance.')
    def map_instances(self, cell_uuid, max_count=None, reset_marker=None):
        """Create instance mappings for a cell's unmapped instances.

        Exit 0 when all are mapped, 1 when --max-count left some.
        """
        from nova_clone import objects
        from nova_clone.objects import instance_mapping
        ctxt = _admin_context()
        try:
            cell = objects.CellMapping.get_by_uuid(ctxt, cell_uuid)
        except exception.CellMappingNotFound:
            print('Cell with uuid %s was not found.' % cell_uuid)
            return 1
        if max_count is not None and max_count < 1:
            print('Must supply a positive value for max_count.')
            return 127
        done, left = instance_mapping.map_cell_instances(ctxt, cell,
                                                         max_count)
        return 1 if left else 0

    @args('--transport-url', metavar='<transport_url>',
          dest='transport_url',
          help='The transport url for the cell message queue')
    def simple_cell_setup(self, transport_url=None):
        """cell0, one cell for [database], its hosts and instances.

        Exit 1 when there is no compute host to map yet.
        """
        from nova_clone.db import migration
        from nova_clone import objects
        from nova_clone.objects import host_mapping
        from nova_clone.objects import instance_mapping
        transport_url = transport_url or _default_transport_url()
        if not transport_url:
            print('Must specify --transport-url if [DEFAULT]/transport_url '
                  'is not set in the configuration file.')
            return 1
        _validate_transport_url(transport_url)
        if not CONF.database.connection:
            print('Must specify [database]/connection in the configuration '
                  'file.')
            return 1
        if self.map_cell0() != 0:
            return 1
        ctxt = _admin_context()
        cell0 = objects.CellMapping.get_by_uuid(
            ctxt, objects.CellMapping.CELL0_UUID)
        try:
            migration.db_sync('main', url=cell0.database_connection)
        except Exception as exc:
            print('Unable to sync cell0 schema: %s' % one_line(exc))
        cell = None
        for candidate in objects.CellMappingList.get_all(ctxt):
            if (candidate.transport_url == transport_url and
                    candidate.database_connection ==
                    CONF.database.connection):
                cell = candidate
        if cell is None:
            cell = objects.CellMapping(
                ctxt, name=None, transport_url=transport_url,
                database_connection=CONF.database.connection)
        if not host_mapping.has_compute_hosts(ctxt, cell):
            print('No hosts found to map to cell, exiting.')
            return 1
        if 'id' not in cell:
            cell.create()
        host_mapping.discover_hosts(ctxt, cell_uuid=cell.uuid)
        instance_mapping.map_cell_instances(ctxt, cell, None)
        return 0

    @args('--cell_uuid', metavar='<cell_uuid>',
          help='The UUID of the cell to list hosts of.')
    def list_hosts(self, cell_uuid=None):
        """List the host mappings, by cell."""
        from nova_clone import objects
        ctxt = _admin_context()
        if cell_uuid:
            try:
                cell = objects.CellMapping.get_by_uuid(ctxt, cell_uuid)
            except exception.CellMappingNotFound:
                print('Cell with uuid %s was not found.' % cell_uuid)
                return 1
            hosts = objects.HostMappingList.get_by_cell_id(ctxt, cell.id)
        else:
            hosts = objects.HostMappingList.get_all(ctxt)
        rows = sorted([[h.cell_mapping.name, h.cell_mapping.uuid, h.host]
                       for h in hosts], key=lambda r: (r[0] or '', r[2]))
        _print_table(['Cell Name', 'Cell UUID', 'Hostname'], rows)
        return 0


CATEGORIES = {
    'api_db': ApiDbCommands,
    'db': DbCommands,
    'cell_v2': CellV2Commands,
}


def one_line(exc):
    """An error as one short line: no traceback, no SQL statement."""
    if isinstance(exc, exception.NovaException):
        text = exc.format_message()
    else:
        # oslo.db and SQLAlchemy wrap the driver's error; the driver's own
        # message is the useful part.
        inner = getattr(exc, 'inner_exception', None) or exc
        inner = getattr(inner, 'orig', None) or inner
        text = str(inner)
    return ' '.join((text or type(exc).__name__).split())


_one_line = one_line


def add_command_parsers(subparsers):
    for category, command_cls in CATEGORIES.items():
        parser = subparsers.add_parser(category,
                                       help=command_cls.__doc__)
        parser.set_defaults(command_object=command_cls())
        actions = parser.add_subparsers(dest='action', metavar='ACTION')
        actions.required = True
        for name in dir(command_cls):
            if name.startswith('_'):
                continue
            fn = getattr(command_cls, name)
            if not callable(fn):
                continue
            action = actions.add_parser(name, help=(fn.__doc__ or '')
                                        .strip().splitlines()[0]
                                        if fn.__doc__ else None)
            action.set_defaults(action_fn=name)
            for arg_names, kwargs in getattr(fn, 'args', []):
                kwargs = dict(kwargs)
                # Prefixed so that "--name" cannot clash with the
                # sub-command namespace's own attributes.
                kwargs['dest'] = _PREFIX + _dest(arg_names, kwargs)
                if not arg_names[0].startswith('-'):
                    # A positional's name is its dest.
                    kwargs.setdefault('metavar', arg_names[0].upper())
                    arg_names = (kwargs.pop('dest'),)
                action.add_argument(*arg_names, **kwargs)


category_opt = cfg.SubCommandOpt('category', title='Command categories',
                                 help='Available categories',
                                 handler=add_command_parsers)


_PREFIX = 'action_kwarg_'


def _dest(arg_names, spec):
    return spec.get('dest') or arg_names[0].lstrip('-').replace('-', '_')


def _action_kwargs():
    fn = getattr(CONF.category.command_object, CONF.category.action_fn)
    kwargs = {}
    for arg_names, spec in getattr(fn, 'args', []):
        dest = _dest(arg_names, spec)
        value = getattr(CONF.category, _PREFIX + dest, None)
        if value is not None:
            kwargs[dest] = value
    return fn, kwargs


def main(argv=None):
    warnings.simplefilter('ignore')
    from nova_clone.cmd import common
    argv = list(sys.argv[1:] if argv is None else argv)
    CONF.register_cli_opt(category_opt)
    try:
        common.parse_args(argv, 'nova-manage')
    except common.ConfigError as exc:
        print('ERROR: %s' % exc, file=sys.stderr)
        return 2
    except SystemExit as exc:
        # argparse already printed its usage message.
        return exc.code if isinstance(exc.code, int) else 2
    # Migrations log every step at INFO; an operator wants silence.
    logging.set_defaults(default_log_levels=common.DEFAULT_LOG_LEVELS + [
        'alembic=WARN', 'nova_clone.db.migration=WARN', 'oslo_db=WARN'])
    logging.setup(CONF, 'nova')
    from nova_clone import objects
    objects.register_all()
    try:
        fn, kwargs = _action_kwargs()
        return fn(**kwargs) or 0
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        LOG.debug('nova-manage failed', exc_info=True)
        print('ERROR: %s' % _one_line(exc))
        return 1


# -- placement (appended by the flow helper) ----------------------------------

class PlacementCommands:
    """Commands for Placement allocations."""

    @args('--verbose', action='store_true', default=False,
          help='Show the allocations that are in use as well.')
    @args('--delete', action='store_true', default=False,
          help='Delete the orphaned allocations found.')
    @args('--resource_provider', metavar='<provider_uuid>',
          dest='provider_uuid',
          help='Audit only this resource provider.')
    def audit(self, verbose=False, delete=False, provider_uuid=None):
        """Find (and with --delete remove) allocations no server owns."""
        from nova_clone.placement import audit as placement_audit
        return placement_audit.audit(
            _admin_context(), verbose=verbose, delete=delete,
            provider_uuid=provider_uuid)


CATEGORIES['placement'] = PlacementCommands


if __name__ == '__main__':
    sys.exit(main())
