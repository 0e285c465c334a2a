"""nova.conf files of a stack and the nova-manage steps that prepare it.

Three kinds of file, each complete on its own (as DevStack writes them
in its superconductor layout):

- ``etc/nova/nova.conf``: the top level: nova-api, the super-conductor,
  nova-scheduler and nova-manage.  API database, cell0 as its
  ``[database]``, the top-level RabbitMQ vhost.
- ``etc/nova/nova_cellN.conf``: the conductor of cell N: that cell's
  database and vhost, no API database.
- ``etc/nova/nova-cpu-computeI.conf``: compute host I: its cell's vhost,
  no database at all (computes reach data through the conductor).
"""

import os
import subprocess
import sys

from nova_clone.stack import ini as stack_ini

DRIVERS = {'fake': 'fake.FakeDriver', 'libvirt': 'libvirt.LibvirtDriver'}


class NovaManageError(Exception):
    pass


def nova_dir(layout):
    return os.path.join(layout.etc_dir, 'nova')


def top_conf_path(layout):
    return os.path.join(nova_dir(layout), 'nova.conf')


def cell_conf_path(layout, cell):
    return os.path.join(nova_dir(layout), 'nova_cell%d.conf' % cell)


def compute_conf_path(layout, host):
    return os.path.join(nova_dir(layout), 'nova-cpu-%s.conf' % host)


def _clients(layout):
    """Auth of nova's clients for its peers, with the service users."""
    return {
        'keystone_authtoken': stack_ini.authtoken(layout, 'nova'),
        'service_user': dict(stack_ini.service_auth(layout, 'nova'),
                             send_service_user_token=True),
        'placement': stack_ini.service_auth(
            layout, 'placement', valid_interfaces='internal,public'),
        'glance': stack_ini.service_auth(
            layout, 'nova', valid_interfaces='internal,public'),
        'neutron': stack_ini.service_auth(
            layout, 'neutron', valid_interfaces='internal,public'),
        'cinder': dict(stack_ini.service_auth(layout, 'nova'),
                       os_region_name='RegionOne',
                       catalog_info='volumev3::publicURL'),
    }


def _default(layout, transport_url, **extra):
    section = {
        'debug': layout.debug,
        'state_path': layout.path('nova'),
        'my_ip': layout.host_ip,
        'transport_url': transport_url,
        'compute_driver': DRIVERS[layout.driver],
        'report_interval': 5,
        'osapi_compute_listen': layout.host_ip,
        'osapi_compute_listen_port': layout.ports['nova-api'],
    }
    section.update(extra)
    return section


def _oslo_messaging():
    # Fail fast when RabbitMQ goes away instead of hanging the stack.
    return {'rabbit_retry_interval': 1, 'rabbit_retry_backoff': 1}


# DevStack's filters: Nova's defaults and the same_host/different_host
# hints.
FILTERS = ('ComputeFilter', 'AvailabilityZoneFilter',
           'ComputeCapabilitiesFilter', 'ImagePropertiesFilter',
           'ServerGroupAntiAffinityFilter', 'ServerGroupAffinityFilter',
           'SameHostFilter', 'DifferentHostFilter')


def write_confs(layout):
    """Write every nova config file of the stack; return their paths."""
    paths = []
    top = {'DEFAULT': _default(layout, layout.transport_url()),
           'api': {'auth_strategy': 'keystone'},
           'api_database': {'connection': layout.db_url('nova_api')},
           'database': {'connection': layout.db_url('nova_cell0')},
           'oslo_messaging_rabbit': _oslo_messaging(),
           'scheduler': {'discover_hosts_in_cells_interval': -1},
           'filter_scheduler': {'enabled_filters': ','.join(FILTERS)}}
    top.update(_clients(layout))
    paths.append(stack_ini.write(top_conf_path(layout), top))

    for cell in range(1, layout.cells + 1):
        conf = {'DEFAULT': _default(layout, layout.transport_url(cell)),
                'database': {'connection': layout.db_url('nova_cell%d'
                                                         % cell)},
                'oslo_messaging_rabbit': _oslo_messaging()}
        conf.update(_clients(layout))
        paths.append(stack_ini.write(cell_conf_path(layout, cell), conf))

    for index, host in enumerate(layout.compute_hosts(), start=1):
        cell = layout.cell_of_compute(index)
        conf = {'DEFAULT': _default(
                    layout, layout.transport_url(cell), host=host,
                    instances_path=layout.path('nova', 'instances', host)),
                # Cell conductors have no API database here: no late
                # server group check through them (as devstack does).
                'workarounds': {'disable_group_policy_check_upcall': True},
                'oslo_messaging_rabbit': _oslo_messaging()}
        if layout.driver == 'libvirt':
            # Its own daemon (setup-libvirt), started by stack up.
            from nova_clone.stack import libvirt as stack_libvirt
            conf['libvirt'] = stack_libvirt.compute_section(layout, index)
        conf.update(_clients(layout))
        del conf['keystone_authtoken']
        paths.append(stack_ini.write(compute_conf_path(layout, host), conf))
    return paths


# -- nova-manage ------------------------------------------------------------

def nova_manage(layout, *args, config_files=None, check=True):
    exe = os.path.join(os.path.dirname(sys.executable), 'nova-manage')
    argv = [exe]
    for path in config_files or [top_conf_path(layout)]:
        argv += ['--config-file', path]
    argv += list(args)
    log = layout.log_file('nova-manage')
    os.makedirs(layout.log_dir, exist_ok=True)
    with open(log, 'ab') as out:
        out.write(('$ nova-manage %s\n' % ' '.join(args)).encode())
        out.flush()
        proc = subprocess.run(argv, stdout=out, stderr=subprocess.STDOUT,
                              stdin=subprocess.DEVNULL, timeout=300)
    if check and proc.returncode != 0:
        raise NovaManageError('nova-manage %s failed (exit %d); see %s'
                              % (' '.join(args), proc.returncode, log))
    return proc.returncode


def prepare_databases(layout, existing_cells):
    """api_db sync, cell0 mapping, one cell mapping per cell, db sync.

    existing_cells: names of the cell mappings already in the API DB.
    """
    nova_manage(layout, 'api_db', 'sync')
    if 'cell0' not in existing_cells:
        nova_manage(layout, 'cell_v2', 'map_cell0', '--database_connection',
                    layout.db_url('nova_cell0'))
    # Syncs the top-level [database], i.e. cell0.
    nova_manage(layout, 'db', 'sync')
    for cell in range(1, layout.cells + 1):
        name = 'cell%d' % cell
        if name not in existing_cells:
            nova_manage(layout, 'cell_v2', 'create_cell', '--name', name,
                        '--database_connection',
                        layout.db_url('nova_cell%d' % cell),
                        '--transport-url', layout.transport_url(cell))
        # The cell file overrides [database] of the top-level file.
        nova_manage(layout, 'db', 'sync', config_files=[
            top_conf_path(layout), cell_conf_path(layout, cell)])
