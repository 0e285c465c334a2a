"""nova-status upgrade check: is this deployment ready to run?

Checks the cells v2 layout (cell0, at least one cell, host mappings) and
that the Placement API answers with a new enough microversion.  Exit
codes are oslo.upgradecheck's: 0 success, 1 warning, 2 failure.
"""

import sys
import warnings

# See nova_clone/cmd/manage.py: keep library deprecation noise quiet.
with warnings.catch_warnings():
    warnings.simplefilter('ignore')
    try:
        import eventlet  # noqa: F401
    except ImportError:
        pass
    import futurist  # noqa: F401

from oslo_config import cfg  # noqa: E402
from oslo_upgradecheck import upgradecheck  # noqa: E402

from nova_clone.conf import CONF  # noqa: E402

# Placement must offer this microversion (same_subtree, etc.).
MIN_PLACEMENT_MICROVERSION = '1.36'

Code = upgradecheck.Code
Result = upgradecheck.Result


def _one_line(exc):
    from nova_clone.cmd import manage
    return manage.one_line(exc)


def _count_compute_nodes(ctxt, cells):
    from nova_clone.db.main import models as main_models
    from nova_clone.objects import host_mapping
    total = 0
    for cell in cells:
        if cell.is_cell0():
            continue
        cctxt = host_mapping._cell_db_context(ctxt, cell)
        with cctxt.db_connection.reader.using(cctxt):
            total += cctxt.session.query(main_models.ComputeNode).filter(
                main_models.ComputeNode.deleted == 0).count()
    return total


def _version_tuple(text):
    major, minor = str(text).split('.')[:2]
    return int(major), int(minor)


class UpgradeCommands(upgradecheck.UpgradeCommands):
    """The checks ``nova-status upgrade check`` runs, in order."""

    def _check_cellsv2(self):
        from nova_clone import context as nova_context
        from nova_clone import objects
        ctxt = nova_context.get_admin_context()
        try:
            cells = objects.CellMappingList.get_all(ctxt)
        except Exception as exc:
            return Result(Code.FAILURE,
                          'Unable to read the cell mappings from the API '
                          'database: %s' % _one_line(exc))
        if len(cells) < 2:
            return Result(Code.FAILURE,
                          'There needs to be at least two cell mappings, one '
                          'for cell0 and one for your compute cells. Run '
                          "'nova-manage cell_v2 map_cell0' and "
                          "'nova-manage cell_v2 create_cell', then retry.")
        if not any(cell.is_cell0() for cell in cells):
            return Result(Code.FAILURE,
                          "No cell0 mapping found. Run 'nova-manage cell_v2 "
                          "map_cell0' and then retry.")
        hosts = objects.HostMappingList.get_all(ctxt)
        if hosts:
            return Result(Code.SUCCESS)
        try:
            computes = _count_compute_nodes(ctxt, cells)
        except Exception as exc:
            return Result(Code.FAILURE,
                          'Unable to read compute nodes from the cell '
                          'databases: %s' % _one_line(exc))
        if computes:
            return Result(Code.FAILURE,
                          'No host mappings found but there are compute '
                          "nodes. Run 'nova-manage cell_v2 discover_hosts' "
                          'and then retry.')
        return Result(Code.SUCCESS,
                      'No host mappings or compute nodes were found. Run '
                      "'nova-manage cell_v2 discover_hosts' when new compute "
                      'hosts are deployed.')

    def _check_placement(self):
        from keystoneauth1 import exceptions as ks_exc
        from keystoneauth1 import loading as ks_loading
        group = CONF.placement
        if not getattr(group, 'auth_type', None):
            return Result(Code.WARNING,
                          'The [placement] section is not configured '
                          '(auth_type is unset); the Placement API was not '
                          'checked.')
        try:
            auth = ks_loading.load_auth_from_conf_options(CONF, 'placement')
            session = ks_loading.load_session_from_conf_options(
                CONF, 'placement', auth=auth)
            adapter = ks_loading.load_adapter_from_conf_options(
                CONF, 'placement', session=session, auth=auth)
            response = adapter.get('/', raise_exc=False)
        except ks_exc.EndpointNotFound:
            return Result(Code.FAILURE, 'Placement API endpoint not found.')
        except ks_exc.Unauthorized:
            return Result(Code.FAILURE,
                          'Placement service credentials do not work.')
        except (ks_exc.ClientException, ValueError) as exc:
            return Result(Code.FAILURE,
                          'Placement API is not reachable: %s'
                          % _one_line(exc))
        if response.status_code != 200:
            return Result(Code.FAILURE,
                          'Placement API answered HTTP %d to GET /.'
                          % response.status_code)
        try:
            versions = response.json()['versions']
            max_version = max((_version_tuple(v['max_version'])
                               for v in versions), default=(0, 0))
        except (ValueError, KeyError, TypeError):
            return Result(Code.FAILURE,
                          'Placement API returned an unexpected version '
                          'document.')
        if max_version < _version_tuple(MIN_PLACEMENT_MICROVERSION):
            return Result(Code.FAILURE,
                          'Placement API does not seem to be running the '
                          'latest version. The minimum required version is '
                          '%s, found %d.%d.'
                          % ((MIN_PLACEMENT_MICROVERSION,) + max_version))
        return Result(Code.SUCCESS)

    _upgrade_checks = (
        ('Cells v2', _check_cellsv2),
        ('Placement API', _check_placement),
    )


def main(argv=None):
    warnings.simplefilter('ignore')
    from oslo_log import log as logging
    from nova_clone import objects
    argv = list(sys.argv[1:] if argv is None else argv)
    logging.register_options(CONF)
    objects.register_all()
    try:
        upgradecheck.register_cli_options(CONF, UpgradeCommands())
        CONF(argv, project='nova', prog='nova-status')
    except cfg.ConfigFilesNotFoundError as exc:
        print('ERROR: cannot read configuration file(s): %s'
              % ', '.join(exc.config_files), file=sys.stderr)
        return 2
    except cfg.Error as exc:
        print('ERROR: %s' % exc, file=sys.stderr)
        return 2
    logging.set_defaults(default_log_levels=['oslo_db=WARN',
                                             'sqlalchemy=WARN',
                                             'keystoneauth=WARN'])
    logging.setup(CONF, 'nova')
    # check() looks here for the --json flag.
    upgradecheck.CONF = CONF
    try:
        return CONF.command.action_fn()
    except Exception as exc:
        print('ERROR: %s' % _one_line(exc))
        return 255


if __name__ == '__main__':
    sys.exit(main())
