"""Keystone's WSGI application, importable by gunicorn.

keystone.wsgi.api parses sys.argv as its own command line when imported;
under gunicorn that would be gunicorn's options, which keystone rejects.
Hide them for the duration of the import.  The configuration comes from
OS_KEYSTONE_CONFIG_DIR / OS_KEYSTONE_CONFIG_FILES as usual.
"""

import sys

_saved_argv = sys.argv
sys.argv = [_saved_argv[0] if _saved_argv else 'keystone']
try:
    from keystone.wsgi.api import application  # noqa: F401
finally:
    sys.argv = _saved_argv
