"""Keystone's WSGI application, importable by gunicorn.

keystone.wsgi.api parses sys.argv as its own command line when imported;
under gunicorn that would be gunicorn's options, which keystone rejects.
Hide them for the duration of the import.  The configuration comes from
OS_KEYSTONE_CONFIG_DIR / OS_KEYSTONE_CONFIG_FILES as usual.

Keystone builds its policy enforcer on the first request and publishes it
before registering its rules, so requests racing it on a fresh worker's
threads see no rule and get 403 (identity:validate_token refused to a
service user right after a restart).  The enforcer is built here, while
the worker is still single-threaded.
"""

import sys

_saved_argv = sys.argv
sys.argv = [_saved_argv[0] if _saved_argv else 'keystone']
try:
    from keystone.wsgi.api import application  # noqa: F401
finally:
    sys.argv = _saved_argv


def _load_policy():
    # Not policy.get_enforcer(): it parses sys.argv into Keystone's CONF.
    from keystone.common.rbac_enforcer import enforcer as rbac
    enforcer = rbac.RBACEnforcer()._enforcer
    # Inside a request Keystone logs one summary instead of a warning per
    # deprecated rule; keep that behaviour for an enforcer made out of one.
    enforcer.suppress_deprecation_warnings = True
    enforcer.load_rules()
    return enforcer


_load_policy()
