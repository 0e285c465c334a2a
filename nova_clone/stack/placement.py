"""The real Placement service (openstack-placement) of a stack.

placement.wsgi.api reads ``placement.conf`` from the directory named by
OS_PLACEMENT_CONFIG_DIR; its schema comes from ``placement-manage db
sync``; requests are authenticated by keystonemiddleware against the
stack's Keystone with the ``placement`` service user.
"""

import os
import subprocess
import sys

from nova_clone.stack import ini as stack_ini

WSGI_APP = 'placement.wsgi.api:application'


# Claims of a storm write allocations of new consumers side by side.  Under
# InnoDB's default REPEATABLE READ, Placement's delete-then-insert of each
# consumer's allocations takes gap locks that deadlock one another, and
# oslo.db retries the loser a second (then two) later: a few servers in
# every storm waited 1-3 s.  READ COMMITTED takes no such gap locks; the
# provider generations still serialise the claims on one provider.
READ_COMMITTED = ('init_command=SET%20SESSION%20TRANSACTION%20ISOLATION'
                  '%20LEVEL%20READ%20COMMITTED')


class PlacementError(Exception):
    pass


def conf_dir(layout):
    return os.path.join(layout.etc_dir, 'placement')


def write_conf(layout):
    return stack_ini.write(os.path.join(conf_dir(layout), 'placement.conf'), {
        'DEFAULT': {'debug': layout.debug},
        'api': {'auth_strategy': 'keystone'},
        'placement_database': {'connection': layout.db_url('placement'),
                               'connection_parameters': READ_COMMITTED,
                               'max_pool_size': 20},
        'keystone_authtoken': stack_ini.authtoken(layout, 'placement'),
    })


def db_sync(layout):
    exe = os.path.join(os.path.dirname(sys.executable), 'placement-manage')
    conf = os.path.join(conf_dir(layout), 'placement.conf')
    log = layout.log_file('placement-manage')
    os.makedirs(layout.log_dir, exist_ok=True)
    with open(log, 'ab') as out:
        proc = subprocess.run([exe, '--config-file', conf, 'db', 'sync'],
                              stdout=out, stderr=subprocess.STDOUT,
                              stdin=subprocess.DEVNULL, timeout=300)
    if proc.returncode != 0:
        raise PlacementError('placement-manage db sync failed (exit %d); '
                             'see %s' % (proc.returncode, log))


def wsgi_env(layout):
    return {'OS_PLACEMENT_CONFIG_DIR': conf_dir(layout)}
