"""Where everything of one stack lives: names, ports, paths, passwords.

The layout is decided on the first ``stack up`` and saved as
``stack.json`` in the state directory, so re-runs, ``status`` and ``down``
find the same ports, databases and passwords again.
"""

import json
import os
import re
import secrets

NAME_RE = re.compile(r'^[a-z][a-z0-9_]{0,23}$')

# HTTP services in port order (base_port + index when a base is given).
HTTP_SERVICES = ('keystone', 'placement', 'nova-api', 'glance', 'neutron',
                 'cinder')

DB_HOST = '127.0.0.1'
DB_PORT = 3306
MQ_HOST = '127.0.0.1'
MQ_PORT = 5672


class LayoutError(Exception):
    """A stack cannot be laid out as asked (bad name, port range...)."""


def default_state_dir(name):
    import platformdirs
    return os.path.join(platformdirs.user_state_dir('nova-clone'),
                        'stacks', name)


class StackLayout(object):
    # Debug logging in every service; given by each ``stack up``, not kept.
    debug = False

    def __init__(self, name, state_dir, host_ip, ports, computes, cells,
                 driver, admin_password, service_password):
        self.name = name
        self.state_dir = os.path.abspath(state_dir)
        self.host_ip = host_ip
        self.ports = dict(ports)
        self.computes = computes
        self.cells = cells
        self.driver = driver
        self.admin_password = admin_password
        self.service_password = service_password

    # -- persistence -----------------------------------------------------
    @property
    def state_file(self):
        return os.path.join(self.state_dir, 'stack.json')

    def to_dict(self):
        return {'name': self.name, 'host_ip': self.host_ip,
                'ports': self.ports, 'computes': self.computes,
                'cells': self.cells, 'driver': self.driver,
                'admin_password': self.admin_password,
                'service_password': self.service_password}

    def save(self):
        os.makedirs(self.state_dir, exist_ok=True)
        tmp = self.state_file + '.tmp'
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, 'w') as f:
            json.dump(self.to_dict(), f, indent=2, sort_keys=True)
        os.replace(tmp, self.state_file)

    @classmethod
    def load(cls, state_dir):
        path = os.path.join(state_dir, 'stack.json')
        try:
            with open(path) as f:
                data = json.load(f)
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as e:
            raise LayoutError('cannot read %s: %s' % (path, e))
        try:
            return cls(data['name'], state_dir, data['host_ip'],
                       data['ports'], data['computes'], data['cells'],
                       data['driver'], data['admin_password'],
                       data['service_password'])
        except KeyError as e:
            raise LayoutError('%s lacks %s' % (path, e))

    @classmethod
    def create(cls, name, state_dir, host_ip, base_port, computes, cells,
               driver):
        from nova_clone.stack import procs
        check_name(name)
        if base_port:
            if base_port + len(HTTP_SERVICES) > 65536 or base_port < 1024:
                raise LayoutError('--base-port must be within 1024-%d'
                                  % (65536 - len(HTTP_SERVICES)))
            numbers = [base_port + i for i in range(len(HTTP_SERVICES))]
        else:
            numbers = procs.free_ports(len(HTTP_SERVICES), host_ip)
        return cls(name, state_dir, host_ip,
                   dict(zip(HTTP_SERVICES, numbers)), computes, cells,
                   driver, secrets.token_hex(12), secrets.token_hex(12))

    # -- names -------------------------------------------------------------
    def db_name(self, what):
        """Database of `what` (keystone, placement, nova_api, nova_cell0,
        nova_cell1..N, glance, neutron, cinder), prefixed with the stack
        name."""
        return '%s_%s' % (self.name, what)

    def db_names(self):
        names = ['keystone', 'placement', 'nova_api', 'nova_cell0']
        names += ['nova_cell%d' % i for i in range(1, self.cells + 1)]
        # One per stand-in: each creates its tables on start, and three
        # processes racing on one schema would trip over each other.
        names += ['glance', 'neutron', 'cinder']
        return [self.db_name(n) for n in names]

    def db_url(self, what):
        # mysqlclient (C) rather than PyMySQL: decoding results in Python
        # was about a tenth of every service's CPU in a boot storm.
        return 'mysql+mysqldb://root@%s:%d/%s?charset=utf8mb4' % (
            DB_HOST, DB_PORT, self.db_name(what))

    def vhost(self, cell=None):
        """RabbitMQ vhost: one for the top level, one per cell."""
        return self.name if cell is None else '%s_cell%d' % (self.name, cell)

    def vhosts(self):
        return [self.vhost()] + [self.vhost(i)
                                 for i in range(1, self.cells + 1)]

    def transport_url(self, cell=None):
        return 'rabbit://guest:guest@%s:%d/%s' % (MQ_HOST, MQ_PORT,
                                                   self.vhost(cell))

    def url(self, service):
        return 'http://%s:%d' % (self.host_ip, self.ports[service])

    @property
    def auth_url(self):
        return self.url('keystone') + '/v3'

    def compute_hosts(self):
        return ['compute%d' % i for i in range(1, self.computes + 1)]

    def cell_of_compute(self, index):
        """Computes are spread round-robin over the cells (1-based)."""
        return (index - 1) % self.cells + 1

    # -- paths -------------------------------------------------------------
    def path(self, *parts):
        return os.path.join(self.state_dir, *parts)

    @property
    def etc_dir(self):
        return self.path('etc')

    @property
    def log_dir(self):
        return self.path('logs')

    @property
    def run_dir(self):
        return self.path('run')

    @property
    def clouds_yaml(self):
        return self.path('clouds.yaml')

    def log_file(self, service):
        return os.path.join(self.log_dir, service + '.log')

    @property
    def marker(self):
        # Every process of the stack names a file under the state dir on
        # its command line or environment; used to recognise our pids.
        return self.state_dir


def check_name(name):
    if not NAME_RE.match(name or ''):
        raise LayoutError(
            'stack name %r: use 1-24 lower-case letters, digits or _, '
            'starting with a letter' % (name,))
