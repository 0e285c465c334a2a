"""Policy enforcement with oslo.policy and Nova's default rules."""

import threading
import time

from oslo_config import cfg
from oslo_log import log as logging
from oslo_policy import opts as policy_opts
from oslo_policy import policy

from nova_clone.conf import CONF
from nova_clone import exception
from nova_clone import policies

LOG = logging.getLogger(__name__)

_ENFORCER = None
_LOCK = threading.Lock()

# Nova enforces the new (role-based, scoped) defaults.
policy_opts.set_defaults(CONF, enforce_scope=True, enforce_new_defaults=True)


class _Enforcer(policy.Enforcer):
    """oslo.policy's Enforcer, looking for changed policy files at most
    once per RECHECK_SECONDS.

    oslo.policy stats the policy file and searches every policy_dirs
    entry through the config dirs on each check: several per request.
    An edited policy file still applies within a second, without restart.
    """

    RECHECK_SECONDS = 1.0
    _checked_at = None

    def load_rules(self, force_reload=False):
        now = time.monotonic()
        if (not force_reload and self.rules and
                self._checked_at is not None and
                now - self._checked_at < self.RECHECK_SECONDS):
            return
        super().load_rules(force_reload=force_reload)
        self._checked_at = now

    def clear(self):
        super().clear()
        self._checked_at = None


def init(policy_file=None, rules=None, suppress_deprecation_warnings=True):
    """Build the process-wide enforcer once."""
    global _ENFORCER
    with _LOCK:
        if _ENFORCER is None:
            enforcer = _Enforcer(CONF, policy_file=policy_file,
                                 rules=rules)
            enforcer.suppress_deprecation_warnings = (
                suppress_deprecation_warnings)
            enforcer.register_defaults(policies.list_rules())
            try:
                enforcer.load_rules()
            except cfg.NotInitializedError:
                # No command line parsed (library use, unit tests): the
                # defaults alone apply.
                enforcer.use_conf = False
                enforcer.set_rules(policy.Rules(
                    {name: default.check for name, default in
                     enforcer.registered_rules.items()}), use_conf=False)
            _ENFORCER = enforcer
    return _ENFORCER


def reset():
    global _ENFORCER
    with _LOCK:
        if _ENFORCER is not None:
            _ENFORCER.clear()
        _ENFORCER = None


def get_enforcer():
    return init()


def set_rules(rules, overwrite=True):
    """Override rules (tests): ``rules`` maps names to check strings."""
    enforcer = init()
    enforcer.set_rules(policy.Rules.from_dict(rules), overwrite=overwrite,
                       use_conf=False)


def authorize(context, action, target=None, do_raise=True, exc=None):
    """Check ``action`` for ``context`` against ``target``.

    Raises PolicyNotAuthorized (403) when denied and ``do_raise``; returns
    False instead otherwise.
    """
    enforcer = init()
    if target is None:
        target = {'project_id': context.project_id,
                  'user_id': context.user_id}
    credentials = context.to_policy_values()
    if exc is None:
        exc = exception.PolicyNotAuthorized
    try:
        return enforcer.authorize(action, target, credentials,
                                  do_raise=do_raise, exc=exc, action=action)
    except policy.PolicyNotRegistered:
        LOG.exception('Policy %s is not registered', action)
        raise
    except policy.InvalidScope:
        LOG.debug('Policy %s failed the scope check', action)
        if do_raise:
            raise exception.PolicyNotAuthorized(action=action)
        return False


def check_is_admin(context):
    """True when the context holds the administrator role."""
    enforcer = init()
    return enforcer.authorize('context_is_admin', {},
                              context.to_policy_values())


def list_rules():
    return policies.list_rules()
