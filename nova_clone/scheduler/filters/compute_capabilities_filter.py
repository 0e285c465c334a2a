"""ComputeCapabilitiesFilter: flavor extra specs against host capabilities.

Extra specs ``capabilities:<attr>=<requirement>`` (and un-scoped keys
without a colon) are compared with the host state's attributes and stats,
with the operators Nova's extra specs accept (``<in>``, ``s==``, ``>=``,
``<or>``...).
"""

import operator

from nova_clone.scheduler import filters

_STR_OPS = {
    's==': operator.eq, 's!=': operator.ne, 's<': operator.lt,
    's<=': operator.le, 's>': operator.gt, 's>=': operator.ge,
}
_NUM_OPS = {
    '=': lambda a, b: a >= b,  # "at least", as Nova reads '='
    '==': operator.eq, '!=': operator.ne,
    '<=': operator.le, '>=': operator.ge,
}


def match(value, requirement):
    """Whether ``value`` satisfies an extra-spec ``requirement`` string."""
    words = requirement.split()
    if not words:
        return value in (None, '')
    op = words[0]
    if op == '<in>':
        return len(words) > 1 and words[1] in str(value)
    if op == '<all-in>':
        values = value if isinstance(value, (list, set, tuple)) else [value]
        return all(w in [str(v) for v in values] for w in words[1:])
    if op == '<or>':
        return str(value) in [w for w in words[1:] if w != '<or>']
    if op in _STR_OPS and len(words) > 1:
        return _STR_OPS[op](str(value), words[1])
    if op in _NUM_OPS and len(words) > 1:
        try:
            return _NUM_OPS[op](float(value), float(words[1]))
        except (TypeError, ValueError):
            return False
    return str(value) == requirement


class ComputeCapabilitiesFilter(filters.BaseHostFilter):

    run_on_rebuild = False

    run_filter_once_per_request = True

    def _lookup(self, host_state, path):
        value = host_state
        for index, part in enumerate(path):
            if isinstance(value, dict):
                if part not in value:
                    return None
                value = value[part]
            else:
                if index == 0 and part in (host_state.stats or {}):
                    value = host_state.stats[part]
                    continue
                value = getattr(value, part, None)
            if value is None:
                return None
        return value

    def host_passes(self, host_state, spec_obj):
        flavor = getattr(spec_obj, 'flavor', None)
        specs = getattr(flavor, 'extra_specs', None) or {}
        for key, requirement in specs.items():
            scope = key.split(':')
            if len(scope) > 1:
                if scope[0] != 'capabilities':
                    continue
                path = scope[1:]
            else:
                path = scope
            value = self._lookup(host_state, path)
            if value is None or not match(value, requirement):
                return False
        return True
