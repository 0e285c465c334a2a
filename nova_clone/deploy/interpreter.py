"""Is this Python built for speed?

Every nova-clone service is pure-Python work (oslo.messaging, SQLAlchemy,
versioned objects), so the interpreter's build decides a good part of what a
boot storm costs.  A CPython whose interpreter loop lives in a shared
libpython built without profile-guided optimisation (the default of a plain
``./configure --enable-shared`` or pyenv build) spends about 15% more CPU
on the same storm than a distribution's optimised static build such as
Debian's ``/usr/bin/python3`` (measured with ``nova-clone bench``, 200
servers, the two stacks run alternately).

Standard library only: ``tools/run-tests`` runs this file with candidate
interpreters before any virtualenv exists::

    python3 nova_clone/deploy/interpreter.py     # exit 0: fast build
"""

import os
import sys
import sysconfig


def _shared_libpython():
    """The libpython this process runs from, or None if it is linked
    into the executable."""
    try:
        with open('/proc/self/maps') as maps:
            for line in maps:
                path = line.split()[-1]
                if os.path.basename(path).startswith('libpython'):
                    return path
    except OSError:
        pass
    return None


def slow_build():
    """Why this interpreter is a slow build, or None if it is not."""
    configured = sysconfig.get_config_var('CONFIG_ARGS') or ''
    if '--enable-optimizations' in configured:
        return None
    library = _shared_libpython()
    if library is None:
        return None
    return ('Python %s at %s runs from the shared %s, built without '
            '--enable-optimizations' % (
                sys.version.split()[0], sys.executable, library))


def advice():
    """One line for ``stack up`` to print, or None."""
    reason = slow_build()
    if reason is None:
        return None
    return ('note: %s; every service costs about 15%% more CPU than on an '
            'optimised build. A virtualenv made with Debian\'s '
            '/usr/bin/python3 runs faster.' % reason)


if __name__ == '__main__':
    reason = slow_build()
    if reason:
        print(reason)
    sys.exit(1 if reason else 0)
