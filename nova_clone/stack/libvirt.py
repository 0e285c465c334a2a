"""The libvirt part of ``stack up --driver libvirt``.

One private libvirtd per compute host, started by the setup-libvirt
script beside this module (own mount/UTS namespaces, nothing of the
system's libvirt touched), and the tiny guest it builds, seeded into
Glance as AMI-style images: a kernel (aki), a ramdisk (ari) and a
machine image (ami) whose kernel_id, ramdisk_id and os_command_line tell
the driver to boot it directly.
"""

import hashlib
import os
import shutil
import subprocess
import sys

from nova_clone.deploy import seed_data
from nova_clone.stack import procs

# A bash script shipped inside the package (tools/setup-libvirt runs it
# from a checkout); run through bash, so no executable bit is needed.
SETUP = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                     'setup-libvirt')
SETUP_TIMEOUT = 900          # the first run downloads a kernel package
STOP_TIMEOUT = 120
# Daemon N reports host name compute<N>: the node name of compute host N.
HOST_PREFIX = 'compute'
# A unix socket path may hold at most 107 bytes.
MAX_SOCKET_PATH = 107
SOCKET_TAIL = '/%d/run/libvirt-sock'
PACKAGES = ('libvirt-daemon libvirt-daemon-driver-qemu libvirt-clients '
            'qemu-system-x86 qemu-utils busybox-static xz-utils')

KERNEL_IMAGE = 'tiny-guest-kernel'
RAMDISK_IMAGE = 'tiny-guest-ramdisk'
MACHINE_IMAGE = 'tiny-guest'
# DevStack's m1.nano (128 MiB, 1 vCPU, 1 GB) is enough for the guest.
FLAVOR = ('m1.nano', '42', 128, 1, 1)
CMDLINE = 'console=ttyS0 quiet panic=-1'
GUEST_MARKER = 'NOVA-CLONE-GUEST-UP'


class LibvirtSetupError(Exception):
    pass


def state_dir(layout):
    """Where the daemons of the stack keep their state.

    Under the stack's state dir when the socket path fits there, else a
    short directory in /tmp named after the state dir (so ``down`` finds
    it again), linked from the state dir as ``libvirt``.
    """
    inside = layout.path('libvirt')
    # Room for up to 999 daemons, whatever --computes says this run.
    longest = inside + SOCKET_TAIL % 999 + '-admin'
    if os.path.islink(inside) or len(longest) > MAX_SOCKET_PATH:
        digest = hashlib.sha1(layout.state_dir.encode()).hexdigest()[:12]
        return '/tmp/nclv-%s' % digest
    return inside


def uri(layout, index):
    """libvirt URI of the daemon of compute host `index` (1-based)."""
    return 'qemu+unix:///system?socket=%s%s' % (state_dir(layout),
                                                 SOCKET_TAIL % index)


def migration_addr(index):
    """Where the daemon of compute host `index` takes live migrations
    (setup-libvirt's migration_host; start() checks they agree)."""
    return '127.0.0.%d' % (10 + index)


def compute_section(layout, index):
    """The ``[libvirt]`` section of compute host `index`."""
    return {'virt_type': 'qemu', 'connection_uri': uri(layout, index),
            # All daemons share one network namespace: each takes the
            # migration stream on its own loopback address.
            'live_migration_inbound_addr': migration_addr(index),
            # Small TCG caches: several guests share a small machine.
            'tb_cache_size': 32}


def missing_prerequisites():
    """What keeps the daemons from starting here, or None."""
    if os.geteuid() != 0:
        return ('setup-libvirt runs the daemons in private '
                'namespaces and needs root')
    try:
        import libvirt  # noqa: F401
    except ImportError:
        return ('the libvirt Python binding is not installed: '
                '%s -m pip install libvirt-python (needs libvirt-dev and '
                'pkg-config)' % sys.executable)
    return None


def _parse(output):
    return dict(line.split('=', 1) for line in output.splitlines()
                if '=' in line and not line.startswith(' '))


