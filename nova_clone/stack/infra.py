"""The stack's footing: MariaDB databases and RabbitMQ vhosts.

Neither engine is started here; the stack only checks they answer and
creates (or, for ``down --purge``, drops) what belongs to it.
"""

import shutil
import subprocess

from nova_clone.stack import layout as stack_layout

START_HINT = ('start them with: start-stop-daemon --start --oknodo '
              '--background --exec /usr/sbin/mariadbd; '
              'rabbitmq-server -detached')


class InfraError(Exception):
    pass


def _db_connect(database=None):
    import pymysql
    return pymysql.connect(host=stack_layout.DB_HOST,
                           port=stack_layout.DB_PORT, user='root',
                           password='', database=database,
                           connect_timeout=3, autocommit=True)


def check():
    """Raise InfraError naming what does not answer."""
    down = []
    try:
        _db_connect().close()
    except Exception as e:
        down.append('MariaDB at %s:%d (%s)' % (
            stack_layout.DB_HOST, stack_layout.DB_PORT, _short(e)))
    try:
        import kombu
        with kombu.Connection('amqp://guest:guest@%s:%d//' % (
                stack_layout.MQ_HOST, stack_layout.MQ_PORT),
                connect_timeout=3) as conn:
            conn.connect()
    except Exception as e:
        down.append('RabbitMQ at %s:%d (%s)' % (
            stack_layout.MQ_HOST, stack_layout.MQ_PORT, _short(e)))
    if down:
        raise InfraError('%s not answering; %s' % (' and '.join(down),
                                                    START_HINT))


def _short(exc):
    text = str(exc).strip().splitlines()
    return text[0][:120] if text else exc.__class__.__name__


# As DevStack does: a stack's pooled services (and a few stacks side by
# side) need more than MariaDB's default of 151 connections.
MIN_MAX_CONNECTIONS = 1024


def create_databases(names):
    conn = _db_connect()
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT @@GLOBAL.max_connections")
            if cur.fetchone()[0] < MIN_MAX_CONNECTIONS:
                cur.execute('SET GLOBAL max_connections = %d'
                            % MIN_MAX_CONNECTIONS)
            for name in names:
                cur.execute('CREATE DATABASE IF NOT EXISTS `%s` '
                            'CHARACTER SET utf8mb4' % name)
    finally:
        conn.close()


def existing_databases(names):
    """Those of ``names`` MariaDB already holds."""
    conn = _db_connect()
    try:
        with conn.cursor() as cur:
            cur.execute('SHOW DATABASES')
            present = {row[0] for row in cur.fetchall()}
    finally:
        conn.close()
    return [name for name in names if name in present]


def drop_databases(names):
    conn = _db_connect()
    try:
        with conn.cursor() as cur:
            for name in names:
                cur.execute('DROP DATABASE IF EXISTS `%s`' % name)
    finally:
        conn.close()


def query(database, sql, args=None):
    """Rows of a read query in one of the stack's databases."""
    conn = _db_connect(database)
    try:
        with conn.cursor() as cur:
            cur.execute(sql, args)
            return cur.fetchall()
    finally:
        conn.close()


def _rabbitmqctl(*args):
    exe = shutil.which('rabbitmqctl')
    if exe is None:
        raise InfraError('rabbitmqctl not found: cannot manage vhosts')
    proc = subprocess.run([exe, '-q'] + list(args), capture_output=True,
                          text=True, timeout=60)
    if proc.returncode != 0:
        raise InfraError('rabbitmqctl %s failed: %s' % (
            ' '.join(args), (proc.stderr or proc.stdout).strip()[:300]))
    return proc.stdout


def list_vhosts():
    out = _rabbitmqctl('list_vhosts', '--no-table-headers')
    return {line.strip() for line in out.splitlines() if line.strip()}


def create_vhosts(names):
    existing = list_vhosts()
    for name in names:
        if name not in existing:
            _rabbitmqctl('add_vhost', name)
            _rabbitmqctl('set_permissions', '-p', name, 'guest',
                         '.*', '.*', '.*')


def delete_vhosts(names):
    existing = list_vhosts()
    for name in names:
        if name in existing:
            _rabbitmqctl('delete_vhost', name)