def start(layout):
    """Start (or keep) one daemon per compute; return the script's
    KEY=VALUE output (URIs, payload paths, guest marker)."""
    why = missing_prerequisites()
    if why:
        raise LibvirtSetupError(why)
    directory = state_dir(layout)
    link = layout.path('libvirt')
    if directory != link and not os.path.islink(link):
        os.makedirs(layout.state_dir, exist_ok=True)
        os.symlink(directory, link)
    env = dict(os.environ, LIBVIRT_INSTANCES=str(max(layout.computes, 1)),
               LIBVIRT_HOSTNAME_PREFIX=HOST_PREFIX)
    log = layout.log_file('setup-libvirt')
    os.makedirs(layout.log_dir, exist_ok=True)
    try:
        with open(log, 'ab') as err:
            proc = subprocess.run(['bash', SETUP, directory], env=env,
                                  stdout=subprocess.PIPE, stderr=err,
                                  stdin=subprocess.DEVNULL,
                                  timeout=SETUP_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise LibvirtSetupError('setup-libvirt did not finish within '
                                '%ds; see %s' % (SETUP_TIMEOUT, log))
    if proc.returncode:
        tail = procs.log_tail(log, 6) or ''
        hint = ''
        if 'missing packages' in tail or 'apt-get' in tail:
            hint = ('; install the packages: apt-get install %s' % PACKAGES)
        raise LibvirtSetupError(
            'setup-libvirt failed (exit %d)%s; see %s\n%s'
            % (proc.returncode, hint, log, tail))
    values = _parse(proc.stdout.decode(errors='replace'))
    for index in range(1, layout.computes + 1):
        for key, expected in (('LIBVIRT_URI_%d', uri(layout, index)),
                              ('LIBVIRT_MIGRATION_ADDR_%d',
                               migration_addr(index))):
            if values.get(key % index) != expected:
                raise LibvirtSetupError(
                    'setup-libvirt reported %s=%r, expected %r' % (
                        key % index, values.get(key % index), expected))
    return values


def _qemu_pids(layout):
    """QEMU processes of this stack: their disks are under its state dir."""
    import psutil
    found = []
    for proc in psutil.process_iter(['name', 'cmdline']):
        try:
            name = proc.info['name'] or ''
            cmdline = ' '.join(proc.info['cmdline'] or ())
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
        if name.startswith('qemu-system') and (
                layout.state_dir in cmdline or
                state_dir(layout) in cmdline):
            found.append(proc.pid)
    return found


def status_rows(layout):
    """(name, pid or None, alive, detail) of each compute's daemon, as
    ``stack status`` prints them."""
    import socket

    import psutil
    rows = []
    directory = state_dir(layout)
    for index in range(1, layout.computes + 1):
        name = 'libvirtd-%d' % index
        try:
            with open(os.path.join(directory, str(index),
                                   'libvirtd.pid')) as f:
                pid = int(f.read().strip())
        except (OSError, ValueError):
            pid = None
        alive = pid is not None and psutil.pid_exists(pid)
        path = directory + SOCKET_TAIL % index
        answering = False
        if alive:
            sock = socket.socket(socket.AF_UNIX)
            sock.settimeout(2)
            try:
                sock.connect(path)
                answering = True
            except OSError:
                pass
            finally:
                sock.close()
        detail = ('%s %s' % ('answering' if answering else 'not answering',
                             uri(layout, index)))
        rows.append((name, pid if alive else None, alive, detail))
    return rows


def stop(layout):
    """Stop the stack's daemons and their guests; return what was done
    ('stopped', 'not running') or raise LibvirtSetupError."""
    directory = state_dir(layout)
    if not os.path.isdir(directory):
        return 'not running'
    had_pid = any(os.path.exists(os.path.join(directory, d, 'libvirtd.pid'))
                  for d in os.listdir(directory))
    try:
        subprocess.run(['bash', SETUP, 'stop', directory],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       stdin=subprocess.DEVNULL, timeout=STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        pass
    # A guest the daemon could not destroy must not outlive the stack.
    import psutil
    for pid in _qemu_pids(layout):
        try:
            psutil.Process(pid).kill()
        except psutil.NoSuchProcess:
            pass
    procs.wait_until(lambda: not _qemu_pids(layout), 10)
    left = _qemu_pids(layout)
    if left:
        raise LibvirtSetupError('QEMU processes %s of the stack survived'
                                % left)
    return 'stopped' if had_pid else 'not running'


def purge(layout):
    directory = state_dir(layout)
    if directory != layout.path('libvirt'):
        shutil.rmtree(directory, ignore_errors=True)


# -- the guest in Glance and the flavor ----------------------------------


def _image(session, image_url, name, fmt, path, **properties):
    """The id of active image `name`, created and uploaded if missing."""
    with open(path, 'rb') as data:
        return seed_data.ensure_image(
            session, image_url, name, data, disk_format=fmt,
            container_format=fmt, **properties)


def seed(session, urls, payload):
    """Seed the guest images and the flavor; return their names.

    payload: the KEY=VALUE output of setup-libvirt.
    """
    from concurrent import futures
    image_url = urls['image']
    for key in ('PAYLOAD_KERNEL', 'PAYLOAD_RAMDISK', 'PAYLOAD_DISK'):
        if not os.path.isfile(payload.get(key) or ''):
            raise LibvirtSetupError('guest payload %s missing (%r)'
                                    % (key, payload.get(key)))
    with futures.ThreadPoolExecutor(max_workers=2) as pool:
        kernel = pool.submit(_image, session, image_url, KERNEL_IMAGE, 'aki',
                             payload['PAYLOAD_KERNEL'])
        ramdisk = pool.submit(_image, session, image_url, RAMDISK_IMAGE,
                              'ari', payload['PAYLOAD_RAMDISK'])
        kernel_id, ramdisk_id = kernel.result(), ramdisk.result()
    _image(session, image_url, MACHINE_IMAGE, 'ami', payload['PAYLOAD_DISK'],
           kernel_id=kernel_id, ramdisk_id=ramdisk_id,
           os_command_line=CMDLINE)
    seed_data.ensure_flavors(session, urls['compute'], [FLAVOR])
    return {'image': MACHINE_IMAGE, 'flavor': FLAVOR[0],
            'marker': payload.get('GUEST_MARKER', GUEST_MARKER)}
